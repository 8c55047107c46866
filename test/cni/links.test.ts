// The links aksemu's CNI plugins wire pods with (src/cni/plugins/links.ts), on real namespaces as root: a "node"
// and two "pod" namespaces of this test's own prefix, removed by name at the end. The wiring runs as a plugin
// runs, in a child process nsenter'd into the node's namespace, so nothing can reach the test's own (the
// machine's) network; the root namespace must be unchanged afterwards. Delegation runs the real host-local.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CALICO_GATEWAY, CALICO_HOST_MAC, cniResult, delegate, hostVethName, routedVethMacs, routedVethResult } from '../../src/cni/plugins/links.js';
import { PluginError, type PluginRequest } from '../../src/cni/plugins/plugin.js';
import { listNetns } from '../../src/dataplane/netns/exec.js';
import { rootSnapshot, skipReason, testPrefix } from '../dataplane/harness.js';

const prefix = testPrefix();
const PLUGINS = '/usr/lib/cni';
const LINKS = fileURLToPath(new URL('../../src/cni/plugins/links.js', import.meta.url));
const skip = (await skipReason(prefix)) || (existsSync(join(PLUGINS, 'host-local')) ? false : `the CNI plugins are not installed in ${PLUGINS}`);

const NODE = `${prefix}-node`;
const POD = `${prefix}-pod`;
const POD2 = `${prefix}-pod2`;
const path = (ns: string): string => `/run/netns/${ns}`;
const inNs = (ns: string, args: string[]): string =>
  execFileSync('nsenter', [`--net=${path(ns)}`, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Runs one links.ts function in a child process inside the node's namespace, as a plugin does. */
function inNode(fn: string, ...args: unknown[]): Promise<{ ok: boolean; value?: unknown; error?: { code?: number; message: string; details?: string } }> {
  const script = `const m = await import(${JSON.stringify(LINKS)});
try { console.log(JSON.stringify({ ok: true, value: (await m[${JSON.stringify(fn)}](...${JSON.stringify(args)})) ?? null })); }
catch (e) { console.log(JSON.stringify({ ok: false, error: { code: e.code, message: e.message, details: e.details } })); }`;
  return new Promise((resolve, reject) => {
    const child = spawn('nsenter', [`--net=${path(NODE)}`, process.execPath, '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.on('error', reject);
    child.on('close', () => resolve(JSON.parse(out)));
  });
}

describe('links for aksemu CNI plugins: the routed veth, delegation, results', { skip }, () => {
  let root: Record<string, string>;
  const nodeRoot = mkdtempSync(join(tmpdir(), 'aksemu-links-'));
  const hostIf = hostVethName('cali', 'default.web-0');
  const veth = { netns: path(POD), ifName: 'eth0', hostIf, ip: '10.244.7.5', gateway: CALICO_GATEWAY, hostMac: CALICO_HOST_MAC };

  before(() => {
    root = rootSnapshot();
    for (const ns of [NODE, POD, POD2]) execFileSync('ip', ['netns', 'add', ns]);
    // The node needs an address of its own to talk to the pod from (no eth0 here).
    inNs(NODE, ['ip', 'addr', 'add', '10.224.0.4/32', 'dev', 'lo']);
    inNs(NODE, ['ip', 'link', 'set', 'lo', 'up']);
  });
  after(() => {
    for (const ns of [NODE, POD, POD2]) if (existsSync(path(ns))) execFileSync('ip', ['netns', 'del', ns]);
    rmSync(nodeRoot, { recursive: true, force: true });
  });

  it("names the host end as Calico does: cali + sha1('<namespace>.<pod>')[:11]", () => {
    // sha1("default.web-0") = 6b2b5f1a1f4…; 15 characters in all (IFNAMSIZ).
    assert.match(hostIf, /^cali[0-9a-f]{11}$/);
    assert.equal(hostIf, `cali${execFileSync('sh', ['-c', 'printf %s default.web-0 | sha1sum'], { encoding: 'utf8' }).slice(0, 11)}`);
  });

  it('wires a routed veth: pod IP /32, a link route to 169.254.1.1 and default via it, proxy ARP and a /32 route on the node', async () => {
    const r = await inNode('addRoutedVeth', veth);
    assert.deepEqual(r, { ok: true, value: routedVethMacs(veth) });
    const { podMac } = routedVethMacs(veth);
    assert.match(inNs(POD, ['ip', '-o', '-4', 'addr', 'show', 'dev', 'eth0']), /inet 10\.244\.7\.5\/32 /);
    assert.equal(inNs(POD, ['ip', 'route', 'show']), `default via ${CALICO_GATEWAY} dev eth0 \n${CALICO_GATEWAY} dev eth0 scope link \n`);
    assert.match(inNs(POD, ['ip', 'neigh', 'show', 'dev', 'eth0']), /^169\.254\.1\.1 lladdr ee:ee:ee:ee:ee:ee PERMANENT/m);
    assert.match(inNs(POD, ['ip', '-o', 'link', 'show', 'dev', 'eth0']), new RegExp(`link/ether ${podMac} `));
    assert.equal(inNs(NODE, ['ip', 'route', 'show', 'dev', hostIf]), '10.244.7.5 scope link \n');
    assert.match(inNs(NODE, ['ip', 'neigh', 'show', 'dev', hostIf]), new RegExp(`^10\\.244\\.7\\.5 lladdr ${podMac} PERMANENT`, 'm'));
    assert.equal(
      inNs(NODE, ['sysctl', '-n', `net.ipv4.conf.${hostIf}.proxy_arp`, `net.ipv4.neigh.${hostIf}.proxy_delay`, `net.ipv4.conf.${hostIf}.forwarding`]),
      '1\n0\n1\n',
    );
  });

  it('the node reaches the pod over it, and the pod sees the node address', async () => {
    const server = `require('net').createServer((s) => s.end(s.remoteAddress)).listen(8080, '10.244.7.5', () => console.log('up'))`;
    const listener = spawn('nsenter', [`--net=${path(POD)}`, process.execPath, '-e', server], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise((resolve) => listener.stdout.once('data', resolve));
      const client = `const s = require('net').connect(8080, '10.244.7.5'); let d = ''; s.on('data', (b) => (d += b)); s.on('end', () => console.log(d)); s.on('error', (e) => console.log(e.code)); setTimeout(() => process.exit(1), 3000).unref()`;
      assert.equal(inNs(NODE, [process.execPath, '-e', client]).trim(), '10.224.0.4');
    } finally {
      listener.kill('SIGKILL');
    }
  });

  it('ADD again for the same host end (a new sandbox of the pod) replaces the old veth', async () => {
    assert.deepEqual((await inNode('addRoutedVeth', { ...veth, netns: path(POD2), ip: '10.244.7.6' })).ok, true);
    assert.match(inNs(POD2, ['ip', '-o', '-4', 'addr', 'show', 'dev', 'eth0']), /inet 10\.244\.7\.6\/32 /);
    assert.equal(inNs(POD, ['ip', '-o', 'link', 'show']).includes('eth0'), false, 'the old pod end went with its host end');
    assert.equal(inNs(NODE, ['ip', 'route', 'show', 'dev', hostIf]), '10.244.7.6 scope link \n');
  });

  it('refuses what would not fit a batch line, before running anything', async () => {
    const bad = await inNode('addRoutedVeth', { ...veth, ifName: 'eth0\nlink del lo' });
    assert.deepEqual(bad, { ok: false, error: { code: 4, message: 'invalid CNI_IFNAME "eth0\nlink del lo"' } });
    assert.equal((await inNode('addRoutedVeth', { ...veth, ip: '10.244.7.300' })).error?.message, 'invalid pod address "10.244.7.300"');
  });

  it('DEL removes the host end (and the pod end with it); again is a no-op', async () => {
    assert.deepEqual(await inNode('delRoutedVeth', hostIf), { ok: true, value: null });
    assert.deepEqual(await inNode('delRoutedVeth', hostIf), { ok: true, value: null });
    assert.equal(inNs(NODE, ['ip', '-o', 'link', 'show']).includes(hostIf), false);
    assert.equal(inNs(POD2, ['ip', '-o', 'link', 'show']).includes('eth0'), false);
  });

  it("delegates to a plugin of CNI_PATH with the caller's environment; host-local keeps its state under the node root", async () => {
    const req: PluginRequest = {
      command: 'ADD',
      containerId: 'c0ffee',
      netns: path(POD),
      ifName: 'eth0',
      args: { IgnoreUnknown: '1', K8S_POD_NAMESPACE: 'default', K8S_POD_NAME: 'web-0' },
      path: [PLUGINS],
      config: {},
      nodeRoot,
      addressOnly: false,
    };
    const conf = {
      cniVersion: '1.0.0',
      name: 'cbr0',
      type: 'host-local',
      ipam: { type: 'host-local', ranges: [[{ subnet: '10.244.9.0/24' }]], dataDir: '/var/lib/cni/networks' },
    };
    const result = await delegate(req, 'host-local', conf);
    assert.deepEqual(result, { cniVersion: '1.0.0', ips: [{ address: '10.244.9.2/24', gateway: '10.244.9.1' }], dns: {} });
    const dir = join(nodeRoot, 'var', 'lib', 'cni', 'networks', 'cbr0');
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.startsWith('10.')),
      ['10.244.9.2'],
    );
    await delegate(req, 'host-local', conf, 'DEL');
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.startsWith('10.')),
      [],
    );
    await assert.rejects(
      delegate(req, 'flannel-nope', conf),
      (e: unknown) => e instanceof PluginError && e.code === 7 && e.message === `failed to find plugin "flannel-nope" in path [${PLUGINS}]`,
    );
  });

  it('results: interfaces with the sandbox, IPs with their interface index, routes, dns; before 1.0.0 IPs carry a version', () => {
    const { hostMac, podMac } = routedVethMacs(veth);
    assert.deepEqual(routedVethResult('1.0.0', veth), {
      cniVersion: '1.0.0',
      interfaces: [
        { name: hostIf, mac: hostMac },
        { name: 'eth0', mac: podMac, sandbox: path(POD) },
      ],
      ips: [{ address: '10.244.7.5/32', interface: 1 }],
      routes: [{ dst: '0.0.0.0/0', gw: CALICO_GATEWAY }],
      dns: {},
    });
    assert.deepEqual(cniResult('0.3.1', { ips: [{ address: '10.244.7.5/32' }] }), {
      cniVersion: '0.3.1',
      ips: [{ version: '4', address: '10.244.7.5/32' }],
      dns: {},
    });
  });

  it('leaves no namespace of its prefix, and the root namespace unchanged', () => {
    for (const ns of [NODE, POD, POD2]) execFileSync('ip', ['netns', 'del', ns]);
    assert.deepEqual(
      listNetns((n) => n.startsWith(`${prefix}-`)),
      [],
    );
    assert.deepEqual(rootSnapshot(), root);
  });
});
