// `kubectl debug` (ephemeral containers, docs/clients.md §5.22) with the real kubectl on the netns data plane, a
// kubenet cluster with `--network-policy calico`: the debugger joins the pod's network namespace, so busybox's
// wget to 127.0.0.1 reaches the target pod's own nginx, and wget to a Service answers with a backend's page in
// `kubectl logs POD -c debugger-…`; once an egress deny policy selects the pod, the debugger is denied too
// (`wget: download timed out` by address, `bad address` by name: DNS is denied too; exit 1 in
// status.ephemeralContainerStatuses). And `kubectl cp` into and out of a
// pod of this cluster, and exec's `cat` reading what it copied. Root only.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DataplaneWorld, eventually, skipReason } from './dataplane-harness.js';

type Obj = any;
const CLUSTER = 'dbgnt1';

describe('kubectl debug and cp on the netns data plane', { skip: skipReason() }, () => {
  let world: DataplaneWorld;
  let clusterIp = '';

  /** kubectl debug POD --image=busybox [--target] -- ARGS, then the debugger's end: its exit code and log. */
  const debug = async (pod: string, args: string[], target?: string): Promise<{ name: string; exitCode: number; log: string }> => {
    const before = new Set(((await world.json(['get', 'pod', pod])).spec.ephemeralContainers ?? []).map((c: Obj) => c.name));
    await world.kubectlOk(['debug', pod, '--image=busybox', ...(target ? [`--target=${target}`] : []), '--', ...args]);
    const added = (await world.json(['get', 'pod', pod])).spec.ephemeralContainers.map((c: Obj) => c.name).filter((n: string) => !before.has(n));
    assert.equal(added.length, 1);
    const name: string = added[0];
    let terminated: Obj;
    await eventually(
      async () => {
        const status = (await world.json(['get', 'pod', pod])).status.ephemeralContainerStatuses?.find((s: Obj) => s.name === name);
        terminated = status?.state?.terminated;
        return terminated !== undefined;
      },
      60_000,
      `debugger ${name} to end`,
    );
    return { name, exitCode: terminated.exitCode, log: await world.kubectlOk(['logs', pod, '-c', name]) };
  };

  before(async () => {
    world = new DataplaneWorld();
    clusterIp = await world.startWebCluster(CLUSTER);
    await world.kubectlOk(['run', 'client', '--image=busybox', '--labels=role=client', '--', 'sleep', '3600']);
    await world.kubectlOk(['wait', '--for=condition=Ready', 'pod/client', '--timeout=60s']);
  });
  after(async () => {
    await world?.close();
    world?.assertClean();
  });

  it("the debugger shares the target pod's network namespace: 127.0.0.1 is the pod's nginx", async () => {
    const r = await debug('web-0', ['wget', '-qO-', '--timeout=5', 'http://127.0.0.1/'], 'web');
    assert.equal(r.exitCode, 0, r.log);
    assert.match(r.log, /Served by aksemu for pod web-0\./);
    const events = (await world.json(['get', 'events', '--field-selector', 'involvedObject.name=web-0'])).items;
    assert.ok(
      events.some((e: Obj) => e.reason === 'Started' && e.involvedObject.fieldPath === `spec.ephemeralContainers{${r.name}}`),
      'the kubelet started it, as its event says',
    );
  });

  it('wget to a Service from a debugger prints the backend’s page in kubectl logs -c', async () => {
    const r = await debug('client', ['wget', '-qO-', '--timeout=5', 'http://web']);
    assert.equal(r.exitCode, 0, r.log);
    assert.match(r.log, /Served by aksemu for pod web-[01]\./);
  });

  it('an egress deny policy on the pod denies its debugger too: wget: download timed out, exit 1', async () => {
    const deny = { metadata: { name: 'deny-client-egress' }, spec: { podSelector: { matchLabels: { role: 'client' } }, policyTypes: ['Egress'] } };
    await world.create('deny-client.json', JSON.stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', ...deny }));
    // By the Service's address (the policy denies DNS too: by name, busybox says `bad address 'web'`, as on AKS).
    let last: { exitCode: number; log: string } | undefined;
    await eventually(
      async () => {
        last = await debug('client', ['wget', '-qO-', '--timeout=2', `http://${clusterIp}`]);
        return last.exitCode !== 0;
      },
      60_000,
      'the policy to deny the client',
    );
    assert.deepEqual([last!.exitCode, last!.log], [1, 'wget: download timed out\n']);
    const byName = await debug('client', ['wget', '-qO-', '--timeout=2', 'http://web']);
    assert.deepEqual([byName.exitCode, byName.log], [1, "wget: bad address 'web'\n"]);
    // The pod itself is still Running: an ephemeral container's end is not the pod's.
    assert.equal((await world.json(['get', 'pod', 'client'])).status.phase, 'Running');
  });

  it("kubectl cp into a pod and back; exec's cat reads what it copied", async () => {
    const local = join(world.scratch, 'cp-in.txt');
    writeFileSync(local, 'copied through tar over exec\n');
    await world.kubectlOk(['cp', local, 'web-0:/tmp/in.txt']);
    const back = join(world.scratch, 'cp-out.txt');
    await world.kubectlOk(['cp', 'web-0:/tmp/in.txt', back]);
    assert.equal(readFileSync(back, 'utf8'), 'copied through tar over exec\n');
    // exec's tools read it in the container's /tmp; what they write there stays in their own layer.
    assert.equal(await world.kubectlOk(['exec', 'web-0', '--', 'cat', '/tmp/in.txt']), 'copied through tar over exec\n');
    await world.kubectlOk(['exec', 'web-0', '--', 'wget', '-qO', '/tmp/page.html', 'http://127.0.0.1/']);
    const gone = await world.kubectl(['exec', 'web-0', '--', 'cat', '/tmp/page.html']);
    assert.equal(gone.code, 1, "a command's /tmp writes are its own");
  });
});
