// kube-proxy's rules on a BYO CNI node (docs/dataplane.md §12): pods on the user's cni0 bridge (the real bridge +
// host-local plugins, hairpinMode as flannel's conflist sets it), a cluster created without a pod CIDR (kube-proxy
// has no cluster CIDR): pod → ClusterIP reaches every backend, hairpin, NodePort from a VM with eTP Cluster
// (masqueraded) and eTP Local (the VM's address), no endpoints rejects; the root namespace unchanged after.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { NetnsDataplane } from '../../src/dataplane/netns/driver.js';
import { netnsPath } from '../../src/dataplane/netns/exec.js';
import { CLUSTER_ID, NODES, nodeId, pod, rootSnapshot, skipReason, testPrefix, topology, VM, writeBridgeConflist, closeAndAssertClean } from './harness.js';
import { ask, backend, type TestService, tableFor } from './kube-proxy-harness.js';

const prefix = testPrefix();
const PLUGINS = '/usr/lib/cni';
const skip = (await skipReason(prefix)) || (existsSync(join(PLUGINS, 'bridge')) ? false : `the CNI plugins are not installed in ${PLUGINS}`);

describe('kube-proxy on a BYO CNI node (cni0 bridge)', { skip }, () => {
  let dp: NetnsDataplane;
  let root: Record<string, string>;
  const dir = mkdtempSync(join(tmpdir(), 'aksemu-kp-byo-'));
  const cni = { confDir: join(dir, 'net.d'), pluginDirs: [PLUGINS], cacheDir: join(dir, 'cache') };
  const paths = new Map<string, string>();
  const ips = new Map<string, string>();
  const listeners: ChildProcess[] = [];
  const vm = (): string => netnsPath(dp.names.host(VM.id));

  before(async () => {
    root = rootSnapshot();
    writeBridgeConflist(cni.confDir, join(dir, 'ipam'), { hairpinMode: true });
    dp = new NetnsDataplane({ prefix });
    await dp.gc();
    await dp.apply(topology(() => ({ clusterId: CLUSTER_ID, wiring: 'none' })));
    for (const name of ['byo-0', 'byo-1', 'client']) {
      const net = await dp.attachPod(pod(0, name, undefined, { cni }));
      paths.set(name, net.netns!);
      ips.set(name, net.ip);
    }
    for (const name of ['byo-0', 'byo-1']) listeners.push(await backend(paths.get(name)!, name, 8080));
    const endpoints = ['byo-0', 'byo-1'].map((n) => ({ ip: ips.get(n)!, port: 8080, node: 0 }));
    const services: TestService[] = [
      { name: 'web', clusterIp: '10.0.0.20', port: 80, nodePort: 30080, externalLocal: false, internalLocal: false, endpoints },
      { name: 'local', clusterIp: '10.0.0.21', port: 80, nodePort: 30081, externalLocal: true, internalLocal: false, endpoints: endpoints.slice(0, 1) },
      { name: 'empty', clusterIp: '10.0.0.23', port: 80, externalLocal: false, internalLocal: false, endpoints: [] },
    ];
    await dp.applyServices(nodeId(0), tableFor(0, services, undefined));
  });
  after(async () => {
    for (const l of listeners) l.kill('SIGKILL');
    await dp?.close({ removeAll: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it('pod → ClusterIP reaches every backend, with the pod address', async () => {
    const names = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const r = await ask(paths.get('client')!, '10.0.0.20', 80);
      assert.equal(r.source, ips.get('client'));
      names.add(r.name!);
    }
    assert.deepEqual([...names].sort(), ['byo-0', 'byo-1']);
  });

  it('hairpin through cni0, and NodePort from a VM: masqueraded with eTP Cluster, the VM address with eTP Local', async () => {
    const self = await ask(paths.get('byo-0')!, '10.0.0.21', 80);
    assert.deepEqual([self.name, self.source], ['byo-0', '10.245.0.1']);
    const cluster = await ask(vm(), NODES[0]!.ip, 30080);
    assert.equal(cluster.source, '10.245.0.1');
    const local = await ask(vm(), NODES[0]!.ip, 30081);
    assert.deepEqual([local.name, local.source], ['byo-0', VM.ip]);
    assert.equal((await ask(paths.get('client')!, '10.0.0.23', 80)).error, 'ECONNREFUSED');
  });

  it('removes every namespace it made, and the root namespace is unchanged', async () => {
    for (const l of listeners) l.kill('SIGKILL');
    await closeAndAssertClean(dp, prefix, root);
  });
});
