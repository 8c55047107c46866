// Issue 25's crash-and-restart test on Calico's single manifest, calico.yaml (restart-harness.ts has the suite), with
// VXLAN for IPIP as Calico's docs say for Azure: calico-ipam keeps the pods' addresses in its IPAMBlocks, calico-node programs its tunnels again.
// Root only; skipped without the manifest (test/fixtures/calico/SOURCE.md).
import { readFileSync } from 'node:fs';
import { calicoSkip, CALICO_MANIFEST } from '../cluster/calico-fixture.js';
import { ByoCniWorld, byoSkipReason } from './byo-cni-harness.js';
import { restartSuite } from './restart-harness.js';

/** calico.yaml edited as for a VXLAN-only cluster (docs.tigera.io, "Customize the manifests"): bird off, pool VXLAN. */
function onAzure(manifest: string): string {
  const edits: Array<[string | RegExp, string]> = [
    ['calico_backend: "bird"', 'calico_backend: "vxlan"'],
    [/(- name: CALICO_IPV4POOL_IPIP\n\s+value: )"Always"/, '$1"Never"'],
    [/(- name: CALICO_IPV4POOL_VXLAN\n\s+value: )"Never"/, '$1"Always"'],
  ];
  return edits.reduce((text, [from, to]) => {
    const next = text.replace(from, to);
    if (next === text) throw new Error(`calico.yaml has no ${String(from)} for this test to edit`);
    return next;
  }, manifest);
}

restartSuite(
  'Calico (calico.yaml): pods, Services and DNS come back after a restart and after a SIGKILL (aksemu start --dataplane netns)',
  {
    cluster: 'byo',
    world: () => new ByoCniWorld(),
    async setUp(world) {
      // calico.yaml's pool is 192.168.0.0/16 unless CALICO_IPV4POOL_CIDR is set: the cluster is made on it.
      await world.setUp({ name: 'byo', podCidr: '192.168.0.0/16' });
      // As Calico's docs say for Azure, whose fabric drops IP-in-IP: VXLAN instead of calico.yaml's default IPIP.
      await world.create('calico.yaml', onAzure(readFileSync(CALICO_MANIFEST, 'utf8')));
      await world.kubectlOk(['-n', 'kube-system', 'rollout', 'status', 'daemonset/calico-node', '--timeout=90s']);
      await world.waitNodesReady();
    },
  },
  byoSkipReason() || calicoSkip,
);
