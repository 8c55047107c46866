// flannel on a BYO CNI cluster as its users install it: `kubectl apply -f kube-flannel.yml` (v0.28.9, unmodified;
// test/fixtures/flannel/SOURCE.md), with the real kubectl. AKS gives BYO CNI nodes no podCIDR, so flanneld
// (--kube-subnet-mgr) crash-loops with `Error registering network: failed to acquire lease: node "…" pod cidr not
// assigned`. Its init containers ran first, so the conflist is in every node's conf dir and the nodes turn Ready
// (the runtime's network status follows the conf dir), but no pod gets an address: the flannel plugin finds no
// subnet.env and says so in the pod's events. Once the user patches a podCIDR onto every node, flanneld starts,
// writes subnet.env and annotates its node; pods get addresses from their node's podCIDR.
// `kubectl delete -f` leaves what flannel leaves: the conflist and the plugin on the node.
//
// Also here: the Node API rules this needs (a podCIDR may be set once, from "" to valid; nodes/status writes
// metadata), which hold without the fixture.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { nodeConfDir, nodesDir } from '../../src/cluster/nodefs/paths.js';
import { Cidr, IpAddress } from '../../src/net/ip.js';
import { eventually, HAVE_KUBECTL, kubectl, withCluster, type ClusterEnv } from './harness.js';
import { thirdPartyFile } from '../third-party.js';

const FIXTURE = thirdPartyFile('flannel', 'v0.28.9', 'kube-flannel.yml');
const FIXTURE_SHA256 = 'e875824be2f552b45711dbda91af81b17eb961d00025d914d9fef18fad8f09c0';
const skip = HAVE_KUBECTL ? false : 'no /usr/bin/kubectl on this machine';
const skipFixture = skip || (existsSync(FIXTURE) ? false : `kube-flannel.yml is not in ${FIXTURE} (test/fixtures/flannel/SOURCE.md says how to copy it in)`);

type Obj = any;

