// Network tools as container processes on the netns data plane (docs/clients.md §5.16), with the real kubectl
// against a kubenet cluster with `--network-policy calico`: `kubectl run --restart=Never --image=busybox --
// wget -qO- http://web` runs busybox's wget in the pod's namespace, its answer is the pod's log and the pod
// Succeeded; after a deny-all NetworkPolicy busybox's `wget: download timed out` and exit code 1 (Failed); the
// same with curlimages/curl (curl's exit 28), busybox's nc and an nslookup; a Job whose container runs wget completes; and
// `kubectl exec` into a busybox pod runs busybox's wget too. Root only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataplaneWorld, eventually, skipReason } from './dataplane-harness.js';

type Obj = any;
const CLUSTER = 'nt1';

describe('network tools as container processes (netns data plane)', { skip: skipReason() }, () => {
  let world: DataplaneWorld;
  let clusterIp = '';

  /** Waits until the pod ended; returns its phase and its container's terminated state. */
  const ended = async (name: string, timeoutMs = 60_000): Promise<{ phase: string; terminated: Obj }> => {
    let pod: Obj;
    await eventually(
      async () => {
        pod = await world.json(['get', 'pod', name]);
        return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
      },
      timeoutMs,
      `pod ${name} to end`,
    );
    return { phase: pod.status.phase, terminated: pod.status.containerStatuses[0].state.terminated };
  };
  const logs = (name: string) => world.kubectlOk(['logs', name]);
  const run = (name: string, image: string, args: string[]) => world.kubectlOk(['run', name, '--restart=Never', `--image=${image}`, '--', ...args]);
  const warnings = async (name: string): Promise<string[]> =>
    (await world.json(['get', 'events', '--field-selector', `involvedObject.name=${name},type=Warning`])).items.map((e: Obj) => `${e.reason}: ${e.message}`);

  before(async () => {
    world = new DataplaneWorld();
    await world.start();
    clusterIp = await world.webBehindService(CLUSTER);
    await world.kubectlOk(['wait', '--for=condition=Ready', 'pod', '-n', 'kube-system', '-l', 'k8s-app=kube-dns', '--timeout=90s']);
  });
  after(async () => {
    await world?.close();
    world?.assertClean();
  });

  it('busybox: wget -qO- http://web prints the backend’s page in the log; the pod Succeeded', async () => {
    await run('bb-ok', 'busybox', ['wget', '-qO-', '--timeout=5', 'http://web']);
    const { phase, terminated } = await ended('bb-ok');
    const log = await logs('bb-ok');
    assert.equal(phase, 'Succeeded', log);
    assert.equal(terminated.exitCode, 0);
    assert.match(log, /Served by aksemu for pod web-[01]\./);
  });

  it('busybox: wget without -q says what busybox says around the page', async () => {
    await run('bb-talk', 'busybox', ['sh', '-c', 'wget -O- http://web && echo fetched']);
    assert.equal((await ended('bb-talk')).phase, 'Succeeded');
    // stdout (the page) and stderr (busybox's messages) are two pipes, read as they come, as containerd reads them.
    const log = await logs('bb-talk');
    const messages = log.split('\n').filter((l) => !l.startsWith('<'));
    assert.deepEqual(messages.slice(0, 2), [`Connecting to web (${clusterIp}:80)`, 'writing to stdout']);
    assert.match(messages[2]!, /^- {20}100% \|\*{32}\| +\d+  0:00:00 ETA$/);
    assert.deepEqual(messages.slice(3), ['written to stdout', 'fetched', '']);
    assert.match(log, /Served by aksemu for pod web-[01]\./);
  });

  it('a pipeline: wget -qO- http://web | grep -c reads the page', async () => {
    await run('bb-pipe', 'busybox', ['sh', '-c', 'wget -qO- http://web | grep -c "Served by aksemu"']);
    assert.equal((await ended('bb-pipe')).phase, 'Succeeded');
    assert.equal(await logs('bb-pipe'), '1\n');
  });

  it('curlimages/curl and busybox nslookup: the answer in the log, the pod Succeeded', async () => {
    await run('curl-ok', 'curlimages/curl', ['-sS', '--max-time', '5', 'http://web']);
    assert.equal((await ended('curl-ok')).phase, 'Succeeded', await logs('curl-ok'));
    assert.match(await logs('curl-ok'), /Served by aksemu for pod web-[01]\./);
    await run('ns-ok', 'busybox', ['nslookup', 'web']);
    assert.equal((await ended('ns-ok')).phase, 'Succeeded', await logs('ns-ok'));
    assert.match(await logs('ns-ok'), new RegExp(`Name:\\s+web\\.default\\.svc\\.cluster\\.local\\nAddress: ${clusterIp.replaceAll('.', '\\.')}`));
    // busybox's nslookup is run as the host's (bind's) build, and the pod's events say so.
    assert.ok((await warnings('ns-ok')).some((w) => w.startsWith("ToolBuildNotEmulated: aksemu runs the host's nslookup (bind)")));
  });

  it("busybox nc -zv: busybox's `web (IP:80) open`", async () => {
    await run('nc-ok', 'busybox', ['nc', '-zv', '-w', '2', 'web', '80']);
    assert.equal((await ended('nc-ok')).phase, 'Succeeded', await logs('nc-ok'));
    assert.equal(await logs('nc-ok'), `web (${clusterIp}:80) open\n`);
  });

  it('a Job whose container runs wget completes', async () => {
    await world.kubectlOk(['create', 'job', 'fetch', '--image=busybox', '--', 'wget', '-qO-', '--timeout=5', 'http://web']);
    await world.kubectlOk(['wait', '--for=condition=complete', 'job/fetch', '--timeout=60s']);
    assert.match(await world.kubectlOk(['logs', 'job/fetch']), /Served by aksemu for pod web-/);
  });

  it('a busybox image without curl: sh says curl is not found, exit 127', async () => {
    await run('bb-nocurl', 'busybox', ['sh', '-c', 'curl http://web']);
    const { phase, terminated } = await ended('bb-nocurl');
    assert.deepEqual([phase, terminated.exitCode], ['Failed', 127]);
    assert.equal(await logs('bb-nocurl'), 'sh: curl: not found\n');
  });

  it('after a deny-all NetworkPolicy: wget: download timed out, exit 1; curl exits 28; nc times out; exec runs busybox wget too', async () => {
    await world.kubectlOk(['run', 'bb-idle', '--image=busybox', '--', 'sleep', '3600']);
    await world.kubectlOk(['wait', '--for=condition=Ready', 'pod/bb-idle', '--timeout=60s']);
    await world.create(
      'deny.json',
      JSON.stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'deny-all' }, spec: { podSelector: {} } }),
    );
    // The policy is on the nodes once a probe of the data plane stops getting through.
    await eventually(
      async () => {
        await run('probe', 'busybox', ['wget', '-qO-', '--timeout=1', 'http://web']);
        const { phase } = await ended('probe');
        await world.kubectlOk(['delete', 'pod', 'probe', '--wait=true']);
        return phase === 'Failed';
      },
      30_000,
      'the deny-all policy to block web',
    );
    const started = Date.now();
    await run('bb-deny', 'busybox', ['wget', '-qO-', '--timeout=2', 'http://web']);
    const { phase, terminated } = await ended('bb-deny');
    assert.deepEqual([phase, terminated.exitCode], ['Failed', 1]);
    assert.equal(await logs('bb-deny'), 'wget: download timed out\n');
    assert.ok(Date.now() - started < 30_000, 'one try, no retries');

    await run('curl-deny', 'curlimages/curl', ['-sS', '--max-time', '2', 'http://web']);
    const curl = await ended('curl-deny');
    assert.deepEqual([curl.phase, curl.terminated.exitCode], ['Failed', 28]);
    assert.match(await logs('curl-deny'), /^curl: \(28\) /);

    await run('nc-deny', 'busybox', ['nc', '-zv', '-w', '2', 'web', '80']);
    const ncDenied = await ended('nc-deny');
    assert.deepEqual([ncDenied.phase, ncDenied.terminated.exitCode], ['Failed', 1]);
    assert.equal(await logs('nc-deny'), `nc: web (${clusterIp}:80): Connection timed out\n`);

    const exec = await world.kubectl(['exec', 'bb-idle', '--', 'wget', '-qO-', '--timeout=2', 'http://web']);
    assert.equal(exec.code, 1);
    assert.match(exec.stderr, /^wget: download timed out\n/);
    assert.match(exec.stderr, /command terminated with exit code 1/);
  });
});
