// The routed veth aksemu's calico plugin wires a pod with (src/cni/plugins/calico-veth.ts), in network
// namespaces made for this run (akcal<4 hex>-node, -p1, -p2): run inside the "node" namespace as the runtime
// runs plugins, it leaves cali<11 hex> on the node (MAC ee:ee:ee:ee:ee:ee, proxy ARP, a /32 route) and eth0 in
// the pod (the /32, 169.254.1.1 as gateway); the two pods ping each other through the node. Unwiring removes the
// link and its route. Every namespace is deleted by name afterwards.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { vethName } from '../../src/cni/plugins/calico-veth.js';

const skip = process.getuid?.() !== 0 ? 'needs root (network namespaces)' : false;
const prefix = `akcal${randomBytes(2).toString('hex')}`;
const NODE = `${prefix}-node`;
const PODS = [`${prefix}-p1`, `${prefix}-p2`];
const MODULE = fileURLToPath(new URL('../../src/cni/plugins/calico-veth.js', import.meta.url));

const sh = (file: string, args: string[]) => execFileSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Runs one of the module's functions in the node's namespace (a child process, as a plugin is). */
function inNode(call: string): string {
  const script = `import * as m from ${JSON.stringify(MODULE)}; const r = await ${call}; process.stdout.write(JSON.stringify(r ?? null));`;
  return sh('ip', ['netns', 'exec', NODE, process.execPath, '--input-type=module', '-e', script]);
}

describe('calico routed veth in network namespaces', { skip }, () => {
  before(() => {
    for (const ns of [NODE, ...PODS]) {
      sh('ip', ['netns', 'add', ns]);
      sh('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
    }
    sh('ip', ['netns', 'exec', NODE, 'sysctl', '-q', '-w', 'net.ipv4.ip_forward=1']);
    // A node has a default route (its NIC): proxy ARP answers for 169.254.1.1 only when the node can route it.
    sh('ip', ['-n', NODE, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'eth0peer']);
    sh('ip', ['-n', NODE, 'link', 'set', 'eth0peer', 'up']);
    sh('ip', ['-n', NODE, 'link', 'set', 'eth0', 'up']);
    sh('ip', ['-n', NODE, 'route', 'add', 'default', 'dev', 'eth0']);
  });

  after(() => {
    for (const ns of [NODE, ...PODS]) {
      try {
        sh('ip', ['netns', 'del', ns]);
      } catch {
        // already gone
      }
    }
  });

  test('two pods wired: cali veths on the node, /32s in the pods, ping through the node; unwire removes them', () => {
    const ips = ['192.168.7.1', '192.168.7.2'];
    const names = PODS.map((_, i) => vethName('default', `web-${i}`));
    for (const [i, ns] of PODS.entries()) {
      const mac = JSON.parse(inNode(`m.wireRoutedVeth({ netns: '/run/netns/${ns}', hostVeth: '${names[i]}', ifName: 'eth0', ip: '${ips[i]}', mtu: 1450 })`));
      assert.match(mac, /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/);
    }
    for (const name of names) assert.match(name, /^cali[0-9a-f]{11}$/);
    const hostLink = JSON.parse(sh('ip', ['-n', NODE, '-j', 'link', 'show', 'dev', names[0]!]))[0];
    assert.equal(hostLink.address, 'ee:ee:ee:ee:ee:ee');
    assert.equal(hostLink.mtu, 1450);
    assert.equal(sh('ip', ['netns', 'exec', NODE, 'cat', `/proc/sys/net/ipv4/conf/${names[0]}/proxy_arp`]).trim(), '1');
    assert.match(sh('ip', ['-n', NODE, 'route', 'show', `${ips[0]}/32`]), new RegExp(`dev ${names[0]} scope link`));
    const podAddr = JSON.parse(sh('ip', ['-n', PODS[0]!, '-j', 'addr', 'show', 'dev', 'eth0']))[0].addr_info.find((a: any) => a.family === 'inet');
    assert.deepEqual([podAddr.local, podAddr.prefixlen], [ips[0], 32]);
    assert.match(sh('ip', ['-n', PODS[0]!, 'route']), /default via 169\.254\.1\.1 dev eth0/);
    // pod 1 → pod 2 over TCP, through the node's /32 routes and proxy ARP.
    const server = spawn('ip', [
      'netns',
      'exec',
      PODS[1]!,
      process.execPath,
      '-e',
      `require('net').createServer((s) => s.end('hello')).listen(8080, '${ips[1]}', () => console.log('up'))`,
    ]);
    try {
      execFileSync('sleep', ['0.5']);
      const got = sh('ip', [
        'netns',
        'exec',
        PODS[0]!,
        process.execPath,
        '-e',
        `const c = require('net').connect(8080, '${ips[1]}'); c.setTimeout(3000, () => process.exit(2)); c.on('data', (d) => { process.stdout.write(d); process.exit(0); });`,
      ]);
      assert.equal(got, 'hello');
    } finally {
      server.kill();
    }
    inNode(`m.unwireRoutedVeth('${names[0]}')`);
    assert.equal(sh('ip', ['-n', NODE, 'route', 'show', `${ips[0]}/32`]).trim(), '');
    assert.throws(() => sh('ip', ['-n', NODE, 'link', 'show', 'dev', names[0]!]));
  });
});
