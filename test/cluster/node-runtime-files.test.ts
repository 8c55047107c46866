// The node runtime's files (no root needed): a node root seeded as AKS's node image has it (/opt/cni/bin with the
// reference plugins, /var/run → /run); a container's hostPath volumes mapped onto the node root, writable only in
// the CNI projects' dirs; image files of the catalogue installed into /opt/cni/bin (aksemu's plugins as node
// wrappers, reference plugins as links); and the kubelet's IPAM running aksemu's main plugin address-only.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { installPlugin, pluginWrapper } from '../../src/cni/plugins/install.js';
import { PLUGINS } from '../../src/cni/plugins/registry.js';
import { ContainerError, ContainerFs } from '../../src/cluster/kubelet/node-files.js';
import { AKS_REFERENCE_PLUGINS, asNodePaths, seedNodeRoot, SYSTEM_CNI_DIR } from '../../src/cluster/nodefs/node-root.js';
import { nodeConfDir, nodeRootDir } from '../../src/cluster/nodefs/paths.js';
import { createSandboxes, type IpamHost } from '../../src/cluster/kubelet/ipam.js';
import type { SandboxRequest } from '../../src/cluster/kubelet/sandbox.js';
import type { ClusterRecord, NodeRecord } from '../../src/model/cluster-records.js';

const base = mkdtempSync(join(tmpdir(), 'aksemu-noderoot-'));
after(() => rmSync(base, { recursive: true, force: true }));
const FIXTURE = fileURLToPath(new URL('../cni/plugin-fixture.js', import.meta.url));
const TEST_PLUGIN = 'aksemu-test';
// The test plugin is "one of aksemu's" in this process (the registry decides wrapper vs. link and address-only).
PLUGINS[TEST_PLUGIN] = { supportedVersions: ['1.0.0'], run: async () => undefined };
after(() => delete PLUGINS[TEST_PLUGIN]);

