// Pods, the scheduler and the controllers, driven with the real kubectl against clusters created through
// ARM: Deployments roll out onto kubenet nodes with addresses from each node's podCIDR, Azure CNI pods take
// the NIC's secondary IPs and host-network pods the node's, BYO CNI clusters keep CoreDNS Pending with the
// scheduler's FailedScheduling event until a CNI is installed, nodeSelector and maxPods are honoured, and
// scale / delete / Services behave as on AKS.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Cidr, IpAddress } from '../../src/net/ip.js';
import { nodesPrefix, type NodeRecord } from '../../src/model/cluster-records.js';
import { restart } from '../network/harness.js';
import { cniInstall, eventually, HAVE_KUBECTL, kubectl, withCluster, type ClusterEnv } from './harness.js';

const skip = HAVE_KUBECTL ? false : 'no /usr/bin/kubectl on this machine';

type Obj = any;

async function ok(env: ClusterEnv, args: string[]): Promise<string> {
  const r = await kubectl(env, args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

async function getJson(env: ClusterEnv, args: string[]): Promise<Obj> {
  return JSON.parse(await ok(env, [...args, '-o', 'json']));
}

/** `kubectl create <generator>` as a user runs it (kubectl 1.32 POSTs the object as protobuf); its stdout. */
async function created(env: ClusterEnv, args: string[]): Promise<string> {
  const r = await kubectl(env, args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function rows(stdout: string): string[][] {
  return stdout
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s{2,}/));
}

function inside(cidr: string, ip: string): boolean {
  return Cidr.parse(cidr).contains(IpAddress.parse(ip));
}

function nodeRecords(env: ClusterEnv): NodeRecord[] {
  return env.server.store.list<NodeRecord>(nodesPrefix(env.clusterId)).map((e) => e.value);
}

/** Waits until every pod matching the selector is Ready (after they exist: kubectl wait needs them). */
async function waitReady(env: ClusterEnv, selector: string[], count: number): Promise<Obj[]> {
  await eventually(async () => (await getJson(env, ['get', 'pods', ...selector])).items.length === count, 30_000, `${count} pods ${selector.join(' ')}`);
  await ok(env, ['wait', '--for=condition=Ready', 'pod', ...selector, '--timeout=60s']);
  return (await getJson(env, ['get', 'pods', ...selector])).items;
}

describe('workloads on an emulated AKS cluster (real kubectl)', { skip }, () => {
  test("kubenet: a Deployment rolls out, pods get distinct addresses from their node's podCIDR; scale, Services and delete", () =>
    withCluster({ networkPlugin: 'kubenet' }, async (env) => {
      assert.match(await created(env, ['create', 'deployment', 'web', '--image=nginx', '--replicas=6']), /^deployment\.apps\/web created$/m);
      assert.match(await ok(env, ['rollout', 'status', 'deployment/web', '--timeout=60s']), /deployment "web" successfully rolled out/);
      const pods = await waitReady(env, ['-l', 'app=web'], 6);
      const nodes = new Map<string, Obj>((await getJson(env, ['get', 'nodes'])).items.map((n: Obj) => [n.metadata.name, n]));
      const ips = pods.map((p) => p.status.podIP as string);
      assert.equal(new Set(ips).size, 6, `distinct: ${ips}`);
      for (const p of pods) {
        const node = nodes.get(p.spec.nodeName);
        assert.ok(node, `pod ${p.metadata.name} on a known node`);
        assert.ok(inside(node.spec.podCIDR, p.status.podIP), `${p.status.podIP} in ${node.spec.podCIDR}`);
        assert.ok(!/\.(0|1)$/.test(p.status.podIP), p.status.podIP);
        assert.equal(p.status.hostIP, node.status.addresses.find((a: Obj) => a.type === 'InternalIP').address);
        assert.equal(p.status.phase, 'Running');
        assert.deepEqual(
          p.status.conditions.map((c: Obj) => `${c.type}=${c.status}`),
          ['PodReadyToStartContainers=True', 'Initialized=True', 'Ready=True', 'ContainersReady=True', 'PodScheduled=True'],
        );
        const cs = p.status.containerStatuses[0];
        assert.equal(cs.image, 'docker.io/library/nginx:latest');
        assert.match(cs.containerID, /^containerd:\/\/[0-9a-f]{64}$/);
        assert.deepEqual([cs.ready, cs.started, cs.restartCount, Object.keys(cs.state)], [true, true, 0, ['running']]);
        assert.equal(p.status.qosClass, 'BestEffort');
        assert.match(p.metadata.name, /^web-[bcdfghjklmnpqrstvwxz2456789]{8,10}-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
        assert.equal(p.metadata.ownerReferences[0].kind, 'ReplicaSet');
      }
      // Spread: the least-loaded node first, so every node gets some.
      assert.equal(new Set(pods.map((p) => p.spec.nodeName)).size, 3);

      const wide = rows(await ok(env, ['get', 'pods', '-l', 'app=web', '-o', 'wide']));
      assert.deepEqual(wide[0]!.slice(0, 7), ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE']);
      for (const row of wide.slice(1)) {
        const p = pods.find((x) => x.metadata.name === row[0])!;
        assert.deepEqual([row[1], row[2], row[5], row[6]], ['1/1', 'Running', p.status.podIP, p.spec.nodeName]);
      }
      const deploy = rows(await ok(env, ['get', 'deploy,rs', '-l', 'app=web']));
      assert.deepEqual(deploy[1]!.slice(0, 4), ['deployment.apps/web', '6/6', '6', '6']);
      const rs = deploy.find((r) => r[0]!.startsWith('replicaset.apps/web-'))!;
      assert.deepEqual(rs.slice(1, 4), ['6', '6', '6']);

      const events = await ok(env, ['get', 'events', '--field-selector', `involvedObject.name=${pods[0].metadata.name}`]);
      assert.match(
        events,
        new RegExp(`Normal\\s+Scheduled\\s+pod/${pods[0].metadata.name}\\s+Successfully assigned default/${pods[0].metadata.name} to ${pods[0].spec.nodeName}`),
      );
      assert.match(events, /Normal\s+Pulled\s+pod\/\S+\s+Successfully pulled image "nginx" in \S+ \(\S+ including waiting\)\. Image size: \d+ bytes\./);
      assert.match(events, /Normal\s+Created\s+pod\/\S+\s+Created container nginx/);
      assert.match(events, /Normal\s+Started\s+pod\/\S+\s+Started container nginx/);

      // kube-system: CoreDNS runs on the pod network, kube-proxy on the host's.
      const dns = await waitReady(env, ['-n', 'kube-system', '-l', 'k8s-app=kube-dns'], 2);
      for (const p of dns) assert.ok(inside(nodes.get(p.spec.nodeName).spec.podCIDR, p.status.podIP));
      const proxies = await waitReady(env, ['-n', 'kube-system', '-l', 'component=kube-proxy'], 3);
      for (const p of proxies) assert.equal(p.status.podIP, p.status.hostIP);
      const ds = rows(await ok(env, ['get', 'ds', '-n', 'kube-system', 'kube-proxy']));
      assert.deepEqual(ds[1]!.slice(0, 6), ['kube-proxy', '3', '3', '3', '3', '3']);
      assert.match(
        await ok(env, ['rollout', 'status', 'ds/kube-proxy', '-n', 'kube-system', '--timeout=30s']),
        /daemon set "kube-proxy" successfully rolled out/,
      );
      const kubeDns = await getJson(env, ['get', 'endpoints', '-n', 'kube-system', 'kube-dns']);
      assert.deepEqual(kubeDns.subsets[0].addresses.map((a: Obj) => a.ip).sort(), dns.map((p) => p.status.podIP).sort());

      // Services: a ClusterIP from the service CIDR; the apiserver's refusals for a foreign or taken one.
      assert.match(await ok(env, ['expose', 'deployment', 'web', '--port=80']), /service\/web exposed/);
      const svc = await getJson(env, ['get', 'svc', 'web']);
      assert.ok(inside('10.0.0.0/16', svc.spec.clusterIP) && !['10.0.0.1', '10.0.0.10', '10.0.0.0'].includes(svc.spec.clusterIP), svc.spec.clusterIP);
      await eventually(async () => ((await getJson(env, ['get', 'endpoints', 'web'])).subsets?.[0]?.addresses ?? []).length === 6, 10_000, 'web endpoints');
      const outside = await kubectl(env, ['create', 'service', 'clusterip', 'x', '--tcp=80:80', '--clusterip=10.9.0.5']);
      assert.equal(outside.code, 1);
      // kubectl's `create service` wraps the apiserver's 422 in its own words.
      assert.equal(
        outside.stderr.trim(),
        'error: failed to create ClusterIP service: Service "x" is invalid: spec.clusterIPs: Invalid value: ["10.9.0.5"]: failed to allocate IP 10.9.0.5: the provided IP (10.9.0.5) is not in the valid range. The range of valid IPs is 10.0.0.0/16',
      );
      const taken = await kubectl(env, ['create', 'service', 'clusterip', 'y', '--tcp=80:80', `--clusterip=${svc.spec.clusterIP}`]);
      assert.match(
        taken.stderr,
        new RegExp(
          `spec.clusterIPs: Invalid value: \\["${svc.spec.clusterIP.replace(/\./g, '\\.')}"\\]: failed to allocate IP ${svc.spec.clusterIP.replace(/\./g, '\\.')}: provided IP is already allocated`,
        ),
      );
      const fixed = await created(env, ['create', 'service', 'clusterip', 'z', '--tcp=80:80', '--clusterip=10.0.7.7']);
      assert.match(fixed, /service\/z created/);

      // Scale down and up, then delete: the dependants go with their owner.
      assert.match(await ok(env, ['scale', 'deployment', 'web', '--replicas=2']), /deployment\.apps\/web scaled/);
      await eventually(async () => (await getJson(env, ['get', 'pods', '-l', 'app=web'])).items.length === 2, 20_000, 'scaled to 2');
      assert.match(await ok(env, ['rollout', 'status', 'deployment/web', '--timeout=30s']), /successfully rolled out/);
      assert.deepEqual(rows(await ok(env, ['get', 'deploy', 'web']))[1]!.slice(0, 4), ['web', '2/2', '2', '2']);
      assert.match(await ok(env, ['delete', 'deployment', 'web']), /deployment\.apps "web" deleted/);
      await eventually(async () => (await getJson(env, ['get', 'pods,rs', '-l', 'app=web'])).items.length === 0, 20_000, 'pods and replica sets of web gone');
    }));

  test("Azure CNI: pods take their node NIC's secondary IPs; host-network pods the node IP", () =>
    withCluster({ networkPlugin: 'azure' }, async (env) => {
      await created(env, ['create', 'deployment', 'api', '--image=mcr.microsoft.com/azuredocs/aks-helloworld:v1', '--replicas=4']);
      const pods = await waitReady(env, ['-l', 'app=api'], 4);
      const records = new Map(nodeRecords(env).map((n) => [n.name, n]));
      const ips = pods.map((p) => p.status.podIP);
      assert.equal(new Set(ips).size, 4);
      for (const p of pods) {
        const rec = records.get(p.spec.nodeName)!;
        assert.ok(rec.secondaryIps?.includes(p.status.podIP), `${p.status.podIP} among ${p.spec.nodeName}'s secondary IPs`);
        assert.equal(p.status.hostIP, rec.ip);
      }
      for (const sel of ['component=kube-proxy', 'k8s-app=azure-ip-masq-agent', 'k8s-app=cloud-node-manager']) {
        const hostPods = await waitReady(env, ['-n', 'kube-system', '-l', sel], 3);
        for (const p of hostPods) assert.equal(p.status.podIP, records.get(p.spec.nodeName)!.ip);
      }
      const tunnel = await waitReady(env, ['-n', 'kube-system', '-l', 'app=konnectivity-agent'], 2);
      for (const p of tunnel) assert.equal(p.status.podIP, records.get(p.spec.nodeName)!.ip);
      const dns = await waitReady(env, ['-n', 'kube-system', '-l', 'k8s-app=kube-dns'], 2);
      for (const p of dns) assert.ok(records.get(p.spec.nodeName)!.secondaryIps?.includes(p.status.podIP));
    }));

  test('BYO CNI: CoreDNS Pending with FailedScheduling until a CNI is installed, then Running', () =>
    withCluster({ networkPlugin: 'none' }, async (env) => {
      const message =
        '0/3 nodes are available: 3 node(s) had untolerated taint {node.kubernetes.io/not-ready: }. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.';
      await eventually(async () => (await ok(env, ['get', 'events', '-n', 'kube-system'])).includes(message), 20_000, 'FailedScheduling for coredns');
      const events = rows(await ok(env, ['get', 'events', '-n', 'kube-system', '--field-selector', 'reason=FailedScheduling']));
      assert.deepEqual(events[0], ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
      const coredns = events.filter((r) => /^pod\/coredns-(?!autoscaler)/.test(r[3]!));
      assert.equal(coredns.length, 2);
      for (const r of coredns) assert.deepEqual(r.slice(1, 3).concat(r.slice(4)), ['Warning', 'FailedScheduling', message]);
      const pending = await getJson(env, ['get', 'pods', '-n', 'kube-system', '-l', 'k8s-app=kube-dns']);
      for (const p of pending.items) {
        assert.equal(p.status.phase, 'Pending');
        assert.deepEqual(
          p.status.conditions.map((c: Obj) => [c.type, c.status, c.reason, c.message]),
          [['PodScheduled', 'False', 'Unschedulable', message]],
        );
      }
      // Host-network node agents run regardless; the table shows Pending and Running side by side.
      await waitReady(env, ['-n', 'kube-system', '-l', 'component=kube-proxy'], 3);
      const table = rows(await ok(env, ['get', 'pods', '-n', 'kube-system']));
      assert.ok(
        table.some((r) => /^coredns-/.test(r[0]!) && r[1] === '0/1' && r[2] === 'Pending'),
        JSON.stringify(table),
      );
      assert.ok(table.some((r) => /^kube-proxy-/.test(r[0]!) && r[1] === '1/1' && r[2] === 'Running'));

      const conflist = join(env.scratch, '10-bridge.conflist');
      writeFileSync(
        conflist,
        JSON.stringify({
          cniVersion: '0.4.0',
          name: 'mynet',
          plugins: [{ type: 'bridge', bridge: 'cni0', isGateway: true, ipMasq: true, ipam: { type: 'host-local', ranges: [[{ subnet: '10.85.0.0/16' }]] } }],
        }),
      );
      const installed = await cniInstall(env, conflist);
      assert.equal(installed.code, 0, installed.stderr);
      const dns = await waitReady(env, ['-n', 'kube-system', '-l', 'k8s-app=kube-dns'], 2);
      for (const p of dns) {
        assert.equal(p.status.phase, 'Running');
        assert.ok(inside('10.85.0.0/16', p.status.podIP), p.status.podIP);
      }
      const scheduled = await ok(env, ['get', 'events', '-n', 'kube-system', '--field-selector', `involvedObject.name=${dns[0].metadata.name}`]);
      assert.match(scheduled, /Normal\s+Scheduled\s+/);
      assert.match(scheduled, /Container image "mcr\.microsoft\.com\/oss\/kubernetes\/coredns:v[\d.-]+" already present on machine/);
    }));

  test('scheduler: a nodeSelector nothing matches stays Pending; maxPods caps every node, host-network pods included', () =>
    withCluster(
      { networkPlugin: 'kubenet' },
      async (env) => {
        await created(env, ['run', 'picky', '--image=busybox', '--overrides={"spec":{"nodeSelector":{"disktype":"ssd"}}}']);
        const message =
          "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
        await eventually(async () => (await getJson(env, ['get', 'pod', 'picky'])).status.conditions?.[0]?.message === message, 10_000, 'picky unschedulable');
        const described = await ok(env, ['describe', 'pod', 'picky']);
        assert.match(
          described,
          /Warning\s+FailedScheduling\s+\S+\s+default-scheduler\s+0\/3 nodes are available: 3 node\(s\) didn't match Pod's node affinity\/selector\./,
        );

        // NodeResourcesFit: the node's allocatable cpu/memory, less what its pods request, must hold the pod's requests.
        await created(env, [
          'run',
          'hungry',
          '--image=busybox',
          '--overrides={"spec":{"containers":[{"name":"hungry","image":"busybox","resources":{"requests":{"cpu":"64","memory":"1Ti"}}}]}}',
        ]);
        const tooBig =
          '0/3 nodes are available: 3 Insufficient cpu, 3 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.';
        await eventually(async () => (await getJson(env, ['get', 'pod', 'hungry'])).status.conditions?.[0]?.message === tooBig, 10_000, 'hungry unschedulable');
        await created(env, [
          'run',
          'modest',
          '--image=busybox',
          '--overrides={"spec":{"containers":[{"name":"modest","image":"busybox","resources":{"limits":{"cpu":"250m","memory":"64Mi"}}}]}}',
        ]);
        await eventually(async () => Boolean((await getJson(env, ['get', 'pod', 'modest'])).spec.nodeName), 10_000, 'modest scheduled');
        await ok(env, ['delete', 'pod', 'hungry', 'modest']);

        // InterPodAffinity: required anti-affinity on the hostname spreads replicas one per node; a fourth waits.
        const spread = join(env.scratch, 'spread.json');
        const antiAffinity = {
          requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'spread' } }, topologyKey: 'kubernetes.io/hostname' }],
        };
        writeFileSync(
          spread,
          JSON.stringify({
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: 'spread' },
            spec: {
              replicas: 4,
              selector: { matchLabels: { app: 'spread' } },
              template: {
                metadata: { labels: { app: 'spread' } },
                spec: { affinity: { podAntiAffinity: antiAffinity }, containers: [{ name: 'c', image: 'nginx' }] },
              },
            },
          }),
        );
        await ok(env, ['create', '-f', spread]);
        const apart =
          "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.";
        await eventually(
          async () => {
            const items: Obj[] = (await getJson(env, ['get', 'pods', '-l', 'app=spread'])).items;
            const bound = items.filter((p) => p.spec.nodeName);
            return (
              bound.length === 3 && new Set(bound.map((p) => p.spec.nodeName)).size === 3 && items.some((p) => p.status.conditions?.[0]?.message === apart)
            );
          },
          15_000,
          'one spread replica per node and the fourth unschedulable',
        );
        // A pod that must sit beside a spread replica (podAffinity) lands on a node that has one.
        await created(env, ['run', 'buddy', '--image=busybox', `--overrides=${JSON.stringify({ spec: { affinity: { podAffinity: antiAffinity } } })}`]);
        await eventually(async () => Boolean((await getJson(env, ['get', 'pod', 'buddy'])).spec.nodeName), 10_000, 'buddy scheduled');
        // A pod whose affinity target does not exist yet waits, and follows the target once it is bound.
        const follow = {
          podAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'leader' } }, topologyKey: 'kubernetes.io/hostname' }],
          },
        };
        await created(env, ['run', 'follower', '--image=busybox', `--overrides=${JSON.stringify({ spec: { affinity: follow } })}`]);
        const alone =
          "0/3 nodes are available: 3 node(s) didn't match pod affinity rules. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
        await eventually(async () => (await getJson(env, ['get', 'pod', 'follower'])).status.conditions?.[0]?.message === alone, 10_000, 'follower waiting');
        await created(env, ['run', 'leader', '--image=busybox', '--labels=app=leader']);
        await eventually(
          async () => {
            const [f, l] = await Promise.all([getJson(env, ['get', 'pod', 'follower']), getJson(env, ['get', 'pod', 'leader'])]);
            return Boolean(l.spec.nodeName) && f.spec.nodeName === l.spec.nodeName;
          },
          10_000,
          'follower beside leader',
        );
        await ok(env, ['delete', 'deployment', 'spread']);
        await ok(env, ['delete', 'pod', 'buddy', 'follower', 'leader']);
        await eventually(async () => (await getJson(env, ['get', 'pods', '-l', 'app=spread'])).items.length === 0, 15_000, 'spread pods gone');

        // 3 nodes × maxPods 10 = 30 places; the system pods take 16 of them.
        await created(env, ['create', 'deployment', 'fill', '--image=nginx', '--replicas=20']);
        const full = '0/3 nodes are available: 3 Too many pods. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.';
        await eventually(
          async () => {
            const items: Obj[] = (await getJson(env, ['get', 'pods', '-A'])).items;
            const bound = items.filter((p) => p.spec.nodeName);
            const waiting = items.filter((p) => p.metadata.labels?.app === 'fill' && !p.spec.nodeName);
            return bound.length === 30 && waiting.length > 0 && waiting.every((p) => p.status.conditions?.[0]?.message === full);
          },
          30_000,
          'the nodes to fill up',
        );
        const all: Obj[] = (await getJson(env, ['get', 'pods', '-A'])).items;
        const perNode = new Map<string, number>();
        for (const p of all) if (p.spec.nodeName) perNode.set(p.spec.nodeName, (perNode.get(p.spec.nodeName) ?? 0) + 1);
        assert.deepEqual([...perNode.values()], [10, 10, 10]);
        // A freed place is taken by a waiting pod.
        const victim = all.find((p) => p.metadata.labels?.app === 'fill' && p.spec.nodeName)!;
        await ok(env, ['delete', 'pod', victim.metadata.name]);
        await eventually(
          async () => (await getJson(env, ['get', 'pods', '-l', 'app=fill'])).items.filter((p: Obj) => p.spec.nodeName).length === 14,
          20_000,
          'a waiting pod to take the freed place',
        );
      },
      { maxPods: 10 },
    ));

  test("a restart keeps the workloads: no duplicate pods, the same addresses, and new pods never reuse a running one's", () =>
    withCluster({ networkPlugin: 'kubenet' }, async (env) => {
      await created(env, ['create', 'deployment', 'web', '--image=nginx', '--replicas=4']);
      const before = await waitReady(env, ['-l', 'app=web'], 4);
      const system = (await getJson(env, ['get', 'pods', '-n', 'kube-system'])).items.map((p: Obj) => p.metadata.name).sort();
      await restart(env);
      // Give the controllers a moment to (wrongly) act on anything restored.
      await new Promise((r) => setTimeout(r, 1500));
      const after = (await getJson(env, ['get', 'pods', '-l', 'app=web'])).items;
      assert.deepEqual(
        after.map((p: Obj) => [p.metadata.name, p.status.podIP, p.status.phase]).sort(),
        before.map((p) => [p.metadata.name, p.status.podIP, 'Running']).sort(),
      );
      assert.deepEqual((await getJson(env, ['get', 'pods', '-n', 'kube-system'])).items.map((p: Obj) => p.metadata.name).sort(), system);
      assert.equal((await getJson(env, ['get', 'rs', '-l', 'app=web'])).items.length, 1);
      assert.match(await ok(env, ['scale', 'deployment', 'web', '--replicas=12']), /scaled/);
      const grown = await waitReady(env, ['-l', 'app=web'], 12);
      const ips = grown.map((p) => p.status.podIP);
      assert.equal(new Set(ips).size, 12, `distinct after restart: ${ips}`);
    }));
});
