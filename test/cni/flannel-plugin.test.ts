// aksemu's flannel CNI plugin (src/cni/plugins/flannel.ts) standalone, through the CNI runtime (src/cni/runtime.ts)
// as the kubelet runs it: installed into a node's /opt/cni/bin as its wrapper, the reference plugins of /usr/lib/cni
// beside it, kube-flannel.yml's cni-conf.json as the network. Without subnet.env it fails as the real plugin does;
// with one it renders the bridge delegate as flannel-io/cni-plugin does, saves it under the node's
// /var/lib/cni/flannel and gets the address from host-local in the node's /var/lib/cni/networks (address only: no
// data plane). As root, the whole delegation runs in network namespaces made for this test (deleted by name).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CniError } from '../../src/cni/exec.js';
import { installPlugin } from '../../src/cni/plugins/install.js';
import { CniRuntime, parseNetworkList, type NetworkList } from '../../src/cni/runtime.js';
import { deleteNetnsNamed } from '../dataplane/harness.js';

const SYSTEM_PLUGINS = '/usr/lib/cni';
const haveReference = existsSync(join(SYSTEM_PLUGINS, 'host-local'));
const skipNoPlugins = haveReference ? false : `${SYSTEM_PLUGINS}/host-local is missing (apt-get install containernetworking-plugins)`;
const skipNetns = process.getuid?.() !== 0 ? 'needs root (network namespaces)' : skipNoPlugins;

/** kube-flannel.yml v0.28.9's cni-conf.json (the ConfigMap the DaemonSet's install-cni copies). */
const CNI_CONF = {
  name: 'cbr0',
  cniVersion: '0.3.1',
  plugins: [
    { type: 'flannel', delegate: { hairpinMode: true, isDefaultGateway: true } },
    { type: 'portmap', capabilities: { portMappings: true } },
  ],
};
/** What flanneld writes for a node whose podCIDR is 10.244.1.0/24 (vxlan, --ip-masq). */
const SUBNET_ENV = 'FLANNEL_NETWORK=10.244.0.0/16\nFLANNEL_SUBNET=10.244.1.1/24\nFLANNEL_MTU=1450\nFLANNEL_IPMASQ=true\n';

/** The network as the kubelet runs it without a data plane: the main plugin alone. */
function mainOnly(): NetworkList {
  return parseNetworkList('10-flannel.conflist', JSON.stringify({ ...CNI_CONF, plugins: [CNI_CONF.plugins[0]] }));
}

function node(work: string, name: string): { root: string; bin: string } {
  const root = join(work, name);
  const bin = join(root, 'opt', 'cni', 'bin');
  mkdirSync(bin, { recursive: true });
  for (const p of readdirSync(SYSTEM_PLUGINS)) symlinkSync(join(SYSTEM_PLUGINS, p), join(bin, p));
  installPlugin(root, 'flannel');
  return { root, bin };
}

const ADDRESS_ONLY = { AKSEMU_ADDRESS_ONLY: 'true' };

