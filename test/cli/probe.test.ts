// `aksemu probe` as a process against a real server whose data plane is a recording fake (the netns driver
// has its own tests): what reaches the driver, the two output forms, exit codes, and ARM's errors for
// unknown hosts, unknown clusters and a server without a data plane.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { aksemu } from '../az/helpers.js';
import { azIn, groupWithSubnet } from '../compute/helpers.js';
import { aksClient, cluster, POLL } from '../containerservice/harness.js';
import { parseFrom, parseTo, runProbe } from '../../src/cli/probe.js';
import { RecordingDataplane } from '../dataplane/derive-fakes.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';

/** runProbe in-process (the same code the command runs after commander has parsed the flags). */
async function probeIn(home: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const flags = new Map<string, string>();
  for (let i = 0; i < args.length; i += 2) flags.set(args[i]!, args[i + 1]!);
  let stdout = '';
  let stderr = '';
  const code = await runProbe(
    {
      from: parseFrom(flags.get('--from')!),
      to: parseTo(flags.get('--to')!),
      output: (flags.get('-o') as 'json' | undefined) ?? 'text',
      ...(flags.has('-g') ? { resourceGroup: flags.get('-g')! } : {}),
      ...(flags.has('-n') ? { name: flags.get('-n')! } : {}),
      ...(flags.has('--timeout') ? { timeout: Number(flags.get('--timeout')) } : {}),
    },
    { env: { AKSEMU_HOME: home }, stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) } },
  );
  return { code, stdout, stderr };
}

