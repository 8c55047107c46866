// Issue 28's Must show for load balancers: a Service of type LoadBalancer, public and internal, answering on its
// EXTERNAL-IP from the "internet" host and from a VM in the VNet, through the VNet router playing Azure's load
// balancer (floating IP: the frontend's address reaches the node, kube-proxy's rules for the ingress IP DNAT it;
// docs/dataplane.md §16), on a 2-node Azure CNI cluster of the netns data plane with the real kubectl; an eTP Local
// Service on the one node whose probe answers; the same addresses answering after a restart of the server; then the
// Services deleted (nothing answers any more) and, after close, no namespace of this run left and the host unchanged.
// Root only.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { DataplaneWorld, eventually, INTERNET, skipReason, VM } from './dataplane-harness.js';
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
  let localIp = '';

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
    // web-0 alone behind an externalTrafficPolicy Local Service: only its node passes the health probe.
    await world.kubectlOk(['label', 'pod', 'web-0', 'solo=yes']);
    await world.create(
      'local.json',
      // Port 8080, where nothing listens in the pod: the probe listens there itself and reports the client it saw.
      JSON.stringify({
        ...service('web-local'),
        spec: { ...service('web-local').spec, selector: { solo: 'yes' }, externalTrafficPolicy: 'Local', ports: [{ port: 80, targetPort: 8080 }] },
      }),
    );
    publicIp = await ingress('web-public');
    localIp = await ingress('web-local');
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

  it('eTP Local: only the node whose probe answers (its pod is there) gets the flows, and the backend sees the client', async () => {
    for (const [from, source] of [
      ['internet', INTERNET],
      [`vm/${VM.name}`, VM.ip],
    ]) {
      for (let i = 0; i < TRIES / 2; i++) {
        const r = await world.probe(from!, `${localIp}:80`, CLUSTER);
        assert.equal(r.connected, true, JSON.stringify(r));
        assert.equal(r.backend, 'default/web-0');
        assert.equal(r.seenSource, source);
      }
    }
    // The router's multipath routes: both nodes for the Cluster Service, web-0's node alone for the Local one.
    const router = world.namespaces().find((n) => n.startsWith(`${world.prefix}-v`))!;
    const routes = (ip: string) =>
      execFileSync('ip', ['-n', router, 'route', 'show', 'table', '90', `${ip}/32`], { encoding: 'utf8' }).match(/10\.224\.\d+\.\d+/g) ?? [];
    const [node0, node1] = await world.nodeIps();
    assert.deepEqual(routes(publicIp).sort(), [node0, node1].sort());
    assert.deepEqual(routes(localIp), [node0]);
  });

  it('kubectl exec client -- curl http://EXTERNAL-IP answers with a backend name (kube-proxy in the cluster)', async () => {
    for (const ip of [publicIp, internalIp]) {
      const curl = await world.kubectl(['exec', 'client', '--', 'curl', '-sS', '--max-time', '5', `http://${ip}`]);
      assert.equal(curl.code, 0, curl.stderr);
      assert.match(curl.stdout, /^web-[01]$/);
    }
  });

  it('after a restart of the server: the same EXTERNAL-IPs, answering again from the internet host and the VM', async () => {
    await world.server.close();
    await world.start();
    assert.equal(await ingress('web-public'), publicIp);
    assert.equal(await ingress('web-internal'), internalIp);
    const answers = (from: string, ip: string) => async () => (await world.probe(from, `${ip}:80`, CLUSTER, 1500)).connected;
    await eventually(answers('internet', publicIp), 60_000, 'the public frontend answers the internet host');
    await eventually(answers(`vm/${VM.name}`, internalIp), 60_000, 'the internal frontend answers the VM');
  });

  it('deleting the Services takes the frontends away: nothing answers on the addresses', async () => {
    await world.kubectlOk(['delete', 'svc', 'web-public', 'web-internal', 'web-local', '--timeout=30s']);
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
