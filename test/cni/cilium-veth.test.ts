// cilium-cni's pod wiring (src/cni/plugins/cilium-veth.ts) in real namespaces (root): run in a "node" namespace,
// it gives a "pod" namespace eth0 with the /32 and the default route via the node's router IP, the host end
// lxc<hash> answers ARP for it (proxy ARP) and routes the /32 back; the pod reaches the router IP; unwiring removes
// the pair.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { hostIfName } from '../../src/cni/plugins/cilium-veth.js';
import { skipReason, testPrefix } from '../dataplane/harness.js';

const prefix = testPrefix();
const skip = await skipReason(prefix);
const NODE_NS = `${prefix}cn`;
const POD_NS = `${prefix}cp`;
const MODULE = fileURLToPath(new URL('../../src/cni/plugins/cilium-veth.js', import.meta.url));
const WHOAMI = fileURLToPath(new URL('../../src/dataplane/netns/whoami.js', import.meta.url));
const ROUTER = '192.168.7.1';
const POD_IP = '192.168.7.23';

const sh = (args: string[]) => execFileSync(args[0]!, args.slice(1), { encoding: 'utf8', timeout: 20_000 });
const inNode = (args: string[]) => sh(['ip', 'netns', 'exec', NODE_NS, ...args]);
const inPod = (args: string[]) => sh(['ip', 'netns', 'exec', POD_NS, ...args]);

/** Runs one export of cilium-veth.ts inside the node namespace, as the plugin runs on its node. */
function callInNode(fn: string, arg: unknown): void {
  const code = `const m = await import(${JSON.stringify(MODULE)}); await m.${fn}(${JSON.stringify(arg)});`;
  inNode([process.execPath, '--input-type=module', '-e', code]);
}

describe('cilium-cni routed veth', { skip }, () => {
  before(() => {
    sh(['ip', 'netns', 'add', NODE_NS]);
    sh(['ip', 'netns', 'add', POD_NS]);
    // The router IP lives on the node (cilium_host; the overlay device here); the node's lo holds it in this test.
    inNode(['ip', 'addr', 'add', `${ROUTER}/32`, 'dev', 'lo']);
    inNode(['ip', 'link', 'set', 'lo', 'up']);
  });

  after(() => {
    for (const ns of [POD_NS, NODE_NS]) execFileSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
  });

  it('wires the pod: /32 on eth0, routes via the router IP, reachable from the pod', async () => {
    callInNode('wireRoutedVeth', { containerId: 'abc123', netns: `/var/run/netns/${POD_NS}`, ifName: 'eth0', ip: POD_IP, gateway: ROUTER, mtu: 1450 });
    const addrs = JSON.parse(inPod(['ip', '-j', 'addr', 'show', 'eth0']))[0];
    assert.equal(addrs.mtu, 1450);
    assert.deepEqual(
      addrs.addr_info.filter((a: any) => a.family === 'inet').map((a: any) => `${a.local}/${a.prefixlen}`),
      [`${POD_IP}/32`],
    );
    assert.match(inPod(['ip', 'route']), new RegExp(`^default via ${ROUTER.replaceAll('.', '\\.')} dev eth0`, 'm'));
    assert.match(inNode(['ip', 'route']), new RegExp(`^${POD_IP.replaceAll('.', '\\.')} dev ${hostIfName('abc123')}`, 'm'));
    // A TCP probe to the router IP from the pod: the node sees the pod's address.
    const server = spawn('ip', ['netns', 'exec', NODE_NS, process.execPath, WHOAMI, 'serve', '8080', '5000']);
    await new Promise<void>((resolve, reject) => {
      server.stdout.on('data', (d: Buffer) => d.toString().includes('listening') && resolve());
      server.on('exit', () => reject(new Error('whoami serve exited')));
    });
    const answer = JSON.parse(inPod([process.execPath, WHOAMI, 'ask', ROUTER, '8080', '3000']));
    server.kill();
    assert.deepEqual(answer, { connected: true, seen: POD_IP });
  });

  it('unwiring removes the pair', () => {
    callInNode('unwireRoutedVeth', 'abc123');
    assert.doesNotMatch(inNode(['ip', 'link']), new RegExp(hostIfName('abc123')));
    assert.doesNotMatch(inPod(['ip', 'link']), /eth0/);
  });
});
