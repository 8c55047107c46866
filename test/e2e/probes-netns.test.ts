// The kubelet's probes on the netns data plane, with the real kubectl against a kubenet cluster
// (src/cluster/kubelet/probes.ts): a Deployment whose readiness probe points at a port nothing listens on is 0/1
// with the kubelet's `Readiness probe failed: … connection refused` event, its Service's EndpointSlice has no ready
// endpoint (Endpoints: notReadyAddresses) and `kubectl exec client -- curl http://web` is refused; the probe fixed
// with `kubectl patch`, the new pods are Ready and curl gets the backend's answer. A failing liveness probe kills
// and restarts its container with the kubelet's events, and its restartCount grows. The cluster enforces
// NetworkPolicy (calico): a default deny of ingress drops the client's traffic, yet the probes, sent from the node,
// keep the pods Ready. Root only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataplaneWorld, eventually, skipReason } from './dataplane-harness.js';

type Obj = any;
const CLUSTER = 'pr1';
const AGNHOST = 'registry.k8s.io/e2e-test-images/agnhost:2.53';

function deployment(readinessPort: number): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'web',
              image: AGNHOST,
              args: ['netexec', '--http-port=8080'],
              ports: [{ containerPort: 8080, name: 'http' }],
              readinessProbe: { httpGet: { path: '/healthz', port: readinessPort }, periodSeconds: 1, failureThreshold: 1 },
            },
          ],
        },
      },
    },
  };
}

/** A pod of one agnhost netexec container (HTTP on 8080) with the probes given. */
const agnhostPod = (name: string, probes: Obj): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name, image: AGNHOST, args: ['netexec', '--http-port=8080'], ...probes }] },
});

const SERVICE = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web' },
  spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] },
};

const CLIENT = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'client' }, spec: { containers: [{ name: 'client', image: 'nginx' }] } };

