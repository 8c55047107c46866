// aksemu's calico-ipam plugin against a real cluster API with the CRDs of Calico's own calico.yaml (v3.32.1,
// test/fixtures/calico/SOURCE.md; skipped without it): the plugin runs as the kubelet would run it (its Plugin.run
// with CNI_* in a PluginRequest), reaching the API through a node root whose run/aksemu/apiserver.sock forwards to
// the cluster's API server and whose /etc/cni/net.d/calico-kubeconfig holds the token. Asserted through kubectl:
// blocks are /26s of the pool with affinity host:<node>, BlockAffinities confirmed, 70 concurrent ADDs on one
// node fill one block and claim a second, none twice; another node gets its own block; DEL releases the handle.
// The calico plugin (address only) refuses until ClusterInformation is ready, then delegates to calico-ipam from
// CNI_PATH and records the address on the pod.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { fileURLToPath } from 'node:url';
import { calico } from '../../src/cni/plugins/calico.js';
import { calicoIpam } from '../../src/cni/plugins/calico-ipam.js';
import type { PluginError, PluginRequest } from '../../src/cni/plugins/plugin.js';
import { apiEndpoint, type ClusterEnv, kubectl, withCluster } from './harness.js';
import { CALICO_MANIFEST, calicoSkip } from './calico-fixture.js';

