// NetworkPolicy end to end on the netns data plane (docs/dataplane.md §13): a kubenet cluster created with
// `--network-policy calico` enforces what kubectl applies (default deny blocks, an allow rule re-opens, an
// ipBlock with except keeps the VM out, deleting the policies opens everything again); an Azure CNI cluster
// without a policy engine stores the same default deny and ignores it, as AKS does. Root only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataplaneWorld, eventually, PORT, skipReason, VM } from './dataplane-harness.js';

type Obj = any;

const policy = (name: string, spec: Obj): string => JSON.stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name }, spec });

describe('NetworkPolicy on the netns data plane', { skip: skipReason() }, () => {
  let world: DataplaneWorld;

  before(async () => {
    world = new DataplaneWorld();
    await world.start();
    await world.network();
  });
  after(async () => {
    await world?.close();
  });

  /** Whether pod web-0 (or the VM) reaches pod web-1 of the cluster, with a short timeout. */
  const reaches = async (cluster: string, pods: Obj[], from = 'pod/default/web-0'): Promise<boolean> =>
    (await world.probe(from, `${pods[1].status.podIP}:${PORT}`, cluster, 800)).connected;

  it('kubenet with --network-policy calico: default deny blocks, an allow re-opens, an ipBlock except keeps the VM out, deleting opens', async () => {
    await world.cluster('k1', ['--network-plugin', 'kubenet', '--pod-cidr', '10.244.0.0/16', '--network-policy', 'calico']);
    const pods = await world.podsOnEachNode();
    assert.equal(await reaches('k1', pods), true);

    await world.create('deny.json', policy('deny', { podSelector: {} }));
    await eventually(async () => !(await reaches('k1', pods)), 10_000, 'the default deny to block web-0 → web-1');

    await world.create(
      'allow.json',
      policy('allow', {
        podSelector: { matchLabels: { app: 'web' } },
        ingress: [
          {
            from: [{ podSelector: { matchLabels: { app: 'web' } } }, { ipBlock: { cidr: '10.224.0.0/16', except: [`${VM.ip}/32`] } }],
            ports: [{ port: PORT }],
          },
        ],
      }),
    );
    await eventually(() => reaches('k1', pods), 10_000, 'the allow rule to re-open web-0 → web-1');
    assert.equal(await reaches('k1', pods, `vm/${VM.name}`), false, 'the VM is the ipBlock exception');

    await world.kubectlOk(['delete', 'networkpolicy', 'deny', 'allow']);
    await eventually(() => reaches('k1', pods, `vm/${VM.name}`), 10_000, 'everything open again');
  });

  it('Azure CNI without a policy engine: the policy is stored and ignored', async () => {
    await world.cluster('k2', ['--network-plugin', 'azure']);
    const pods = await world.podsOnEachNode();
    await world.create('deny.json', policy('deny', { podSelector: {} }));
    assert.deepEqual(
      (await world.json(['get', 'networkpolicy'])).items.map((p: Obj) => p.metadata.name),
      ['deny'],
    );
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await reaches('k2', pods), true);
  });

  it('stopping the server removes every namespace of this run; the root namespace is unchanged', async () => {
    await world.server.close();
    world.assertClean();
  });
});