describe('flannel CNI plugin, address only', { skip: skipNoPlugins }, () => {
  let work: string;
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'aksemu-flannel-cni-'));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('without subnet.env ADD fails with the real plugin words, code 999', async () => {
    const n = node(work, 'n0');
    const cni = new CniRuntime({ cacheDir: join(work, 'cache0'), pluginDirs: [n.bin] });
    await assert.rejects(cni.add(mainOnly(), { containerId: 'c0', ifName: 'eth0', args: ADDRESS_ONLY }), (e: unknown) => {
      assert.ok(e instanceof CniError);
      assert.equal(e.error.code, 999);
      assert.equal(
        e.error.msg,
        "failed to load flannel 'subnet.env' file: open /run/flannel/subnet.env: no such file or directory. Check the flannel pod log for this node.",
      );
      return true;
    });
    // An incomplete file names what is missing, as loadFlannelSubnetEnv does.
    mkdirSync(join(n.root, 'run', 'flannel'), { recursive: true });
    writeFileSync(join(n.root, 'run', 'flannel', 'subnet.env'), 'FLANNEL_NETWORK=10.244.0.0/16\n');
    await assert.rejects(cni.add(mainOnly(), { containerId: 'c0', ifName: 'eth0', args: ADDRESS_ONLY }), (e: unknown) => {
      assert.ok(e instanceof CniError);
      assert.match(
        e.error.msg,
        /\/run\/flannel\/subnet\.env is missing FLANNEL_SUBNET, FLANNEL_IPV6_SUBNET, FLANNEL_MTU, FLANNEL_IPMASQ\. Check the flannel pod log/,
      );
      return true;
    });
  });

  test('ADD renders, saves and delegates to host-local in the node; DEL releases and forgets', async () => {
    const n = node(work, 'n1');
    mkdirSync(join(n.root, 'run', 'flannel'), { recursive: true });
    writeFileSync(join(n.root, 'run', 'flannel', 'subnet.env'), SUBNET_ENV);
    const cni = new CniRuntime({ cacheDir: join(work, 'cache1'), pluginDirs: [n.bin] });
    const net = mainOnly();
    const r1 = await cni.add(net, { containerId: 'pod1', ifName: 'eth0', args: ADDRESS_ONLY });
    assert.equal(r1['cniVersion'], '0.3.1');
    assert.deepEqual(r1['ips'], [{ version: '4', address: '10.244.1.2/24', gateway: '10.244.1.1' }]);
    assert.deepEqual(r1['routes'], [{ dst: '10.244.0.0/16' }]);
    const r2 = await cni.add(net, { containerId: 'pod2', ifName: 'eth0', args: ADDRESS_ONLY });
    assert.equal((r2['ips'] as Array<{ address: string }>)[0]!.address, '10.244.1.3/24');

    // The delegate as flannel saves it (keys sorted as Go writes a map), 0600 in a 0700 dir.
    const saved = join(n.root, 'var', 'lib', 'cni', 'flannel', 'pod1');
    assert.equal(
      readFileSync(saved, 'utf8'),
      '{"cniVersion":"0.3.1","hairpinMode":true,"ipMasq":false,"ipam":{"ranges":[[{"subnet":"10.244.1.0/24"}]],"routes":[{"dst":"10.244.0.0/16"}],"type":"host-local"},"isDefaultGateway":true,"isGateway":true,"mtu":1450,"name":"cbr0","type":"bridge"}',
    );
    assert.equal(statSync(saved).mode & 0o777, 0o600);
    assert.equal(statSync(join(n.root, 'var', 'lib', 'cni', 'flannel')).mode & 0o777, 0o700);
    // host-local kept its leases in the node, never in the machine's /var/lib/cni.
    const leases = join(n.root, 'var', 'lib', 'cni', 'networks', 'cbr0');
    assert.equal(readFileSync(join(leases, '10.244.1.2'), 'utf8').split(/\r?\n/)[0], 'pod1');

    await cni.del(net, { containerId: 'pod1', ifName: 'eth0', args: ADDRESS_ONLY });
    assert.equal(existsSync(join(leases, '10.244.1.2')), false);
    assert.equal(existsSync(saved), false);
    // A second DEL finds nothing saved: nothing to do.
    await cni.del(net, { containerId: 'pod1', ifName: 'eth0', args: ADDRESS_ONLY });
    // The released address is handed out again after the others (host-local goes round its range).
    const r3 = await cni.add(net, { containerId: 'pod3', ifName: 'eth0', args: ADDRESS_ONLY });
    assert.equal((r3['ips'] as Array<{ address: string }>)[0]!.address, '10.244.1.4/24');
  });

  test('a delegate rule the real plugin enforces, and a missing delegate binary', async () => {
    const n = node(work, 'n2');
    mkdirSync(join(n.root, 'run', 'flannel'), { recursive: true });
    writeFileSync(join(n.root, 'run', 'flannel', 'subnet.env'), SUBNET_ENV);
    const cni = new CniRuntime({ cacheDir: join(work, 'cache2'), pluginDirs: [n.bin] });
    const named = parseNetworkList('x.conflist', JSON.stringify({ ...CNI_CONF, plugins: [{ type: 'flannel', delegate: { name: 'x' } }] }));
    await assert.rejects(
      cni.add(named, { containerId: 'c1', ifName: 'eth0', args: ADDRESS_ONLY }),
      /'delegate' dictionary must not have 'name' field, it'll be set by flannel/,
    );
    const other = parseNetworkList(
      'y.conflist',
      JSON.stringify({ ...CNI_CONF, plugins: [{ type: 'flannel', delegate: { type: 'ptp' }, ipam: { type: 'nope' } }] }),
    );
    await assert.rejects(cni.add(other, { containerId: 'c2', ifName: 'eth0', args: ADDRESS_ONLY }), (e: unknown) => {
      assert.ok(e instanceof CniError);
      assert.equal(e.error.msg, `failed to delegate add: failed to find plugin "nope" in path [${n.bin}]`);
      return true;
    });
  });
});