describe('probes as the kubelet runs them, on the netns data plane', { skip: skipReason() }, () => {
  let world: DataplaneWorld;

  before(async () => {
    world = new DataplaneWorld();
    await world.withCluster(CLUSTER, ['--network-plugin', 'kubenet', '--pod-cidr', '10.244.0.0/16', '--network-policy', 'calico']);
    await world.create('client.json', JSON.stringify(CLIENT));
    await world.kubectlOk(['wait', '--for=condition=Ready', 'pod/client', '--timeout=60s']);
  });
  after(async () => {
    await world?.close();
    world?.assertClean();
  });

  const webPods = async (): Promise<Obj[]> => (await world.json(['get', 'pods', '-l', 'app=web'])).items.filter((p: Obj) => !p.metadata.deletionTimestamp);
  const curl = () => world.kubectl(['exec', 'client', '--', 'curl', '-sS', '--max-time', '3', 'http://web']);

  it('a failing readiness probe keeps the pods out of the Service; fixed, traffic flows', async () => {
    await world.create('web.json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [deployment(8081), SERVICE] }));
    // Running, never Ready: the probe from the node meets nothing on 8081.
    let pods: Obj[] = [];
    await eventually(
      async () => {
        pods = await webPods();
        return pods.length === 2 && pods.every((p) => p.status?.phase === 'Running');
      },
      60_000,
      'web pods Running',
    );
    await new Promise((r) => setTimeout(r, 3000));
    pods = await webPods();
    for (const p of pods) {
      assert.equal(p.status.containerStatuses[0].ready, false, `${p.metadata.name} is not ready`);
      const ready = p.status.conditions.find((c: Obj) => c.type === 'Ready');
      assert.equal(ready.status, 'False');
      assert.equal(ready.reason, 'ContainersNotReady');
    }
    const table = await world.kubectlOk(['get', 'pods', '-l', 'app=web', '--no-headers']);
    assert.match(table, /0\/1\s+Running/);
    // The kubelet's event, in its words, with the pod's address.
    const p0 = pods[0];
    const events = await world.kubectlOk(['get', 'events', '--field-selector', `involvedObject.name=${p0.metadata.name}`, '-o', 'json']);
    const unhealthy = JSON.parse(events).items.filter((e: Obj) => e.reason === 'Unhealthy');
    assert.ok(unhealthy.length > 0, 'an Unhealthy event');
    assert.equal(
      unhealthy[0].message,
      `Readiness probe failed: Get "http://${p0.status.podIP}:8081/healthz": dial tcp ${p0.status.podIP}:8081: connect: connection refused`,
    );
    assert.equal(unhealthy[0].type, 'Warning');
    assert.equal(unhealthy[0].source.component, 'kubelet');
    assert.equal(unhealthy[0].involvedObject.fieldPath, 'spec.containers{web}');
    // No ready endpoint in the slice; Endpoints lists them as not ready.
    const slices = (await world.json(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web'])).items;
    const endpoints = slices.flatMap((s: Obj) => s.endpoints ?? []);
    assert.equal(endpoints.length, 2);
    assert.ok(
      endpoints.every((e: Obj) => e.conditions.ready === false && e.conditions.serving === false),
      JSON.stringify(endpoints),
    );
    const ep = await world.json(['get', 'endpoints', 'web']);
    assert.equal(ep.subsets[0].addresses, undefined);
    assert.equal(ep.subsets[0].notReadyAddresses.length, 2);
    // kube-proxy rejects a Service without ready endpoints: curl is refused.
    const refused = await curl();
    assert.notEqual(refused.code, 0);
    assert.match(refused.stdout + refused.stderr, /Connection refused|Couldn't connect/i);

    // The probe fixed: a new ReplicaSet whose pods pass it.
    await world.kubectlOk([
      'patch',
      'deployment',
      'web',
      '--type=json',
      '-p',
      JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/readinessProbe/httpGet/port', value: 8080 }]),
    ]);
    await world.kubectlOk(['rollout', 'status', 'deployment/web', '--timeout=90s']);
    pods = await webPods();
    await eventually(
      async () => {
        pods = await webPods();
        return pods.length === 2 && pods.every((p) => p.status?.containerStatuses?.[0]?.ready === true);
      },
      30_000,
      'fixed pods Ready',
    );
    const ready = (await world.json(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web'])).items
      .flatMap((s: Obj) => s.endpoints ?? [])
      .filter((e: Obj) => e.conditions.ready);
    assert.equal(ready.length, 2);
    await eventually(async () => (await curl()).code === 0, 15_000, 'curl http://web answers');
    const ok = await curl();
    assert.match(ok.stdout, /^NOW: /);
  });

  it('NetworkPolicy drops the client but not the probes, which come from the node', async () => {
    const deny = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'deny-web' },
      spec: { podSelector: { matchLabels: { app: 'web' } } },
    };
    await world.create('deny.json', JSON.stringify(deny));
    await eventually(async () => (await curl()).code !== 0, 15_000, 'the policy drops the client');
    const dropped = await curl();
    assert.match(dropped.stdout + dropped.stderr, /timed out/i);
    // Several readiness periods later the pods are still Ready, and no probe failed since.
    const before = (await webPods()).map((p) => p.metadata.name);
    await new Promise((r) => setTimeout(r, 4000));
    const pods = await webPods();
    assert.deepEqual(
      pods.map((p) => p.metadata.name),
      before,
    );
    for (const p of pods) assert.equal(p.status.containerStatuses[0].ready, true, `${p.metadata.name} Ready under the policy`);
    await world.kubectlOk(['delete', 'networkpolicy', 'deny-web']);
    await eventually(async () => (await curl()).code === 0, 15_000, 'curl answers again');
  });

  it('nginx answers its default site: a probe of / passes, one of /healthz gets its 404', async () => {
    const nginx = (name: string, path: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { containers: [{ name: 'web', image: 'nginx', readinessProbe: { httpGet: { path, port: 80 }, periodSeconds: 1 } }] },
    });
    await world.create('nginx.json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [nginx('site', '/'), nginx('nohealthz', '/healthz')] }));
    await world.kubectlOk(['wait', '--for=condition=Ready', 'pod/site', '--timeout=60s']);
    await eventually(
      async () =>
        JSON.parse(await world.kubectlOk(['get', 'events', '--field-selector', 'involvedObject.name=nohealthz', '-o', 'json'])).items.some(
          (e: Obj) => e.message === 'Readiness probe failed: HTTP probe failed with statuscode: 404',
        ),
      30_000,
      'the 404 event',
    );
    assert.equal((await world.json(['get', 'pod', 'nohealthz'])).status.containerStatuses[0].ready, false);
    await world.kubectlOk(['delete', 'pod', 'site', 'nohealthz', '--grace-period=0', '--force']);
  });

  it('a failing liveness probe restarts the container with the kubelet’s events', async () => {
    const pod = agnhostPod('live', { livenessProbe: { httpGet: { path: '/healthz', port: 8081 }, periodSeconds: 1, failureThreshold: 2 } });
    await world.create('live.json', JSON.stringify(pod));
    let got: Obj;
    await eventually(
      async () => {
        got = await world.json(['get', 'pod', 'live']);
        return (got.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1;
      },
      30_000,
      'live restarted',
    );
    const ip = got.status.podIP;
    const status = got.status.containerStatuses[0];
    assert.equal(status.lastState.terminated.exitCode, 137);
    const events = JSON.parse(await world.kubectlOk(['get', 'events', '--field-selector', 'involvedObject.name=live', '-o', 'json'])).items;
    const messages = events.map((e: Obj) => `${e.type} ${e.reason} ${e.message}`);
    assert.ok(
      messages.includes(`Warning Unhealthy Liveness probe failed: Get "http://${ip}:8081/healthz": dial tcp ${ip}:8081: connect: connection refused`),
      messages.join('\n'),
    );
    assert.ok(messages.includes('Normal Killing Container live failed liveness probe, will be restarted'), messages.join('\n'));
    const describe = await world.kubectlOk(['describe', 'pod', 'live']);
    assert.match(describe, /Liveness:\s+http-get http:\/\/:8081\/healthz delay=0s timeout=1s period=1s #success=1 #failure=2/);
    assert.match(describe, /Container live failed liveness probe, will be restarted/);
    // It keeps failing: the restarts go on, with the crash-loop back-off between them.
    await eventually(async () => ((await world.json(['get', 'pod', 'live'])).status.containerStatuses[0].restartCount ?? 0) >= 2, 30_000, 'a second restart');
    await world.kubectlOk(['delete', 'pod', 'live', '--grace-period=0', '--force']);
  });

  it('after a restart of aksemu the probes start from scratch: Ready pods pass again, a failing one still fails', async () => {
    const stuck = agnhostPod('stuck', { readinessProbe: { httpGet: { path: '/', port: 8081 }, periodSeconds: 1 } });
    await world.create('stuck.json', JSON.stringify(stuck));
    await eventually(async () => (await world.json(['get', 'pod', 'stuck'])).status?.phase === 'Running', 30_000, 'stuck Running');
    await world.server.close();
    assert.deepEqual(world.namespaces(), [], 'stopping removes every namespace');
    const stopped = Date.now();
    await world.start();
    await eventually(async () => (await curl()).code === 0, 60_000, 'curl http://web answers after the restart');
    for (const p of await webPods()) assert.equal(p.status.containerStatuses[0].ready, true, `${p.metadata.name} Ready after the restart`);
    // The failing probe runs again in the rebuilt network: a new Unhealthy event, and the pod is still not Ready.
    await eventually(
      async () => {
        const items = JSON.parse(await world.kubectlOk(['get', 'events', '--field-selector', 'involvedObject.name=stuck', '-o', 'json'])).items;
        return items.some((e: Obj) => e.reason === 'Unhealthy' && Date.parse(e.lastTimestamp) >= stopped - 1000);
      },
      30_000,
      'stuck probed again after the restart',
    );
    const pod = await world.json(['get', 'pod', 'stuck']);
    assert.equal(pod.status.containerStatuses[0].ready, false);
    assert.equal(pod.status.containerStatuses[0].restartCount, 0);
  });
});