describe('node root', () => {
  test("seeded as AKS's node image: the reference plugins in /opt/cni/bin, /var/run a link to /run; only what is missing", () => {
    const root = join(base, 'seed');
    seedNodeRoot(root);
    const bin = join(root, 'opt', 'cni', 'bin');
    for (const p of AKS_REFERENCE_PLUGINS) {
      if (existsSync(join(SYSTEM_CNI_DIR, p))) assert.equal(readlinkSync(join(bin, p)), join(SYSTEM_CNI_DIR, p));
      else assert.ok(!existsSync(join(bin, p)), `${p} is not on this machine`);
    }
    assert.equal(readlinkSync(join(root, 'var', 'run')), '../run');
    // A CNI's own file survives a second seeding (server restart).
    writeFileSync(join(bin, 'flannel'), 'x');
    seedNodeRoot(root);
    assert.equal(readFileSync(join(bin, 'flannel'), 'utf8'), 'x');
    assert.equal(asNodePaths(`failed to find plugin "flannel" in path [${bin}]`, root), 'failed to find plugin "flannel" in path [/opt/cni/bin]');
  });

  test("with the image's shared /opt/cni/bin: every node links to it until a write there gives that node its own", () => {
    const image = join(base, 'shared', 'node-image', 'opt', 'cni', 'bin');
    const a = join(base, 'shared', 'nodes', 'a');
    const b = join(base, 'shared', 'nodes', 'b');
    seedNodeRoot(a, image);
    seedNodeRoot(b, image);
    const binA = join(a, 'opt', 'cni', 'bin');
    const binB = join(b, 'opt', 'cni', 'bin');
    assert.ok(lstatSync(binA).isSymbolicLink() && lstatSync(binB).isSymbolicLink());
    for (const p of AKS_REFERENCE_PLUGINS) {
      if (existsSync(join(SYSTEM_CNI_DIR, p))) assert.equal(readlinkSync(join(binA, p)), join(SYSTEM_CNI_DIR, p));
    }
    assert.equal(readlinkSync(join(a, 'var', 'run')), '../run');
    // A CNI installer on node a copies its plugin: node a's dir becomes its own, with the image's plugins still there.
    new ContainerFs([{ path: '/host/opt/cni/bin', hostPath: '/opt/cni/bin' }], a).write('/host/opt/cni/bin/flannel', 'x', 0o755);
    assert.ok(!lstatSync(binA).isSymbolicLink());
    assert.equal(readFileSync(join(binA, 'flannel'), 'utf8'), 'x');
    for (const p of AKS_REFERENCE_PLUGINS) {
      if (existsSync(join(SYSTEM_CNI_DIR, p))) assert.equal(readlinkSync(join(binA, p)), join(SYSTEM_CNI_DIR, p));
    }
    assert.ok(!existsSync(join(binB, 'flannel')), 'node b does not see node a’s plugin');
    assert.ok(!existsSync(join(image, 'flannel')), 'nor does the image');
    // A second seeding (restart) keeps node a's own dir.
    seedNodeRoot(a, image);
    assert.equal(readFileSync(join(binA, 'flannel'), 'utf8'), 'x');
  });

  test('hostPath volumes map onto the node root; writes only in the CNI dirs; ConfigMaps are read-only', () => {
    const root = join(base, 'fs');
    seedNodeRoot(root);
    const fs = new ContainerFs(
      [
        { path: '/host/etc/cni/net.d', hostPath: '/etc/cni/net.d' },
        { path: '/run/flannel', hostPath: '/run/flannel' },
        { path: '/host', hostPath: '/' },
        { path: '/var/run/cilium', hostPath: '/var/run/cilium' },
        { path: '/etc/kube-flannel', files: new Map([['net-conf.json', '{"Network":"10.244.0.0/16"}']]) },
      ],
      root,
    );
    fs.write('/run/flannel/subnet.env', 'FLANNEL_SUBNET=10.244.1.1/24\n');
    assert.equal(readFileSync(join(root, 'run', 'flannel', 'subnet.env'), 'utf8'), 'FLANNEL_SUBNET=10.244.1.1/24\n');
    fs.write('/host/etc/cni/net.d/10-flannel.conflist', '{}');
    assert.equal(readFileSync(join(root, 'etc', 'cni', 'net.d', '10-flannel.conflist'), 'utf8'), '{}');
    assert.deepEqual(fs.list('/host/etc/cni/net.d'), ['10-flannel.conflist']);
    // /var/run is /run on the node: cilium's socket dir is the same through either path.
    fs.write('/var/run/cilium/state', 'up');
    assert.equal(readFileSync(join(root, 'run', 'cilium', 'state'), 'utf8'), 'up');
    assert.equal(fs.host('/var/run/cilium/cilium.sock'), join(root, 'var', 'run', 'cilium', 'cilium.sock'));
    fs.write('/host/var/run/flannel/subnet.env', 'via /var/run');
    assert.equal(readFileSync(join(root, 'run', 'flannel', 'subnet.env'), 'utf8'), 'via /var/run');
    fs.remove('/host/var/run/flannel');
    assert.ok(existsSync(join(root, 'run', 'flannel')), 'a CNI dir is never removed, under either spelling');
    // Outside the CNI dirs: ignored, and unknown content reads as the image's (null), not as missing.
    fs.write('/host/etc/kubernetes/azure.json', 'secret');
    assert.ok(!existsSync(join(root, 'etc', 'kubernetes')));
    assert.equal(fs.read('/host/etc/kubernetes/azure.json'), null);
    assert.equal(fs.read('/run/flannel/missing.env'), undefined);
    fs.remove('/host/etc/cni/net.d');
    assert.ok(existsSync(join(root, 'etc', 'cni', 'net.d')), 'a CNI dir itself is never removed');
    fs.remove('/host/etc/cni/net.d/10-flannel.conflist');
    assert.deepEqual(fs.list('/host/etc/cni/net.d'), []);
    assert.equal(fs.read('/etc/kube-flannel/net-conf.json'), '{"Network":"10.244.0.0/16"}');
    assert.throws(() => fs.write('/etc/kube-flannel/x', 'y'), ContainerError);
    // The image's writable layer: what the container wrote there it reads back.
    fs.write('/tmp/state', 'mine');
    assert.equal(fs.read('/tmp/state'), 'mine');
    assert.equal(fs.read('/bin/sh'), null);
  });

  test("image files: aksemu's plugins become node wrappers, reference plugins links to the machine's", () => {
    const root = join(base, 'image');
    seedNodeRoot(root);
    const image = {
      image: /^example\/cni$/,
      files: { '/opt/cni/bin/aksemu-test': { plugin: TEST_PLUGIN }, '/opt/cni/bin/bandwidth': { plugin: 'bandwidth' } },
      programs: {},
    };
    const fs = new ContainerFs([{ path: '/host/opt/cni/bin', hostPath: '/opt/cni/bin' }], root, image);
    assert.ok(fs.isDir('/opt/cni/bin'));
    assert.deepEqual(fs.list('/opt/cni/bin').sort(), ['aksemu-test', 'bandwidth']);
    fs.installImageFile('/opt/cni/bin/aksemu-test', '/host/opt/cni/bin/aksemu-test');
    fs.installImageFile('/opt/cni/bin/bandwidth', '/host/opt/cni/bin/bandwidth');
    const bin = join(root, 'opt', 'cni', 'bin');
    assert.equal(readFileSync(join(bin, 'aksemu-test'), 'utf8'), pluginWrapper(root, TEST_PLUGIN));
    assert.equal(lstatSync(join(bin, 'aksemu-test')).mode & 0o777, 0o755);
    assert.equal(readlinkSync(join(bin, 'bandwidth')), join(SYSTEM_CNI_DIR, 'bandwidth'));
    assert.throws(() => fs.installImageFile('/opt/cni/bin/nope', '/host/opt/cni/bin/nope'), /can't stat '\/opt\/cni\/bin\/nope'/);
  });
});

describe("the kubelet's IPAM without a data plane", () => {
  test("a conflist whose main plugin is aksemu's runs THAT plugin address-only; a missing one names /opt/cni/bin", async () => {
    const home = join(base, 'home');
    const node = 'aks-nodepool1-12345678-vmss000000';
    const root = nodeRootDir(home, 'rg', 'c1', node);
    mkdirSync(nodeConfDir(home, 'rg', 'c1', node), { recursive: true });
    seedNodeRoot(root);
    const record = {
      id: '/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/c1',
      name: 'c1',
      resourceGroup: 'rg',
      resolved: { network: { networkPlugin: 'none' } },
    } as unknown as ClusterRecord;
    const nodeRecord = { name: node, ip: '10.224.0.4' } as unknown as NodeRecord;
    const host: IpamHost = {
      home,
      record,
      nodeRecord: (n) => (n === node ? nodeRecord : undefined),
      kubelets: { confDir: (n) => nodeConfDir(home, 'rg', 'c1', n) },
    };
    writeFileSync(
      join(nodeConfDir(home, 'rg', 'c1', node), '10-test.conflist'),
      JSON.stringify({ cniVersion: '1.0.0', name: 'testnet', plugins: [{ type: TEST_PLUGIN }, { type: 'portmap', capabilities: { portMappings: true } }] }),
    );
    const sandboxes = createSandboxes(host);
    const req: SandboxRequest = { namespace: 'default', name: 'web', uid: 'u1', node, hostNetwork: false, sandboxId: randomBytes(32).toString('hex') };
    const missing = await sandboxes.setUp(req);
    assert.deepEqual(missing, {
      ok: false,
      message: `rpc error: code = Unknown desc = failed to setup network for sandbox "${req.sandboxId}": plugin type="${TEST_PLUGIN}" failed (add): failed to find plugin "${TEST_PLUGIN}" in path [/opt/cni/bin]`,
    });
    installPlugin(root, TEST_PLUGIN, FIXTURE);
    assert.deepEqual(await sandboxes.setUp(req), { ok: true, ip: '10.9.0.5' });
    await sandboxes.tearDown(req);
    const seen = readFileSync(join(root, 'var', 'log', 'aksemu-test.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { command: string; addressOnly: boolean; name: string; path: string[]; containerId: string });
    assert.deepEqual(
      seen.map((l) => [l.command, l.addressOnly, l.name, l.containerId]),
      [
        ['ADD', true, 'testnet', req.sandboxId],
        ['DEL', true, 'testnet', req.sandboxId],
      ],
    );
    assert.deepEqual(seen[0]!.path, [join(root, 'opt', 'cni', 'bin')]);
  });
});
