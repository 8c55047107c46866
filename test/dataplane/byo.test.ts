// BYO CNI on real namespaces: the node's conflist (the real bridge + host-local plugins of /usr/lib/cni)
// runs inside the node's namespace for each pod. The VNet has no route to the user's pod range, so VM → pod
// fails while pods reach out as the node (docs/dataplane.md §1, §6).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { PodAttachment } from '../../src/dataplane/dataplane.js';
import { NetnsDataplane } from '../../src/dataplane/netns/driver.js';
import { CLUSTER_ID, pod, rootSnapshot, skipReason, testPrefix, topology, VM, writeBridgeConflist, closeAndAssertClean } from './harness.js';

const prefix = testPrefix();
const PLUGINS = '/usr/lib/cni';
const skip = (await skipReason(prefix)) || (existsSync(join(PLUGINS, 'bridge')) ? false : `the CNI plugins are not installed in ${PLUGINS}`);

describe('BYO CNI data plane', { skip }, () => {
  let dp: NetnsDataplane;
  let root: Record<string, string>;
  const dir = mkdtempSync(join(tmpdir(), 'aksemu-byo-'));
  const ipamDir = join(dir, 'ipam');
  const cni = { confDir: join(dir, 'net.d'), pluginDirs: [PLUGINS], cacheDir: join(dir, 'cache') };
  const pods: PodAttachment[] = ['byo-0', 'byo-1'].map((name) => pod(0, name, undefined, { cni }));
  const ips: string[] = [];

  before(async () => {
    root = rootSnapshot();
    writeBridgeConflist(cni.confDir, ipamDir);
    dp = new NetnsDataplane({ prefix });
    await dp.gc();
    await dp.apply(topology(() => ({ clusterId: CLUSTER_ID, wiring: 'none' })));
    for (const p of pods) ips.push((await dp.attachPod(p)).ip);
  });
  after(async () => {
    await dp?.close({ removeAll: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it("pods get their addresses from the user's IPAM (host-local, in the node's namespace)", () => {
    assert.deepEqual(ips, ['10.245.0.2', '10.245.0.3']);
    assert.deepEqual(
      readdirSync(join(ipamDir, 'user-net'))
        .filter((f) => f.startsWith('10.'))
        .sort(),
      ips,
    );
  });

  it('pod → pod on the same node sees the pod IP; pod → VM sees the node IP (the plugin masquerades)', async () => {
    const probe = (ip: string) => dp.probe({ from: { kind: 'pod', clusterId: CLUSTER_ID, namespace: 'default', name: 'byo-0' }, to: { ip, port: 8080 } });
    const toPod = await probe(ips[1]!);
    assert.deepEqual([toPod.connected, toPod.seenSource], [true, ips[0]]);
    const toVm = await probe(VM.ip);
    assert.deepEqual([toVm.connected, toVm.seenSource], [true, '10.224.0.4']);
  });

  it('VM → pod IP fails: the VNet has no route to the user range', async () => {
    const r = await dp.probe({ from: { kind: 'vm', name: VM.name }, to: { ip: ips[0]!, port: 8080 }, timeoutMs: 1500 });
    assert.equal(r.connected, false);
  });

  it('detach runs CNI DEL: the IPAM address is released', async () => {
    await dp.detachPod(pods[1]!);
    assert.deepEqual(
      readdirSync(join(ipamDir, 'user-net')).filter((f) => f.startsWith('10.')),
      [ips[0]],
    );
  });

  it('removes every namespace it made, and the root namespace is unchanged', async () => {
    await closeAndAssertClean(dp, prefix, root);
  });
});
