// The backend images of the catalogue (src/cluster/images/backends.ts) in a network namespace of our own, as
// the container runtime runs them with ctx.netns: agnhost serve-hostname answers the pod's name on 9376, netexec
// answers /hostname, /clientip and /echo, nginx serves its page on 80 (bound as root, served as nobody); each is
// Ready once listening and its server goes with the container. Without a namespace nothing listens and the
// container just runs. Root only.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { imageSpecOf, programFor } from '../../src/cluster/images/catalogue.js';
import type { ProgramContext } from '../../src/cluster/images/program.js';
import { runProgram } from '../../src/cluster/images/runner.js';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';
import { inNetns, IpBatcher, mayFail, NETNS_DIR, run } from '../../src/dataplane/netns/exec.js';
import { eventually } from '../cluster/harness.js';
import { rootSnapshot, skipReason, testPrefix } from './harness.js';

const prefix = testPrefix();
const skip = await skipReason(prefix);
const ns = `${prefix}-b`;

/** Starts the image's program as the runner does; returns the process, its log and readiness. */
function start(image: string, argv: string[], netns: string | undefined, podSpec: Record<string, unknown> = {}) {
  const spec = imageSpecOf(image);
  assert.ok(spec, `${image} is in the catalogue`);
  const found = programFor(spec, argv, {});
  assert.ok(found, `${image} ${argv.join(' ')} has a program`);
  const state = { log: '', ready: [] as boolean[] };
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-7f9c', namespace: 'default' }, spec: podSpec } as unknown as KubeObject;
  const ctx = {
    pod,
    node: 'n',
    nodeIp: '10.224.0.4',
    container: 'c',
    image,
    argv: found.argv,
    env: {},
    files: {} as ProgramContext['files'],
    nodeRoot: '/nonexistent',
    api: {} as ProgramContext['api'],
    ...(netns ? { netns } : {}),
    write: (_s: string, t: string) => void (state.log += t),
    setReady: (r: boolean) => void state.ready.push(r),
  };
  return { process: runProgram(found.program, ctx), state };
}

async function curl(url: string): Promise<string> {
  const [f, a] = inNetns(ns, 'curl', ['-sS', '--max-time', '3', url]);
  const r = await run(f, a);
  return r.code === 0 ? r.stdout : `curl exit ${r.code}: ${r.stderr}`;
}

const until = (check: () => boolean | Promise<boolean>, what: string): Promise<void> => eventually(check, 5_000, what);

describe('backend images in a pod namespace (agnhost, nginx)', { skip }, () => {
  const ip = new IpBatcher();
  let root: Record<string, string>;
  const path = `${NETNS_DIR}/${ns}`;
  before(async () => {
    root = rootSnapshot();
    await ip.batch(null, [`netns add ${ns}`]);
    await ip.batch(ns, ['link set lo up']);
  });
  after(() => ip.batch(null, [mayFail(`netns del ${ns}`)]));

  it('agnhost serve-hostname answers the pod name on 9376, Ready once listening; stopping the container stops it', async () => {
    const { process, state } = start('registry.k8s.io/e2e-test-images/agnhost:2.52', ['serve-hostname'], path);
    await until(() => state.ready.at(-1) === true, 'Ready once listening');
    assert.deepEqual(state.ready, [false, true]);
    assert.equal(await curl('http://127.0.0.1:9376/anything'), 'web-7f9c');
    assert.match(state.log, /^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d Serving on port 9376\.\n/);
    await until(() => state.log.includes('HTTP request from 127.0.0.1:'), 'the request is logged');
    process.stop();
    assert.equal(await process.exited, 137);
    // The listener closes as the process goes: ask until it has (a fixed pause was outrun under load).
    let after = '';
    await until(async () => /^curl exit 7/.test((after = await curl('http://127.0.0.1:9376/'))), 'the port to close');
    assert.match(after, /^curl exit 7/);
  });

  it('agnhost netexec: /hostname (spec.hostname wins), /clientip, /echo with a code', async () => {
    const { process, state } = start('registry.k8s.io/e2e-test-images/agnhost:2.52', ['/agnhost', 'netexec', '--http-port=8083', '--udp-port', '-1'], path, {
      hostname: 'custom',
    });
    await until(() => state.ready.at(-1) === true, 'Ready once listening');
    assert.equal(await curl('http://127.0.0.1:8083/hostname'), 'custom');
    assert.match(await curl('http://127.0.0.1:8083/clientip'), /^127\.0\.0\.1:\d+$/);
    assert.equal(await curl('http://127.0.0.1:8083/echo?msg=hello'), 'hello');
    const [f, a] = inNetns(ns, 'curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', 'http://127.0.0.1:8083/echo?msg=x&code=418']);
    assert.equal((await run(f, a)).stdout, '418');
    process.stop();
    await process.exited;
  });

  it('agnhost refuses a bad command line as cobra does', async () => {
    const { process, state } = start('registry.k8s.io/e2e-test-images/agnhost:2.52', ['serve-hostname', '--bogus'], path);
    assert.equal(await process.exited, 1);
    assert.equal(state.log, 'Error: unknown flag: --bogus\n');
  });

  it('nginx serves its page on 80 as nobody; a second one on the same port fails', async () => {
    const first = start('nginx:1.27', [], path);
    try {
      await until(() => first.state.ready.at(-1) === true, 'Ready once listening');
      assert.match(await curl('http://127.0.0.1/'), /Served by aksemu for pod web-7f9c\./);
      const [f, a] = inNetns(ns, 'ss', ['-Htlnp', 'sport = :80']);
      const pid = /pid=(\d+)/.exec((await run(f, a)).stdout)?.[1];
      assert.match(readFileSync(`/proc/${pid}/status`, 'utf8'), /^Uid:\t65534\t65534\t65534\t65534$/m, 'the server runs as nobody');
      const second = start('docker.io/library/nginx', ['/docker-entrypoint.sh', 'nginx', '-g', 'daemon off;'], path);
      assert.equal(await second.process.exited, 1);
      assert.match(second.state.log, /address already in use/);
    } finally {
      first.process.stop();
      await first.process.exited;
    }
  });

  it('without a namespace (no data plane) nothing listens and the container runs', async () => {
    const { process, state } = start('registry.k8s.io/e2e-test-images/agnhost:2.52', ['serve-hostname'], undefined);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(state.ready, []);
    process.stop();
    assert.equal(await process.exited, 137);
  });

  it('leaves the root namespace as it was', async () => {
    await ip.batch(null, [`netns del ${ns}`]);
    assert.deepEqual(rootSnapshot(), root);
  });
});
