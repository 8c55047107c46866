// kube-proxy on a real cluster (docs/dataplane.md §12): a kubenet cluster on the netns data plane, a Service made
// with the real kubectl selecting a pod on each node; every node's aksemu_proxy table gets its ClusterIP and both
// endpoints, a deleted pod leaves them, and a Service that selects nothing is rejected. Root only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { inNetns, run } from '../../src/dataplane/netns/exec.js';
import { DataplaneWorld, eventually, PORT, skipReason } from './dataplane-harness.js';

type Obj = any;

async function tables(world: DataplaneWorld): Promise<string[]> {
  const out: string[] = [];
  for (const ns of world.namespaces()) {
    const [file, args] = inNetns(ns, 'nft', ['list', 'table', 'ip', 'aksemu_proxy']);
    const r = await run(file, args);
    if (r.code === 0) out.push(r.stdout);
  }
  return out;
}

describe('kube-proxy rules from the cluster (aksemu start --dataplane netns)', { skip: skipReason() }, () => {
  let world: DataplaneWorld;
  let pods: Obj[];

  before(async () => {
    world = new DataplaneWorld();
    await world.start();
    await world.network();
    await world.cluster('k1', ['--network-plugin', 'kubenet', '--pod-cidr', '10.244.0.0/16']);
    pods = await world.podsOnEachNode();
  });
  after(async () => {
    await world?.close();
  });

  it("every node gets the Service's ClusterIP and endpoints; a deleted pod leaves them; no endpoints is rejected", async () => {
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: PORT }] } };
    const none = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'nobody' }, spec: { selector: { app: 'nobody' }, ports: [{ port: 80 }] } };
    await world.create('svc.json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [svc, none] }));
    const ip = (await world.json(['get', 'service', 'web'])).spec.clusterIP as string;
    const noneIp = (await world.json(['get', 'service', 'nobody'])).spec.clusterIP as string;
    const want = async (): Promise<string | undefined> => {
      const t = await tables(world);
      if (t.length !== 2) return `${t.length} tables, not one per node`;
      for (const text of t) {
        if (!new RegExp(`${ip.replaceAll('.', '\\.')} \\. tcp \\. 80 : goto service-`).test(text)) return `no ${ip} in service-ips`;
        for (const p of pods) if (!text.includes(`dnat to ${p.status.podIP}:${PORT}`)) return `no endpoint ${p.status.podIP}`;
        if (!text.includes(`${noneIp} . tcp . 80 comment "default/nobody" : goto reject-chain`)) return `${noneIp} is not rejected`;
      }
      return undefined;
    };
    await eventually(async () => (await want()) === undefined, 20_000).catch(() => undefined);
    assert.equal(await want(), undefined);
    await world.kubectlOk(['delete', 'pod', 'web-1', '--wait=false']);
    const gone = async (): Promise<boolean> => (await tables(world)).every((text) => !text.includes(`dnat to ${pods[1].status.podIP}:${PORT}`));
    await eventually(gone, 20_000).catch(() => undefined);
    assert.ok(await gone(), 'the deleted pod is no endpoint any more');
  });
});
