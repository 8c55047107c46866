// Pod addresses per network model, against clusters created through ARM on a real server: the emulated
// host-local walk (kubenet, overlay, BYO fallback) is checked step by step against the real
// /usr/lib/cni/host-local; kubenet gives the node's /24 in that order; Azure CNI uses the NIC's secondary IPs;
// BYO CNI runs the real host-local (state under $AKSEMU_HOME), or emulates it when the configured IPAM binary is
// missing; restarts restore what running pods hold.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ManagedCluster } from '@azure/arm-containerservice';
import { type CniError, execPlugin } from '../../src/cni/exec.js';
import { installCni } from '../../src/cluster/install.js';
import { seedNodeRoot } from '../../src/cluster/nodefs/node-root.js';
import { nodeConfDir, nodeRootDir, nodesDir } from '../../src/cluster/nodefs/paths.js';
import { ipamConfig, nodeCniDataDir, resultAddress } from '../../src/cluster/kubelet/ipam-exec.js';
import { createSandboxes, type IpamHost } from '../../src/cluster/kubelet/ipam.js';
import { RangeSetPool, rangesOfIpam } from '../../src/cluster/kubelet/ipam-range.js';
import type { SandboxRequest } from '../../src/cluster/kubelet/sandbox.js';
import { Cidr } from '../../src/net/ip.js';
import { nodesPrefix, type NodeRecord } from '../../src/model/cluster-records.js';
import { aksClient, cluster, POLL } from '../containerservice/harness.js';
import { withServer, type Env } from '../network/harness.js';

const HOST_LOCAL = '/usr/lib/cni/host-local';
const HAVE_HOST_LOCAL = existsSync(HOST_LOCAL);

interface Made {
  host: IpamHost;
  nodes: NodeRecord[];
  name: string;
}

/** A cluster through ARM; its runtime is what the kubelet hands createSandboxes. */
async function makeCluster(
  env: Env,
  name: string,
  network: ManagedCluster['networkProfile'],
  pool: Record<string, unknown> = {},
  apiVersion?: string,
): Promise<Made> {
  const created = await aksClient(env.server, apiVersion).managedClusters.beginCreateOrUpdateAndWait('rg', name, cluster(network, pool), POLL);
  const runtime = (await env.server.clusterApis.ensure(created.id!))!.runtime;
  const nodes = env.server.store
    .list<NodeRecord>(nodesPrefix(runtime.record.id))
    .map((e) => e.value)
    .sort((a, b) => a.name.localeCompare(b.name));
  return { host: runtime, nodes, name };
}

/**
 * The same cluster seen from a home of its own: node conf dirs and IPAM state there, so the cluster's running
 * kubelet (which schedules coredns and friends once a node is Ready) shares no host-local state with the test.
 */
function isolated(made: Made, home: string): IpamHost {
  for (const n of made.nodes) {
    mkdirSync(nodeConfDir(home, 'rg', made.name, n.name), { recursive: true });
    // What the kubelet gives each node: /opt/cni/bin with AKS's reference plugins.
    seedNodeRoot(nodeRootDir(home, 'rg', made.name, n.name));
  }
  const runtime = made.host;
  return {
    home,
    get record() {
      return runtime.record;
    },
    nodeRecord: (n) => runtime.nodeRecord(n),
    kubelets: { confDir: (n) => nodeConfDir(home, 'rg', made.name, n) },
  };
}

let serial = 0;
function pod(node: string, extra: Partial<SandboxRequest> = {}): SandboxRequest {
  serial++;
  return { namespace: 'default', name: `p${serial}`, uid: randomUUID(), node, hostNetwork: false, sandboxId: randomBytes(32).toString('hex'), ...extra };
}

async function ok(p: Promise<{ ok: boolean; ip?: string; message?: string }>, what = 'setUp'): Promise<string> {
  const r = await p;
  assert.ok(r.ok, `${what}: expected an address, got: ${r.message}`);
  return r.ip!;
}

async function failure(p: Promise<{ ok: boolean; ip?: string; message?: string }>): Promise<string> {
  const r = await p;
  assert.ok(!r.ok, `expected a failure, got ${r.ip}`);
  return r.message!;
}

const prefix = (id: string) => `rpc error: code = Unknown desc = failed to setup network for sandbox "${id}": `;