describe('flannel CNI plugin in network namespaces (bridge delegate)', { skip: skipNetns }, () => {
  const prefix = `akfl${randomBytes(2).toString('hex')}`;
  const NODE = `${prefix}-node`;
  const POD = `${prefix}-pod`;
  const created: string[] = [];
  let work: string;
  const sh = (file: string, args: string[]): string => execFileSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

  before(() => {
    work = mkdtempSync(join(tmpdir(), 'aksemu-flannel-netns-'));
    for (const ns of [NODE, POD]) {
      sh('ip', ['netns', 'add', ns]);
      created.push(ns);
      sh('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
    }
  });
  after(() => {
    deleteNetnsNamed(created);
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test('the full conflist wires the pod to cni0 with the node subnet, and DEL undoes it', async () => {
    const n = node(work, 'n');
    mkdirSync(join(n.root, 'run', 'flannel'), { recursive: true });
    writeFileSync(join(n.root, 'run', 'flannel', 'subnet.env'), SUBNET_ENV);
    const cni = new CniRuntime({ cacheDir: join(work, 'cache'), pluginDirs: [n.bin] });
    const net = parseNetworkList('10-flannel.conflist', JSON.stringify(CNI_CONF));
    const att = { containerId: 'podnet1', ifName: 'eth0', netns: `/run/netns/${POD}`, hostNetns: `/run/netns/${NODE}` };
    const result = await cni.add(net, att);
    assert.equal((result['ips'] as Array<{ address: string }>)[0]!.address, '10.244.1.2/24');
    const podAddr = JSON.parse(sh('ip', ['-n', POD, '-j', 'addr', 'show', 'eth0']))[0];
    assert.equal(podAddr.mtu, 1450);
    assert.ok(podAddr.addr_info.some((a: { local: string }) => a.local === '10.244.1.2'));
    const bridge = JSON.parse(sh('ip', ['-n', NODE, '-j', 'addr', 'show', 'cni0']))[0];
    assert.ok(bridge.addr_info.some((a: { local: string; prefixlen: number }) => a.local === '10.244.1.1' && a.prefixlen === 24));
    // isDefaultGateway: the pod's default route goes through the bridge; the flannel network is routed too.
    const routes = sh('ip', ['-n', POD, 'route']);
    assert.match(routes, /default via 10\.244\.1\.1 dev eth0/);
    assert.match(routes, /10\.244\.0\.0\/16 via 10\.244\.1\.1 dev eth0/);
    await cni.del(net, att);
    assert.equal(
      JSON.parse(sh('ip', ['-n', POD, '-j', 'link', 'show']) || '[]').some((l: { ifname: string }) => l.ifname === 'eth0'),
      false,
    );
    assert.equal(existsSync(join(n.root, 'var', 'lib', 'cni', 'networks', 'cbr0', '10.244.1.2')), false);
  });
});