describe('aksemu probe', () => {
  let server: TestServer;
  let home: string;
  const dp = new RecordingDataplane();
  let vmIp: string;
  let nodeName: string;
  let nodeIp: string;
  let clusterId: string;

  before(async () => {
    home = tempHome();
    server = await startTestServer({ home, dataplane: dp, dataplaneDebounceMs: 1 });
    await groupWithSubnet(home, 'rg');
    const vm = await azIn(home, [
      'vm',
      'create',
      '-g',
      'rg',
      '-n',
      'client',
      '--vnet-name',
      'vnet1',
      '--subnet',
      'web',
      '--admin-username',
      'azureuser',
      '--generate-ssh-keys',
      '--public-ip-address',
      '',
      '--nsg',
      '',
    ]);
    assert.equal(vm.code, 0, vm.stderr);
    vmIp = vm.json.privateIpAddress;
    const created = await aksClient(server).managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', cluster({ networkPlugin: 'kubenet' }, { count: 1 }), POLL);
    clusterId = created.id!;
    await server.dataplane.idle();
    const node = dp.applied
      .at(-1)!
      .vnets.flatMap((v) => v.hosts)
      .find((h) => h.kind === 'node')!;
    nodeName = node.name;
    nodeIp = node.ip;
  });

  after(async () => {
    await server.close();
    removeHome(home);
  });

  it('connects from a VM and prints the source the far side saw', async () => {
    const r = await aksemu(home, ['probe', '--from', 'vm/client', '--to', '10.0.1.200:8080']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `connected from ${vmIp}\n`);
    assert.deepEqual(dp.probes.at(-1), { from: { kind: 'vm', name: 'client' }, to: { ip: '10.0.1.200', port: 8080 }, timeoutMs: 5000 });
  });

  it('connects from a node; -o json prints the result', async () => {
    const r = await probeIn(home, ['--from', `node/${nodeName}`, '--to', '198.51.100.10:443', '-o', 'json', '--timeout', '2000']);
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    assert.equal(result.connected, true);
    assert.equal(result.seenSource, nodeIp);
    assert.equal(typeof result.ms, 'number');
    assert.equal(dp.probes.at(-1)!.timeoutMs, 2000);
  });

  it('a refused connection is "failed: …" and exit 1', async () => {
    dp.refusedPort = 9;
    const r = await probeIn(home, ['--from', 'internet', '--to', `${vmIp}:9`]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, `failed: connect ECONNREFUSED ${vmIp}:9\n`);
    assert.deepEqual(dp.probes.at(-1)!.from, { kind: 'internet' });
  });

  it("pods name their cluster; the driver gets its id and its failure comes back as ARM's error", async () => {
    const r = await probeIn(home, ['--from', 'pod/default/web-0', '--to', '10.0.1.4:80', '-g', 'rg', '-n', 'c1']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^ERROR: \(ProbeFailed\) pod default\/web-0 has no sandbox/);
    assert.deepEqual(dp.probes.at(-1)!.from, { kind: 'pod', clusterId, namespace: 'default', name: 'web-0' });
    const noCluster = await probeIn(home, ['--from', 'pod/default/web-0', '--to', '10.0.1.4:80', '-g', 'rg', '-n', 'nope']);
    assert.equal(noCluster.code, 1);
    assert.match(noCluster.stderr, /\(ResourceNotFound\)/);
    const missingFlags = await probeIn(home, ['--from', 'pod/default/web-0', '--to', '10.0.1.4:80']);
    assert.equal(missingFlags.code, 2);
    assert.match(missingFlags.stderr, /-g RESOURCE_GROUP -n CLUSTER/);
  });

  it("the control plane names its cluster; the driver gets what the cluster's tunnel carries (pod CIDR, node subnets)", async () => {
    const r = await probeIn(home, ['--from', 'controlplane', '--to', '10.244.0.5:80', '-g', 'rg', '-n', 'c1']);
    assert.equal(r.code, 1);
    const sent = dp.probes.at(-1)!;
    assert.deepEqual(sent.from, { kind: 'controlplane', clusterId });
    const node = dp.applied
      .at(-1)!
      .vnets.flatMap((v) => v.subnets.map((sn) => ({ sn, hosts: v.hosts })))
      .find(({ sn, hosts }) => hosts.some((h) => h.name === nodeName && h.subnetId === sn.id))!;
    assert.deepEqual(sent.tunnel, ['10.244.0.0/16', node.sn.prefix]);
    const missing = await probeIn(home, ['--from', 'controlplane', '--to', '10.244.0.5:80']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--from controlplane needs the cluster: -g RESOURCE_GROUP -n CLUSTER/);
  });

  it('unknown hosts and unusable flags', async () => {
    const count = dp.probes.length;
    const host = await probeIn(home, ['--from', 'vm/ghost', '--to', '10.0.1.4:80']);
    assert.equal(host.code, 1);
    assert.match(host.stderr, /^ERROR: \(HostNotFound\) No vm named 'ghost'/);
    const to = await aksemu(home, ['probe', '--from', 'vm/client', '--to', '10.0.1.4']);
    assert.equal(to.code, 2);
    assert.match(to.stderr, /expected IPv4:PORT/);
    assert.throws(() => parseFrom('container/x'), /pod\/NAMESPACE\/NAME, node\/NAME, vm\/NAME, internet or controlplane/);
    assert.throws(() => parseFrom('pod/only-name'), /pod\/NAMESPACE\/NAME/);
    assert.throws(() => parseTo('10.0.1.4:70000'), /IPv4:PORT/);
    assert.throws(() => parseTo('[::1]:80'), /IPv4:PORT/);
    assert.deepEqual(parseTo('10.0.1.4:80'), { ip: '10.0.1.4', port: 80 });
    assert.equal(dp.probes.length, count, 'nothing reached the driver');
  });

  it('a Service by name goes to the driver as its ClusterIP and port; unknown Services and missing flags are refused', async () => {
    assert.deepEqual(parseTo('svc/default/web'), { service: { namespace: 'default', name: 'web' } });
    assert.deepEqual(parseTo('svc/kube-system/kube-dns:dns-tcp'), { service: { namespace: 'kube-system', name: 'kube-dns', port: 'dns-tcp' } });
    assert.throws(() => parseTo('svc/Default/web'), /svc\/NAMESPACE\/NAME\[:PORT\]/);
    const r = await probeIn(home, ['--from', 'vm/client', '--to', 'svc/kube-system/kube-dns:dns-tcp', '-g', 'rg', '-n', 'c1']);
    assert.equal(r.code, 0, r.stderr);
    const sent = dp.probes.at(-1)!;
    assert.deepEqual(
      [sent.from, sent.to],
      [
        { kind: 'vm', name: 'client' },
        { ip: '10.0.0.10', port: 53 },
      ],
    );
    assert.ok(Array.isArray(sent.backends), 'the Service target carries its backends');
    const count = dp.probes.length;
    const missing = await probeIn(home, ['--from', 'vm/client', '--to', 'svc/default/nope', '-g', 'rg', '-n', 'c1']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^ERROR: \(ServiceNotFound\) services "nope" not found in namespace "default"/);
    const noFlags = await probeIn(home, ['--from', 'vm/client', '--to', 'svc/default/web']);
    assert.equal(noFlags.code, 2);
    assert.match(noFlags.stderr, /--to svc\/… needs the cluster: -g RESOURCE_GROUP -n CLUSTER/);
    assert.equal(dp.probes.length, count, 'nothing reached the driver');
  });

  it('a server without a data plane answers DataplaneDisabled', async () => {
    const otherHome = tempHome();
    const plain = await startTestServer({ home: otherHome });
    try {
      const r = await probeIn(otherHome, ['--from', 'internet', '--to', '10.0.1.4:80']);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /^ERROR: \(DataplaneDisabled\) The data plane is off: start aksemu with '--dataplane netns'/);
      assert.equal(r.stdout, '');
    } finally {
      await plain.close();
      removeHome(otherHome);
    }
  });
});
