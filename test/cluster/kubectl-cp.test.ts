// `kubectl cp` both ways with the real kubectl (docs/clients.md §5.21): tar over exec, served by busybox's tar in
// the kubelet over the container's filesystem, so it works without a data plane. A file and a directory into a
// busybox pod and back, byte for byte (websocket and SPDY); a file into a directory (kubectl's `test -d`); a missing file (kubectl's
// exit 0, tar's words through exec); a destination directory that does not exist; the filesystem goes with the pod.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { containerRootfsDir } from '../../src/cluster/nodefs/node-root.js';
import { nodeRootDir } from '../../src/cluster/nodefs/paths.js';
import { api, eventually, HAVE_KUBECTL, KUBECTL, kubectl, runningPod, runTool, withCluster } from './harness.js';

const skip = HAVE_KUBECTL ? false : 'no /usr/bin/kubectl on this machine';

describe('kubectl cp', { skip }, () => {
  test('both ways, a directory, errors as busybox tar and kubectl print them', () =>
    withCluster({ networkPlugin: 'kubenet' }, async (env) => {
      await runningPod(env, { metadata: { name: 'cpbox' }, spec: { containers: [{ name: 'box', image: 'busybox', command: ['sleep', '3600'] }] } });

      // A file with every byte value, into /tmp/ (a directory: kubectl's `test -d` says so, the name is kept).
      const local = join(env.scratch, 'payload.bin');
      const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256));
      writeFileSync(local, bytes);
      const up = await kubectl(env, ['cp', local, 'cpbox:/tmp/']);
      assert.equal(up.code, 0, up.stderr);
      const back = join(env.scratch, 'back.bin');
      const down = await kubectl(env, ['cp', 'cpbox:/tmp/payload.bin', back]);
      assert.equal(down.code, 0, down.stderr);
      assert.ok(readFileSync(back).equals(bytes), 'the file came back byte for byte');
      // busybox's tar says it on stderr, which kubectl cp prints.
      assert.match(down.stdout + down.stderr, /tar: removing leading '\/' from member names/);

      // The same over SPDY (kubectl's fallback; forced here).
      const spdy = (args: string[]) =>
        runTool(KUBECTL, args, { KUBECONFIG: env.kubeconfig, HOME: env.scratch, KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' }, 60_000);
      assert.equal((await spdy(['cp', local, 'cpbox:/tmp/spdy.bin'])).code, 0);
      const spdyBack = join(env.scratch, 'spdy-back.bin');
      assert.equal((await spdy(['cp', 'cpbox:/tmp/spdy.bin', spdyBack])).code, 0);
      assert.ok(readFileSync(spdyBack).equals(bytes), 'over SPDY too');

      // A directory tree, to a new name, and back.
      const tree = join(env.scratch, 'tree');
      mkdirSync(join(tree, 'sub'), { recursive: true });
      writeFileSync(join(tree, 'a.txt'), 'alpha\n');
      writeFileSync(join(tree, 'sub', 'b.txt'), 'beta\n');
      const upTree = await kubectl(env, ['cp', tree, 'cpbox:/data']);
      assert.equal(upTree.code, 0, upTree.stderr);
      const treeBack = join(env.scratch, 'tree-back');
      const downTree = await kubectl(env, ['cp', 'cpbox:/data', treeBack]);
      assert.equal(downTree.code, 0, downTree.stderr);
      assert.equal(readFileSync(join(treeBack, 'a.txt'), 'utf8'), 'alpha\n');
      assert.equal(readFileSync(join(treeBack, 'sub', 'b.txt'), 'utf8'), 'beta\n');

      // The kubelet's files are in the container: /etc/hosts names the pod.
      const hosts = join(env.scratch, 'hosts');
      assert.equal((await kubectl(env, ['cp', 'cpbox:/etc/hosts', hosts])).code, 0);
      assert.match(readFileSync(hosts, 'utf8'), /\tcpbox$/m);

      // A file that is not there: kubectl cp itself exits 0 and writes nothing, a known kubectl bug (kubernetes/kubectl
      // issue 980: it stops reading at the archive's end, before tar's exit status); tar's own words and status
      // show through exec.
      const missing = await kubectl(env, ['cp', 'cpbox:/tmp/nosuch', join(env.scratch, 'nosuch')]);
      assert.equal(missing.code, 0, JSON.stringify(missing));
      assert.equal(existsSync(join(env.scratch, 'nosuch')), false);
      const tarMissing = await kubectl(env, ['exec', 'cpbox', '--', 'tar', 'cf', '-', '/tmp/nosuch']);
      assert.equal(tarMissing.code, 1);
      assert.equal(
        tarMissing.stderr,
        'tar: /tmp/nosuch: No such file or directory\ntar: error exit delayed from previous errors\ncommand terminated with exit code 1\n',
      );

      // Into a directory that does not exist: tar cannot change to it.
      const nodir = await kubectl(env, ['cp', local, 'cpbox:/no/such/dir/x.bin']);
      assert.notEqual(nodir.code, 0);
      assert.match(nodir.stdout + nodir.stderr, /tar: can't change directory to '\/no\/such\/dir': No such file or directory/);

      // exec sees the same commands: test -d, tar t.
      assert.equal((await kubectl(env, ['exec', 'cpbox', '--', 'test', '-d', '/data/sub'])).code, 0);
      const notDir = await kubectl(env, ['exec', 'cpbox', '--', 'test', '-d', '/tmp/payload.bin']);
      assert.equal(notDir.code, 1);
      assert.match(notDir.stderr, /command terminated with exit code 1/);

      // The container's filesystem is a directory of the pod's on its node, and goes with the pod.
      const pod = (await api(env, 'GET', '/api/v1/namespaces/default/pods/cpbox')).json;
      const rootfs = containerRootfsDir(nodeRootDir(env.home, 'rg', 'c1', pod.spec.nodeName), pod.metadata.uid, 'box');
      assert.ok(readFileSync(join(rootfs, 'tmp', 'payload.bin')).equals(bytes));
      assert.equal((await kubectl(env, ['delete', 'pod', 'cpbox', '--wait=true'])).code, 0);
      await eventually(() => !existsSync(rootfs), 10_000, 'the container filesystem removed with the pod');
    }));
});
