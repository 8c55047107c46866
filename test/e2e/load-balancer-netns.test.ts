// Issue 28's Must show for load balancers: a Service of type LoadBalancer, public and internal, answering on its
// EXTERNAL-IP from the "internet" host and from a VM in the VNet, through the VNet router playing Azure's load
// balancer (floating IP: the frontend's address reaches the node, kube-proxy's rules for the ingress IP DNAT it;
// docs/dataplane.md §16), on a 2-node Azure CNI cluster of the netns data plane with the real kubectl; then the
// Services deleted (nothing answers any more) and, after close, no namespace of this run left and the host unchanged.
// Root only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataplaneWorld, eventually, skipReason, VM } from './dataplane-harness.js';
import { AGNHOST } from './services-harness.js';

type Obj = any;
const CLUSTER = 'lb1';
/** With two backends picked per flow, missing one over N probes from varying ports is unlikely; the backend is named. */
const TRIES = 12;

const service = (name: string, annotations: Record<string, string> = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace: 'default', annotations },
  spec: { type: 'LoadBalancer', selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 9376 }] },
});

describe('LoadBalancer Services on the netns data plane (public and internal)', { skip: skipReason() }, () => {
  let world: DataplaneWorld;
  let publicIp = '';
  let internalIp = '';

  const ingress = async (name: string): Promise<string> => {
    let ip = '';
    await eventually(
      async () => {
        ip = (await world.json(['get', 'svc', name])).status?.loadBalancer?.ingress?.[0]?.ip ?? '';
        return ip !== '';
      },
      20_000,
      `${name}'s EXTERNAL-IP`,
    );
    return ip;
  };

  before(async () => {
    world = new DataplaneWorld();
    await world.withCluster(CLUSTER, ['--network-plugin', 'azure']);
    await world.podsOnEachNode({ name: 'web', image: AGNHOST, args: ['serve-hostname'], ports: [{ name: 'http', containerPort: 9376 }] });
    await world.create(
      'lbs.json',
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          service('web-public'),
          service('web-internal', { 'service.beta.kubernetes.io/azure-load-balancer-internal': 'true' }),
          {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: 'client', namespace: 'default' },
            spec: { containers: [{ name: 'client', image: AGNHOST, args: ['pause'] }] },
          },
        ],
      }),
    );
    publicIp = await ingress('web-public');
    internalIp = await ingress('web-internal');
    await world.kubectlOk(['wait', '--for=condition=Ready', 'pod/client', '--timeout=60s']);
  });
  after(async () => {
    await world?.close();
    world?.assertClean();
  });

  it('kubectl get svc shows each EXTERNAL-IP: a public address and one of the node subnet', async () => {
    assert.match(publicIp, /^198\.19\.\d+\.\d+$/);
    assert.match(internalIp, /^10\.224\.\d+\.\d+$/);
    const table = await world.kubectlOk(['get', 'svc', 'web-public', 'web-internal']);
    assert.match(table, new RegExp(`web-public\\s+LoadBalancer\\s+\\S+\\s+${publicIp.replaceAll('.', '\\.')}\\s+80:\\d+/TCP`));
    assert.match(table, new RegExp(`web-internal\\s+LoadBalancer\\s+\\S+\\s+${internalIp.replaceAll('.', '\\.')}\\s+80:\\d+/TCP`));
  });

  for (const [from, target] of [
    ['internet', 'public'],
    [`vm/${VM.name}`, 'public'],
    [`vm/${VM.name}`, 'internal'],
  ] as const) {
    it(`${from} → the ${target} EXTERNAL-IP:80 reaches a backend pod`, async () => {
      const ip = target === 'public' ? publicIp : internalIp;
      const seen = new Set<string>();
      for (let i = 0; i < TRIES && seen.size < 2; i++) {
        const r = await world.probe(from, `${ip}:80`, CLUSTER);
        assert.equal(r.connected, true, `${from} → ${ip}:80: ${JSON.stringify(r)}`);
        assert.match(r.backend ?? '', /^default\/web-[01]$/, JSON.stringify(r));
        seen.add(r.backend!);
      }
      assert.ok(seen.size >= 1);
    });
  }

  it('kubectl exec client -- curl http://EXTERNAL-IP answers with a backend name (kube-proxy in the cluster)', async () => {
    for (const ip of [publicIp, internalIp]) {
      const curl = await world.kubectl(['exec', 'client', '--', 'curl', '-sS', '--max-time', '5', `http://${ip}`]);
      assert.equal(curl.code, 0, curl.stderr);
      assert.match(curl.stdout, /^web-[01]$/);
    }
  });

  it('deleting the Services takes the frontends away: nothing answers on the addresses', async () => {
    await world.kubectlOk(['delete', 'svc', 'web-public', 'web-internal', '--timeout=30s']);
    await eventually(
      async () => {
        const a = await world.probe('internet', `${publicIp}:80`, CLUSTER, 800);
        const b = await world.probe(`vm/${VM.name}`, `${internalIp}:80`, CLUSTER, 800);
        return !a.connected && !b.connected;
      },
      15_000,
      'the frontends stop answering',
    );
  });
});