async function json(env: ClusterEnv, args: string[]): Promise<Obj> {
  const r = await kubectl(env, [...args, '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

async function nodeNames(env: ClusterEnv): Promise<string[]> {
  return ((await json(env, ['get', 'nodes'])).items as Obj[]).map((n) => n.metadata.name as string).sort();
}

function podCidrPatch(cidr: string): string {
  return JSON.stringify({ spec: { podCIDR: cidr, podCIDRs: [cidr] } });
}

describe('Node pod CIDRs and status writes (the apiserver rules flannel depends on)', { skip }, () => {
  test('a BYO CNI node takes a podCIDR once, keeps it through the kubelet rebuilding it, and refuses a change', { timeout: 120_000 }, () =>
    withCluster({ networkPlugin: 'none' }, async (env) => {
      const [first] = await nodeNames(env);
      const node = first!;
      assert.equal((await json(env, ['get', 'node', node])).spec.podCIDR, undefined, 'AKS gives a BYO CNI node no podCIDR');
      const bad = await kubectl(env, ['patch', 'node', node, '-p', podCidrPatch('10.244.0.0/33')]);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /The Node "[^"]+" is invalid: spec\.podCIDRs\[0\]: Invalid value: \[\]string\{"10\.244\.0\.0\/33"\}: must be valid CIDR/);
      const ok = await kubectl(env, ['patch', 'node', node, '-p', podCidrPatch('10.244.0.0/24')]);
      assert.equal(ok.code, 0, ok.stderr);
      // flannel writes its annotations through nodes/status: the status strategy keeps metadata.
      const annotated = await kubectl(env, ['patch', 'node', node, '--subresource=status', '-p', '{"metadata":{"annotations":{"example.com/x":"y"}}}']);
      assert.equal(annotated.code, 0, annotated.stderr);
      // The kubelet rebuilds the Node when its network turns ready (a conflist lands): what was written stays.
      writeFileSync(
        join(nodeConfDir(env.home, 'rg', 'c1', node), '10-x.conflist'),
        JSON.stringify({ cniVersion: '0.3.1', name: 'x', plugins: [{ type: 'bridge', ipam: { type: 'host-local', subnet: '10.244.0.0/24' } }] }),
      );
      await eventually(
        async () => (await json(env, ['get', 'node', node])).status.conditions.some((c: Obj) => c.type === 'Ready' && c.status === 'True'),
        20_000,
        'Ready',
      );
      const after = await json(env, ['get', 'node', node]);
      assert.equal(after.spec.podCIDR, '10.244.0.0/24');
      assert.deepEqual(after.spec.podCIDRs, ['10.244.0.0/24']);
      assert.equal(after.metadata.annotations['example.com/x'], 'y');
      const again = await kubectl(env, ['patch', 'node', node, '-p', podCidrPatch('10.244.9.0/24')]);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /The Node "[^"]+" is invalid: spec\.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid/);
    }),
  );
});

/** Every kube-flannel pod, by node. */
async function flannelPods(env: ClusterEnv): Promise<Obj[]> {
  return (await json(env, ['get', 'pods', '-n', 'kube-flannel', '-l', 'app=flannel'])).items;
}

describe('flannel v0.28.9 kube-flannel.yml on a BYO CNI cluster', { skip: skipFixture }, () => {
  test('crash-loops without pod CIDRs as on AKS, works once the nodes have them, and leaves its files on delete', { timeout: 240_000 }, () =>
    withCluster({ networkPlugin: 'none' }, async (env) => {
      assert.equal(createHash('sha256').update(readFileSync(FIXTURE)).digest('hex'), FIXTURE_SHA256, 'the fixture is the published file');
      const nodes = await nodeNames(env);
      const applied = await kubectl(env, ['apply', '-f', FIXTURE]);
      assert.equal(applied.code, 0, applied.stderr);

      // kube-flannel: CrashLoopBackOff with flanneld's own words in its log.
      await eventually(
        async () => {
          const pods = await flannelPods(env);
          return (
            pods.length === nodes.length &&
            pods.every((p) => (p.status.containerStatuses ?? []).some((c: Obj) => c.state?.waiting?.reason === 'CrashLoopBackOff'))
          );
        },
        90_000,
        'every kube-flannel pod in CrashLoopBackOff',
      );
      const pods = await flannelPods(env);
      for (const p of pods) {
        const logs = await kubectl(env, ['logs', '-n', 'kube-flannel', p.metadata.name, '-c', 'kube-flannel', '--previous']);
        assert.match(
          logs.stdout,
          new RegExp(
            `E\\d{4} [0-9:.]+ +1 main\\.go:384\\] Error registering network: failed to acquire lease: node "${p.spec.nodeName}" pod cidr not assigned\\n`,
          ),
          logs.stdout + logs.stderr,
        );
        const listed = await kubectl(env, ['get', 'pod', '-n', 'kube-flannel', p.metadata.name]);
        assert.match(listed.stdout, /CrashLoopBackOff/);
      }
      const described = await kubectl(env, ['describe', 'pod', '-n', 'kube-flannel', pods[0].metadata.name]);
      assert.match(described.stdout, /Reason:\s+CrashLoopBackOff/);
      assert.match(described.stdout, /Exit Code:\s+1/);
      // The conflist and the plugin are on every node (install-cni ran before the agent).
      for (const n of nodes) {
        assert.ok(existsSync(join(nodeConfDir(env.home, 'rg', 'c1', n), '10-flannel.conflist')), `${n}: 10-flannel.conflist`);
        assert.equal(existsSync(join(nodesDir(env.home, 'rg', 'c1'), n, 'run', 'flannel', 'subnet.env')), false);
      }

      // coredns cannot start: the plugin has no subnet.env, in the words of the real one.
      await eventually(
        async () => {
          const events = (await json(env, ['get', 'events', '-n', 'kube-system'])).items as Obj[];
          return events.some(
            (e) =>
              e.reason === 'FailedCreatePodSandBox' &&
              /plugin type="flannel" failed \(add\): failed to load flannel 'subnet\.env' file: open \/run\/flannel\/subnet\.env: no such file or directory\. Check the flannel pod log for this node\./.test(
                e.message,
              ),
          );
        },
        60_000,
        "coredns's sandbox refused by the flannel plugin",
      );

      // The user's step: a pod CIDR for every node, inside net-conf.json's Network.
      const cidrs = new Map(nodes.map((n, i) => [n, `10.244.${i}.0/24`]));
      for (const [n, cidr] of cidrs) {
        const r = await kubectl(env, ['patch', 'node', n, '-p', podCidrPatch(cidr)]);
        assert.equal(r.code, 0, r.stderr);
      }
      // As a user does rather than wait out the crash-loop back-off: the DaemonSet starts them again at once.
      const restarted = await kubectl(env, ['delete', 'pod', '-n', 'kube-flannel', '-l', 'app=flannel', '--wait=false']);
      assert.equal(restarted.code, 0, restarted.stderr);
      await eventually(
        async () => {
          const now = await flannelPods(env);
          return (
            now.length === nodes.length &&
            now.every((p) => p.status.phase === 'Running' && p.status.conditions?.some((c: Obj) => c.type === 'Ready' && c.status === 'True'))
          );
        },
        120_000,
        'every kube-flannel pod Running and Ready',
      );
      const wait = await kubectl(env, ['wait', '--for=condition=Ready', 'node', '--all', '--timeout=60s'], 90_000);
      assert.equal(wait.code, 0, wait.stderr);
      for (const n of nodes) {
        const cidr = Cidr.parse(cidrs.get(n)!);
        const env_ = readFileSync(join(nodesDir(env.home, 'rg', 'c1'), n, 'run', 'flannel', 'subnet.env'), 'utf8');
        assert.equal(env_, `FLANNEL_NETWORK=10.244.0.0/16\nFLANNEL_SUBNET=${cidr.addressAt(1)}/24\nFLANNEL_MTU=1450\nFLANNEL_IPMASQ=true\n`);
        const node = await json(env, ['get', 'node', n]);
        const a = node.metadata.annotations;
        assert.equal(a['flannel.alpha.coreos.com/backend-type'], 'vxlan');
        assert.match(a['flannel.alpha.coreos.com/backend-data'], /^\{"VNI":1,"VtepMAC":"([0-9a-f]{2}:){5}[0-9a-f]{2}"\}$/);
        assert.equal(a['flannel.alpha.coreos.com/kube-subnet-manager'], 'true');
        assert.equal(a['flannel.alpha.coreos.com/public-ip'], node.status.addresses.find((x: Obj) => x.type === 'InternalIP').address);
        const unavailable = node.status.conditions.find((c: Obj) => c.type === 'NetworkUnavailable');
        assert.equal(unavailable?.reason, 'FlannelIsUp');
        assert.equal(unavailable?.status, 'False');
      }

      // coredns and a 6-replica Deployment get addresses from their node's podCIDR, none twice.
      const ready = await kubectl(env, ['wait', '--for=condition=Ready', 'pod', '-n', 'kube-system', '-l', 'k8s-app=kube-dns', '--timeout=90s'], 120_000);
      assert.equal(ready.code, 0, ready.stderr);
      const created = await kubectl(env, ['create', 'deployment', 'web', '--image=nginx', '--replicas=6']);
      assert.equal(created.code, 0, created.stderr);
      const rolled = await kubectl(env, ['rollout', 'status', 'deployment/web', '--timeout=90s'], 120_000);
      assert.equal(rolled.code, 0, rolled.stderr);
      const podNet = [
        ...(await json(env, ['get', 'pods', '-l', 'app=web'])).items,
        ...(await json(env, ['get', 'pods', '-n', 'kube-system', '-l', 'k8s-app=kube-dns'])).items,
      ] as Obj[];
      assert.equal(podNet.filter((p) => p.metadata.labels.app === 'web' && p.status.phase === 'Running').length, 6);
      const ips = podNet.map((p) => p.status.podIP as string);
      assert.equal(new Set(ips).size, ips.length, `no address twice: ${ips.join(' ')}`);
      for (const p of podNet)
        assert.ok(Cidr.parse(cidrs.get(p.spec.nodeName)!).contains(IpAddress.parse(p.status.podIP)), `${p.metadata.name} ${p.status.podIP}`);

      // Uninstall: flannel has no cleanup; its conflist and plugin stay, so the nodes stay Ready.
      const deleted = await kubectl(env, ['delete', '-f', FIXTURE, '--wait=true'], 120_000);
      assert.equal(deleted.code, 0, deleted.stderr);
      for (const n of nodes) {
        assert.ok(existsSync(join(nodeConfDir(env.home, 'rg', 'c1', n), '10-flannel.conflist')), `${n}: the conflist stays`);
        assert.ok(existsSync(join(nodesDir(env.home, 'rg', 'c1'), n, 'opt', 'cni', 'bin', 'flannel')), `${n}: the plugin stays`);
        assert.ok(existsSync(join(nodesDir(env.home, 'rg', 'c1'), n, 'run', 'flannel', 'subnet.env')), `${n}: subnet.env stays`);
      }
      const still = await kubectl(env, ['wait', '--for=condition=Ready', 'node', '--all', '--timeout=10s'], 30_000);
      assert.equal(still.code, 0, still.stderr);
    }),
  );
});
