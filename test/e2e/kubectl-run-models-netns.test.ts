// Issue 27's first Must show on the network models other than kubenet (kubectl-attach-netns.test.ts has kubenet
// with Calico's policy): Azure CNI node subnet and Azure CNI Overlay, each with Azure network policy (NPM, which
// aksemu enforces on every node: docs/dataplane.md §13.1), and BYO CNI (`--network-plugin none`) with Calico
// installed from its own unmodified operator manifests (calico-install.ts; skipped with the reason when the
// fixture of test/fixtures/calico/SOURCE.md is missing), calico-node enforcing. One cluster per model, with the real
// kubectl: `kubectl run --rm -i --restart=Never` of busybox's wget, curlimages/curl's curl and busybox's nslookup
// prints the backend's page and the Service's address; `kubectl logs` of a wget pod that stays; after a deny-all
// ingress policy on the backends busybox's `wget: download timed out` with kubectl's exit code 1, and curl's
// timeout (28). busybox's nslookup is bind's, with the Warning that says so (docs/clients.md §5.20). Root only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubectlResult } from '../cluster/harness.js';
import { CALICO_OPERATOR } from './byo-cnis.js';
import { DataplaneWorld, eventually, skipReason } from './dataplane-harness.js';

type Obj = any;
const PAGE = /Served by aksemu for pod web-[01]\./;

interface Model {
  title: string;
  skip: string | false;
  world(): DataplaneWorld;
  /** Makes the cluster, with its pod network working, and the backends behind `web`; returns web's ClusterIP. */
  setUp(world: DataplaneWorld): Promise<string>;
}

const MODELS: Model[] = [
  {
    title: 'Azure CNI (node subnet) with Azure network policy',
    skip: skipReason(),
    world: () => new DataplaneWorld(),
    setUp: (world) => world.startWebCluster('run-az', ['--network-plugin', 'azure', '--network-policy', 'azure']),
  },
  {
    title: 'Azure CNI Overlay with Azure network policy',
    skip: skipReason(),
    world: () => new DataplaneWorld(),
    setUp: (world) => world.startWebCluster('run-ov', ['--network-plugin', 'azure', '--network-plugin-mode', 'overlay', '--network-policy', 'azure']),
  },
  {
    title: 'BYO CNI with Calico (operator manifests)',
    skip: CALICO_OPERATOR.skip,
    world: CALICO_OPERATOR.world,
    async setUp(world) {
      await CALICO_OPERATOR.setUp(world as ReturnType<typeof CALICO_OPERATOR.world>);
      return world.webBackends();
    },
  },
];

for (const model of MODELS) {
  describe(`kubectl run --rm -i with wget, curl and nslookup on ${model.title} (netns data plane)`, { skip: model.skip }, () => {
    let world: DataplaneWorld;
    let clusterIp = '';
    let n = 0;

    /** `kubectl run t-N --rm -i --restart=Never --image=IMAGE -- ARGS…`, with EOF on its stdin. */
    const runRm = (image: string, args: string[]): Promise<KubectlResult> =>
      world.kubectl(['run', `t-${++n}`, '--rm', '-i', '--restart=Never', `--image=${image}`, '--', ...args]);
    const wget = () => runRm('busybox', ['wget', '-qO-', '--timeout=2', 'http://web']);
    const curl = () => runRm('curlimages/curl', ['curl', '-sS', '--max-time', '2', 'http://web']);

    before(async () => {
      world = model.world();
      clusterIp = await model.setUp(world);
    });
    after(async () => {
      await world?.close();
      world?.assertClean();
    });

    it('busybox wget -qO- http://web prints the page, kubectl exits 0 and deletes the pod', async () => {
      const r = await wget();
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, PAGE);
      assert.match(r.stdout, new RegExp(`pod "t-${n}" deleted`));
    });

    it('curlimages/curl -- curl -sS http://web prints the page', async () => {
      const r = await curl();
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, PAGE);
    });

    it("busybox nslookup web answers with the Service's address", async () => {
      const r = await runRm('busybox', ['nslookup', 'web']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`Name:\\s+web\\.default\\.svc\\.cluster\\.local\\nAddress: ${clusterIp.replaceAll('.', '\\.')}\\n`));
      // busybox's nslookup runs as the host's (bind's) build, and the pod's events say so (docs/clients.md §5.16).
      const warnings = await world.json(['get', 'events', '--field-selector', `involvedObject.name=t-${n},type=Warning`]);
      assert.ok(
        warnings.items.some((e: Obj) => e.reason === 'ToolBuildNotEmulated' && e.message.startsWith("aksemu runs the host's nslookup (bind)")),
        JSON.stringify(warnings.items.map((e: Obj) => e.message)),
      );
    });

    it('kubectl logs of a wget pod that is not removed: the page; the pod Succeeded', async () => {
      await world.kubectlOk(['run', 'fetch', '--restart=Never', '--image=busybox', '--', 'wget', '-qO-', '--timeout=2', 'http://web']);
      let pod: Obj;
      await eventually(
        async () => {
          pod = await world.json(['get', 'pod', 'fetch']);
          return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
        },
        60_000,
        'pod fetch to end',
      );
      const log = await world.kubectlOk(['logs', 'fetch']);
      assert.equal(pod.status.phase, 'Succeeded', log);
      assert.match(log, PAGE);
    });

    it('after a deny-all ingress policy on the backends: wget: download timed out and exit 1; curl exits 28', async () => {
      await world.create(
        'deny.json',
        JSON.stringify({
          apiVersion: 'networking.k8s.io/v1',
          kind: 'NetworkPolicy',
          metadata: { name: 'web-deny-all' },
          spec: { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'] },
        }),
      );
      // The policy reaches the nodes asynchronously: the first client that times out shows it is there.
      let last: KubectlResult | undefined;
      await eventually(
        async () => {
          last = await wget();
          return last.code !== 0;
        },
        30_000,
        'the deny-all policy to block web',
      );
      assert.equal(last!.code, 1, `${last!.stdout}\n${last!.stderr}`);
      assert.match(last!.stderr, /^wget: download timed out$/m);
      assert.doesNotMatch(last!.stdout, PAGE);
      assert.match(last!.stderr, /pod default\/t-\d+ terminated \(Error\)/);

      const r = await curl();
      assert.equal(r.code, 28, `${r.stdout}\n${r.stderr}`);
      assert.match(r.stderr, /^curl: \(28\) .*(timed out|Timeout was reached)/m);
    });
  });
}