/** The real host-local on an ipam section, with a data dir of its own: the reference for the emulated walk. */
function realHostLocal(ipam: Record<string, unknown>, dataDir: string) {
  const config = ipamConfig({ type: 'bridge', ipam: { type: 'host-local', ...ipam } }, { name: 'ref', cniVersion: '0.3.1' }, dataDir);
  const run = (command: 'ADD' | 'DEL', id: string) =>
    execPlugin({ command, type: 'host-local', path: ['/usr/lib/cni'], config, containerId: id, netns: '/nonexistent', ifName: 'eth0' });
  return {
    add: async (id: string): Promise<string> => {
      try {
        return resultAddress(await run('ADD', id))!;
      } catch (e) {
        return `error: ${(e as CniError).error.msg}`;
      }
    },
    del: (id: string) => run('DEL', id),
  };
}

/** One script of allocations and releases, on the emulated pool and the real host-local side by side. */
async function walkBoth(ipam: Record<string, unknown>, dataDir: string, script: Array<'add' | number>): Promise<{ ours: string[]; theirs: string[] }> {
  const pool = new RangeSetPool(rangesOfIpam(ipam, undefined)!);
  const real = realHostLocal(ipam, dataDir);
  const ours: string[] = [];
  const theirs: string[] = [];
  for (const step of script) {
    if (step === 'add') {
      const ip = pool.allocate();
      ours.push(ip ?? `error: ${pool.exhausted()}`);
      theirs.push(await real.add(`c${ours.length}`));
    } else {
      // Release what the step-th add (1-based) got.
      pool.release(ours[step - 1]!);
      await real.del(`c${step}`);
    }
  }
  return { ours, theirs };
}