/** A node root whose API socket forwards to the cluster's HTTPS API (what the runtime serves on a real node). */
async function nodeRoot(env: ClusterEnv, dir: string): Promise<Server> {
  const endpoint = apiEndpoint(env);
  mkdirSync(join(dir, 'run', 'aksemu'), { recursive: true });
  mkdirSync(join(dir, 'etc', 'cni', 'net.d'), { recursive: true });
  writeFileSync(join(dir, 'etc', 'cni', 'net.d', 'calico-kubeconfig'), `users:\n- name: calico\n  user:\n    token: ${endpoint.token}\n`);
  const server = createServer((req, res) => {
    // Connection is hop-by-hop, as a proxy treats it: the plugin's `close` (it pools nothing) must not close the
    // forwarder's pooled TLS connection too, or every request pays a new handshake.
    const { connection: _hop, ...headers } = req.headers;
    const up = httpsRequest(`${endpoint.url}${req.url}`, { method: req.method, headers, ca: endpoint.caPem }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(join(dir, 'run', 'aksemu', 'apiserver.sock'), resolve));
  return server;
}

/** A calico-ipam binary for CNI_PATH: a script running the plugin module (the runtime's wrapper does this on nodes). */
function ipamBinary(dir: string, root: string): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const module = fileURLToPath(new URL('../../src/cni/plugins/calico-ipam.js', import.meta.url));
  const driver = join(bin, 'driver.mjs');
  writeFileSync(
    driver,
    `import { readFileSync } from 'node:fs';
import { calicoIpam } from ${JSON.stringify(module)};
const config = JSON.parse(readFileSync(0, 'utf8'));
const args = Object.fromEntries((process.env.CNI_ARGS ?? '').split(';').filter(Boolean).map((p) => p.split('=')));
try {
  const r = await calicoIpam.run({ command: process.env.CNI_COMMAND, containerId: process.env.CNI_CONTAINERID, netns: '', ifName: 'eth0', args, path: [], config, nodeRoot: ${JSON.stringify(root)}, addressOnly: true });
  if (r) process.stdout.write(JSON.stringify({ cniVersion: config.cniVersion, ...r }));
} catch (e) {
  process.stdout.write(JSON.stringify({ code: e.code ?? 999, msg: e.message }));
  process.exit(1);
}
`,
  );
  writeFileSync(join(bin, 'calico-ipam'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(driver)}\n`, { mode: 0o755 });
  return bin;
}

/** The calico plugin (address only): refuses until ClusterInformation is ready, delegates to calico-ipam, annotates the pod. */
async function calicoPluginChecks(env: ClusterEnv, root: string): Promise<void> {
  const bin = ipamBinary(root, root);
  const add = (): PluginRequest => ({ ...request(root, 'node-a', 'ADD', 'c100'), args: { K8S_POD_NAMESPACE: 'default', K8S_POD_NAME: 'web' }, path: [bin] });
  await assert.rejects(calico.run(add()), (e: PluginError) => {
    assert.equal(e.code, 999);
    assert.equal(
      e.message,
      'error getting ClusterInformation: resource does not exist: ClusterInformation(default) with error: clusterinformations.crd.projectcalico.org "default" not found',
    );
    return true;
  });
  const info = join(env.scratch, 'info.yaml');
  writeFileSync(info, 'apiVersion: crd.projectcalico.org/v1\nkind: ClusterInformation\nmetadata:\n  name: default\nspec:\n  datastoreReady: false\n');
  assert.equal((await kubectl(env, ['create', '-f', info])).code, 0);
  await assert.rejects(calico.run(add()), /^Error: Calico is currently not ready to process requests$/);
  assert.equal(
    (await kubectl(env, ['patch', 'clusterinformations.crd.projectcalico.org', 'default', '--type=merge', '-p', '{"spec":{"datastoreReady":true}}'])).code,
    0,
  );
  assert.equal((await kubectl(env, ['run', 'web', '--image=nginx'])).code, 0);
  const result = (await calico.run(add()))!;
  const ip = String((result['ips'] as Array<{ address: string }>)[0]!.address);
  assert.match(ip, /^192\.168\.\d+\.\d+\/32$/);
  assert.equal(result['interfaces'], undefined);
  const pod = await json(env, ['get', 'pod', 'web']);
  assert.equal(pod.metadata.annotations['cni.projectcalico.org/podIP'], ip);
  assert.equal(pod.metadata.annotations['cni.projectcalico.org/containerID'], 'c100');
  await calico.run({ ...add(), command: 'DEL' });
  assert.notEqual((await kubectl(env, ['get', 'ipamhandles.crd.projectcalico.org', 'k8s-pod-network.c100'])).code, 0);
}

function request(root: string, node: string, command: 'ADD' | 'DEL', id: string): PluginRequest {
  return {
    command,
    containerId: id,
    netns: '',
    ifName: 'eth0',
    args: { K8S_POD_NAMESPACE: 'default', K8S_POD_NAME: `pod-${id}` },
    path: [],
    config: {
      cniVersion: '0.3.1',
      name: 'k8s-pod-network',
      type: 'calico',
      nodename: node,
      ipam: { type: 'calico-ipam' },
      kubernetes: { kubeconfig: '/etc/cni/net.d/calico-kubeconfig' },
    },
    nodeRoot: root,
    addressOnly: true,
  };
}

async function json(env: ClusterEnv, args: string[]): Promise<any> {
  const r = await kubectl(env, [...args, '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('calico-ipam: /26 blocks affine to their node, claimed as blocks fill, none twice; DEL releases', { skip: calicoSkip, timeout: 120_000 }, () =>
  withCluster({ networkPlugin: 'none' }, async (env) => {
    // Only the CRDs and the pool matter here: the manifest's CRDs, and the pool calico-node would create.
    const crdFile = join(env.scratch, 'crds.yaml');
    writeFileSync(
      crdFile,
      parseAllDocuments(readFileSync(CALICO_MANIFEST, 'utf8'))
        .filter((d) => d.toJS()?.kind === 'CustomResourceDefinition')
        .map((d) => d.toString())
        .join('---\n'),
    );
    const crds = await kubectl(env, ['create', '-f', crdFile]);
    assert.equal(crds.code, 0, crds.stderr);
    await kubectl(env, ['wait', '--for=condition=Established', 'crd/ipamblocks.crd.projectcalico.org', 'crd/ippools.crd.projectcalico.org']);
    const pool = join(env.scratch, 'pool.yaml');
    writeFileSync(
      pool,
      'apiVersion: crd.projectcalico.org/v1\nkind: IPPool\nmetadata:\n  name: default-ipv4-ippool\nspec:\n  cidr: 192.168.0.0/16\n  blockSize: 26\n  ipipMode: Always\n  vxlanMode: Never\n  natOutgoing: true\n  nodeSelector: all()\n',
    );
    const created = await kubectl(env, ['create', '-f', pool]);
    assert.equal(created.code, 0, created.stderr);
    const dirA = mkdtempSync(join(tmpdir(), 'aksemu-calico-a-'));
    const dirB = mkdtempSync(join(tmpdir(), 'aksemu-calico-b-'));
    const servers = [await nodeRoot(env, dirA), await nodeRoot(env, dirB)];
    try {
      const ids = Array.from({ length: 70 }, (_, i) => `a${String(i).padStart(3, '0')}`);
      const results = await Promise.all(ids.map((id) => calicoIpam.run(request(dirA, 'node-a', 'ADD', id))));
      const other = await calicoIpam.run(request(dirB, 'node-b', 'ADD', 'b000'));
      const addresses = [...results, other].map((r) => String((r!['ips'] as Array<{ address: string }>)[0]!.address));
      assert.equal(new Set(addresses).size, 71, 'no address twice');
      for (const a of addresses) assert.match(a, /^192\.168\.\d+\.\d+\/26$/);
      const blocks = (await json(env, ['get', 'ipamblocks.crd.projectcalico.org'])).items as any[];
      const mine = blocks.filter((b) => b.spec.affinity === 'host:node-a');
      const theirs = blocks.filter((b) => b.spec.affinity === 'host:node-b');
      assert.equal(mine.length, 2, '70 addresses need two /26 blocks on node-a');
      assert.equal(theirs.length, 1);
      for (const b of blocks) {
        assert.match(b.spec.cidr, /\/26$/);
        assert.equal(b.metadata.name, b.spec.cidr.replace(/\./g, '-').replace('/', '-'));
        assert.equal(b.spec.allocations.length, 64);
      }
      const inBlock = (ip: string, cidr: string) => {
        const [base] = cidr.split('/');
        const p = base!.split('.').map(Number);
        const q = ip.split('/')[0]!.split('.').map(Number);
        return p[0] === q[0] && p[1] === q[1] && p[2] === q[2] && q[3]! >= p[3]! && q[3]! < p[3]! + 64;
      };
      for (const a of addresses.slice(0, 70))
        assert.ok(
          mine.some((b) => inBlock(a, b.spec.cidr)),
          `${a} in one of node-a's blocks`,
        );
      assert.ok(inBlock(addresses[70]!, theirs[0].spec.cidr));
      const affinities = (await json(env, ['get', 'blockaffinities.crd.projectcalico.org'])).items as any[];
      assert.deepEqual(affinities.map((a) => `${a.spec.node} ${a.spec.state}`).sort(), ['node-a confirmed', 'node-a confirmed', 'node-b confirmed']);
      for (const a of affinities) assert.equal(a.metadata.name, `${a.spec.node}-${a.spec.cidr.replace(/\./g, '-').replace('/', '-')}`);
      const handle = await json(env, ['get', 'ipamhandles.crd.projectcalico.org', 'k8s-pod-network.a000']);
      assert.equal(handle.spec.handleID, 'k8s-pod-network.a000');
      // DEL releases the handle's address and the handle; a second DEL is fine.
      await calicoIpam.run(request(dirA, 'node-a', 'DEL', 'a000'));
      await calicoIpam.run(request(dirA, 'node-a', 'DEL', 'a000'));
      const gone = await kubectl(env, ['get', 'ipamhandles.crd.projectcalico.org', 'k8s-pod-network.a000']);
      assert.notEqual(gone.code, 0);
      assert.match(gone.stderr, /NotFound|not found/);
      const after = (await json(env, ['get', 'ipamblocks.crd.projectcalico.org'])).items as any[];
      const used = after.reduce((n, b) => n + b.spec.allocations.filter((x: unknown) => x !== null).length, 0);
      assert.equal(used, 70);
      await calicoPluginChecks(env, dirA);
    } finally {
      for (const s of servers) s.close();
      rmSync(dirA, { recursive: true, force: true });
      rmSync(dirB, { recursive: true, force: true });
    }
  }),
);
