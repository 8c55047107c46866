// Garbage collection at start-up: namespaces with this instance's prefix left by a crashed run are deleted,
// after the processes that would keep them alive are killed; other prefixes are not touched.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readlinkSync, statSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { NetnsDataplane } from '../../src/dataplane/netns/driver.js';
import { inNetns, IpBatcher, listNetns, mayFail, netnsPath } from '../../src/dataplane/netns/exec.js';
import { rootSnapshot, skipReason, testPrefix } from './harness.js';

const prefix = testPrefix();
const other = testPrefix();
const skip = await skipReason(prefix);

describe('netns garbage collection', { skip }, () => {
  const ip = new IpBatcher();
  const mine = [`${prefix}-hstale`, `${prefix}-pstale`];
  const theirs = `${other}-inet`;
  after(() =>
    ip.batch(
      null,
      [...mine, theirs].map((n) => mayFail(`netns del ${n}`)),
    ),
  );

  it('deletes leftovers of its own prefix, killing their processes first, and nothing else', async () => {
    const root = rootSnapshot();
    await ip.batch(
      null,
      [...mine, theirs].map((n) => `netns add ${n}`),
    );
    const [file, args] = inNetns(mine[0]!, 'sleep', ['300']);
    const sleeper = spawn(file, args, { stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => sleeper.on('exit', (_code, signal) => resolve(signal)));
    await new Promise((resolve) => sleeper.on('spawn', resolve));
    // nsenter has entered the namespace once its pid links to it.
    const inode = `net:[${statSync(netnsPath(mine[0]!)).ino}]`;
    while (readlinkSync(`/proc/${sleeper.pid}/ns/net`) !== inode) await new Promise((resolve) => setTimeout(resolve, 10));
    const dp = new NetnsDataplane({ prefix });
    assert.deepEqual((await dp.gc()).sort(), mine);
    assert.equal(await exited, 'SIGKILL');
    assert.deepEqual(
      listNetns((n) => n.startsWith(`${prefix}-`)),
      [],
    );
    assert.deepEqual(
      listNetns((n) => n.startsWith(`${other}-`)),
      [theirs],
    );
    await ip.batch(null, [`netns del ${theirs}`]);
    assert.deepEqual(rootSnapshot(), root);
  });
});