test('pod addresses per network model', { timeout: 240_000 }, (t) =>
  withServer(async (env) => {
    await t.test(
      'the emulated host-local walks and fails exactly as the real /usr/lib/cni/host-local',
      { skip: !HAVE_HOST_LOCAL && 'no host-local' },
      async () => {
        const scratch = mkdtempSync(join(tmpdir(), 'aksemu-ipam-'));
        t.after(() => rmSync(scratch, { recursive: true, force: true }));
        // kubenet's form (legacy subnet, gateway .1): fill, release, wrap, exhaust, release again.
        const kubenet = await walkBoth({ subnet: '10.244.0.0/29' }, join(scratch, 'a'), ['add', 'add', 'add', 2, 'add', 'add', 'add', 'add', 1, 'add', 'add']);
        assert.deepEqual(kubenet.ours, kubenet.theirs);
        assert.deepEqual(kubenet.ours.slice(0, 6), ['10.244.0.2', '10.244.0.3', '10.244.0.4', '10.244.0.5', '10.244.0.6', '10.244.0.3']);
        assert.equal(kubenet.ours[6], 'error: failed to allocate for range 0: no IP addresses available in range set: 10.244.0.1-10.244.0.6');
        // A range set of two ranges with a start, an end and a gateway inside the first.
        const ranges = { ranges: [[{ subnet: '10.1.0.0/28', rangeStart: '10.1.0.2', rangeEnd: '10.1.0.5', gateway: '10.1.0.3' }, { subnet: '10.1.1.0/30' }]] };
        const two = await walkBoth(ranges, join(scratch, 'b'), ['add', 'add', 'add', 'add', 1, 'add', 'add', 3, 'add']);
        assert.deepEqual(two.ours, two.theirs);
        assert.ok(
          two.ours.includes('error: failed to allocate for range 0: no IP addresses available in range set: 10.1.0.2-10.1.0.5,10.1.1.1-10.1.1.2'),
          two.ours.join(' '),
        );
      },
    );

    await t.test('kubenet: ascending from .2 over the node /24, a released address only after the wrap, per node, hostNetwork = node IP, restore', async () => {
      const { host, nodes } = await makeCluster(env, 'kn', { networkPlugin: 'kubenet' }, { count: 2 });
      const sandboxes = createSandboxes(host);
      const [n0, n1] = nodes as [NodeRecord, NodeRecord];
      const cidr = Cidr.parse(n0.podCidr!);
      const at = (i: number) => cidr.addressAt(i).toString();
      assert.equal(cidr.prefix, 24);
      assert.equal(await ok(sandboxes.setUp(pod(n0.name, { hostNetwork: true }))), n0.ip);

      const held: SandboxRequest[] = [];
      const got: string[] = [];
      const add = async () => {
        const req = pod(n0.name);
        const r = await sandboxes.setUp(req);
        if (!r.ok) return r.message;
        held.push(req);
        got.push(r.ip);
        return undefined;
      };
      for (let i = 0; i < 10; i++) await add();
      await sandboxes.tearDown(held[2]!); // .4
      await sandboxes.tearDown(held[4]!); // .6
      let refused: string | undefined;
      while (refused === undefined) refused = await add();
      const want = [...Array.from({ length: 253 }, (_, i) => at(i + 2)), at(4), at(6)];
      assert.deepEqual(got, want, '.2 … .254 in order, then the two released ones after the wrap; never .0, .1 or .255');
      // The kubelet's FailedCreatePodSandBox event carries this after "Failed to create pod sandbox: ".
      const full = pod(n0.name);
      assert.equal(
        await failure(sandboxes.setUp(full)),
        `${prefix(full.sandboxId)}plugin type="bridge" failed (add): failed to allocate for range 0: no IP addresses available in range set: ${at(1)}-${at(254)}`,
      );
      assert.equal(refused.replace(/"[0-9a-f]{64}"/, `"${full.sandboxId}"`), await failure(sandboxes.setUp(full)));

      // Never one address for two pods; the same sandbox again is the same address; the other node has its own /24.
      const live = held.filter((_, i) => i !== 2 && i !== 4);
      assert.equal(new Set(await Promise.all(live.map((r) => ok(sandboxes.setUp(r))))).size, 253);
      assert.notEqual(n0.podCidr, n1.podCidr);
      assert.equal(await ok(sandboxes.setUp(pod(n1.name))), Cidr.parse(n1.podCidr!).addressAt(2).toString());

      // A new sandbox for the same pod: the old one's address goes back first (the kubelet killed it).
      const again = { ...live[0]!, sandboxId: randomBytes(32).toString('hex') };
      assert.equal(await ok(sandboxes.setUp(again)), at(2), 'the pool was full but for the address the old sandbox gave back');
      await sandboxes.tearDown(again);
      await sandboxes.tearDown(again); // idempotent
      assert.equal(await ok(sandboxes.setUp(pod(n0.name))), at(2));

      // A restart: running pods are restored; their addresses are never handed out again.
      const restarted = createSandboxes(host);
      const keep = [at(2), at(3), at(9)];
      for (const ip of keep) restarted.restore(pod(n0.name), ip);
      restarted.restore(pod(n0.name), at(3)); // a second claim on one address changes nothing
      assert.equal(await ok(restarted.setUp(pod(n0.name))), at(10), 'the walk resumes past the highest restored address');
      const rest: string[] = [];
      for (;;) {
        const r = await restarted.setUp(pod(n0.name));
        if (!r.ok) break;
        rest.push(r.ip);
      }
      assert.equal(rest.length, 253 - keep.length - 1);
      for (const ip of keep) assert.ok(!rest.includes(ip), `${ip} was restored as taken`);
    });

    await t.test('azure: the node NIC secondary IPs in order; exhaustion as azure-vnet says it', async () => {
      const { host, nodes } = await makeCluster(env, 'az', { networkPlugin: 'azure' }, { count: 1 });
      const sandboxes = createSandboxes(host);
      const n0 = nodes[0]!;
      const secondary = n0.secondaryIps!;
      assert.equal(secondary.length, 30);
      const got: string[] = [];
      const reqs: SandboxRequest[] = [];
      for (let i = 0; i < secondary.length; i++) {
        const req = pod(n0.name);
        reqs.push(req);
        got.push(await ok(sandboxes.setUp(req)));
      }
      assert.deepEqual(got, secondary);
      assert.ok(!got.includes(n0.ip));
      const req = pod(n0.name);
      assert.equal(
        await failure(sandboxes.setUp(req)),
        `${prefix(req.sandboxId)}plugin type="azure-vnet" failed (add): Failed to allocate pool: Failed to delegate: Failed to allocate address: No available addresses`,
      );
      await sandboxes.tearDown(reqs[7]!);
      assert.equal(await ok(sandboxes.setUp(pod(n0.name))), secondary[7]);
      assert.equal(await ok(sandboxes.setUp(pod(n0.name, { hostNetwork: true }))), n0.ip);
    });

    await t.test('azure overlay: the node podCIDR like kubenet; exhaustion in CNS words', async () => {
      const { host, nodes } = await makeCluster(
        env,
        'ov',
        { networkPlugin: 'azure', networkPluginMode: 'overlay', podCidr: '192.168.0.0/16' },
        { count: 1 },
        '2026-04-01',
      );
      const sandboxes = createSandboxes(host);
      const n0 = nodes[0]!;
      const cidr = Cidr.parse(n0.podCidr!);
      assert.ok(Cidr.parse('192.168.0.0/16').containsCidr(cidr));
      const got: string[] = [];
      for (let i = 0; i < 253; i++) got.push(await ok(sandboxes.setUp(pod(n0.name))));
      assert.equal(got[0], cidr.addressAt(2).toString());
      assert.equal(new Set(got).size, 253);
      const req = pod(n0.name, { name: 'web-1', namespace: 'shop' });
      const message = await failure(sandboxes.setUp(req));
      assert.ok(
        message.startsWith(
          `${prefix(req.sandboxId)}plugin type="azure-vnet" failed (add): IPAM Invoker Add failed with error: Failed to get IP address from CNS`,
        ),
        message,
      );
      assert.match(
        message,
        new RegExp(
          `PodInterfaceID ${req.sandboxId.slice(0, 8)}-eth0, InfraContainerID ${req.sandboxId}, OrchestratorContext \\{"PodName":"web-1","PodNamespace":"shop"\\}\\]$`,
        ),
      );
    });

    await t.test(
      'none: no CNI yet; the real host-local over a /29 (state under the node dir), exhaustion, release, restart',
      { skip: !HAVE_HOST_LOCAL && 'no host-local' },
      async () => {
        const made = await makeCluster(env, 'byo', { networkPlugin: 'none' }, { count: 1 });
        const scratch = mkdtempSync(join(tmpdir(), 'aksemu-ipam-'));
        t.after(() => rmSync(scratch, { recursive: true, force: true }));
        const home = join(scratch, 'home');
        const host = isolated(made, home);
        const { nodes, name } = made;
        const sandboxes = createSandboxes(host);
        const n0 = nodes[0]!;
        assert.equal(n0.podCidr, undefined);
        const first = pod(n0.name);
        assert.equal(await failure(sandboxes.setUp(first)), `${prefix(first.sandboxId)}cni plugin not initialized`);
        assert.equal(await ok(sandboxes.setUp(pod(n0.name, { hostNetwork: true }))), n0.ip, 'host-network pods need no CNI');

        const network = `byo-${randomBytes(4).toString('hex')}`;
        const conflist = join(scratch, '10-tiny.conflist');
        writeFileSync(
          conflist,
          JSON.stringify({
            cniVersion: '1.0.0',
            name: network,
            plugins: [
              { type: 'bridge', bridge: 'cni0', isGateway: true, ipam: { type: 'host-local', ranges: [[{ subnet: '10.244.0.0/29' }]] } },
              { type: 'portmap', capabilities: { portMappings: true } },
            ],
          }),
        );
        installCni({ home: home, resourceGroup: 'rg', cluster: name, conflistFile: conflist });

        const reqs: SandboxRequest[] = [];
        const ips: string[] = [];
        for (let i = 0; i < 5; i++) {
          const req = pod(n0.name);
          reqs.push(req);
          ips.push(await ok(sandboxes.setUp(req), 'fill'));
        }
        assert.deepEqual(ips, ['10.244.0.2', '10.244.0.3', '10.244.0.4', '10.244.0.5', '10.244.0.6']);
        const dataDir = join(nodeCniDataDir(join(nodesDir(home, 'rg', name), n0.name)), network);
        assert.ok(dataDir.startsWith(home));
        assert.equal(
          readFileSync(join(dataDir, '10.244.0.3'), 'utf8').split(/\r?\n/)[0],
          reqs[1]!.sandboxId,
          'host-local recorded the sandbox as the container',
        );
        assert.ok(!existsSync(join('/var/lib/cni/networks', network)), 'nothing under the machine /var/lib/cni');

        const full = pod(n0.name);
        assert.equal(
          await failure(sandboxes.setUp(full)),
          `${prefix(full.sandboxId)}plugin type="bridge" failed (add): failed to allocate for range 0: no IP addresses available in range set: 10.244.0.1-10.244.0.6`,
        );

        await sandboxes.tearDown(reqs[1]!);
        assert.ok(!existsSync(join(dataDir, '10.244.0.3')), 'DEL released it in host-local');
        await sandboxes.tearDown(reqs[1]!);
        assert.equal(await ok(sandboxes.setUp(pod(n0.name)), 'after release'), '10.244.0.3');

        // Restart: host-local kept its files; restore maps each pod to the container host-local knows, so a
        // teardown under a new sandbox id still releases the right reservation.
        const restarted = createSandboxes(host);
        restarted.restore({ ...reqs[0]!, sandboxId: randomBytes(32).toString('hex') }, '10.244.0.2');
        await restarted.tearDown({ ...reqs[0]!, sandboxId: randomBytes(32).toString('hex') });
        assert.ok(!existsSync(join(dataDir, '10.244.0.2')));
        assert.equal(await ok(restarted.setUp(pod(n0.name)), 'after restart'), '10.244.0.2');
        assert.ok(!(await restarted.setUp(pod(n0.name))).ok, 'all five taken again');
      },
    );

    await t.test(
      'none: IPAM binary missing → host-local emulated over its ranges; --plugin-dir makes it real; no ranges → the runtime error',
      { skip: !HAVE_HOST_LOCAL && 'no host-local' },
      async () => {
        const made = await makeCluster(env, 'byo2', { networkPlugin: 'none' }, { count: 1 });
        const scratch = mkdtempSync(join(tmpdir(), 'aksemu-ipam-'));
        t.after(() => rmSync(scratch, { recursive: true, force: true }));
        const home = join(scratch, 'home');
        const host = isolated(made, home);
        const { nodes, name } = made;
        const n0 = nodes[0]!;
        const network = `k8s-pod-network-${randomBytes(4).toString('hex')}`;
        const conflist = join(scratch, '10-vendor.conflist');
        writeFileSync(
          conflist,
          JSON.stringify({
            name: network,
            cniVersion: '0.3.1',
            plugins: [
              { type: 'vendor-cni', ipam: { type: 'vendor-ipam', ranges: [[{ subnet: '10.10.0.0/28', rangeStart: '10.10.0.5', rangeEnd: '10.10.0.7' }]] } },
            ],
          }),
        );
        installCni({ home: home, resourceGroup: 'rg', cluster: name, conflistFile: conflist });
        const dataDir = join(nodeCniDataDir(join(nodesDir(home, 'rg', name), n0.name)), network);

        const emulated = createSandboxes(host);
        const got = [await ok(emulated.setUp(pod(n0.name))), await ok(emulated.setUp(pod(n0.name))), await ok(emulated.setUp(pod(n0.name)))];
        assert.deepEqual(got, ['10.10.0.5', '10.10.0.6', '10.10.0.7']);
        const req = pod(n0.name);
        assert.equal(
          await failure(emulated.setUp(req)),
          `${prefix(req.sandboxId)}plugin type="vendor-cni" failed (add): failed to allocate for range 0: no IP addresses available in range set: 10.10.0.5-10.10.0.7`,
        );
        assert.ok(!existsSync(dataDir), 'emulated: no plugin ran');

        // The same network with a plugin dir that has vendor-ipam (host-local under that name; not a plugin aksemu provides, so its own IPAM runs): the real binary runs.
        const pluginDir = join(scratch, 'bin');
        mkdirSync(pluginDir);
        symlinkSync(HOST_LOCAL, join(pluginDir, 'vendor-ipam'));
        installCni({ home: home, resourceGroup: 'rg', cluster: name, conflistFile: conflist, pluginDir });
        const real = createSandboxes(host);
        const r1 = pod(n0.name);
        assert.equal(await ok(real.setUp(r1)), '10.10.0.5');
        assert.equal(readFileSync(join(dataDir, '10.10.0.5'), 'utf8').split(/\r?\n/)[0], r1.sandboxId);

        // flannel's conflist has no ipam section and a none node has no podCIDR: the runtime's own error.
        const flannel = join(scratch, '05-flannel.conflist');
        writeFileSync(
          flannel,
          JSON.stringify({
            name: 'cbr0',
            cniVersion: '0.3.1',
            plugins: [
              { type: 'flannel', delegate: { hairpinMode: true, isDefaultGateway: true } },
              { type: 'portmap', capabilities: { portMappings: true } },
            ],
          }),
        );
        installCni({ home: home, resourceGroup: 'rg', cluster: name, conflistFile: flannel });
        const f = pod(n0.name);
        assert.equal(
          await failure(real.setUp(f)),
          `${prefix(f.sandboxId)}plugin type="flannel" failed (add): failed to find plugin "flannel" in path [/opt/cni/bin]`,
        );
      },
    );
  }),
);
