// Issue 25's crash-and-restart test on flannel's kube-flannel.yml (restart-harness.ts has the suite): host-local
// keeps the pods' addresses in the nodes' /var/lib/cni, flanneld programs flannel.1 again, and the nodes' pod CIDRs
// (patched by the user, as AKS gives BYO CNI nodes none) and flannel's annotations stay — which needs node writes
// persisted (branch h/nodes, issue 25: without it flanneld finds no pod CIDR after the restart and pod → pod
// across nodes fails). Root only; skipped without
// the fixture (test/fixtures/flannel/SOURCE.md).
import { existsSync } from 'node:fs';
import { ByoCniWorld, byoSkipReason, eventually } from './byo-cni-harness.js';
import { restartSuite } from './restart-harness.js';
import { thirdPartyFile } from '../third-party.js';

type Obj = any;
const FIXTURE = thirdPartyFile('flannel', 'v0.28.9', 'kube-flannel.yml');

restartSuite(
  'flannel (kube-flannel.yml): pods, Services and DNS come back after a restart and after a SIGKILL (aksemu start --dataplane netns)',
  {
    cluster: 'fl1',
    world: () => new ByoCniWorld(),
    async setUp(world) {
      await world.setUp({ name: 'fl1' });
      for (const [i, n] of (await world.nodeNames()).entries()) {
        const cidr = `10.244.${i}.0/24`;
        await world.kubectlOk(['patch', 'node', n, '-p', JSON.stringify({ spec: { podCIDR: cidr, podCIDRs: [cidr] } })]);
      }
      await world.kubectlOk(['apply', '-f', FIXTURE]);
      await eventually(
        async () => {
          const ds = (await world.json(['get', 'pods', '-n', 'kube-flannel', '-l', 'app=flannel'])).items as Obj[];
          return ds.length === 2 && ds.every((p) => p.status.conditions?.some((c: Obj) => c.type === 'Ready' && c.status === 'True'));
        },
        120_000,
        'kube-flannel pods Ready',
      );
      await world.waitNodesReady();
    },
  },
  byoSkipReason() || (existsSync(FIXTURE) ? false : `kube-flannel.yml is not in ${FIXTURE} (test/fixtures/flannel/SOURCE.md says how to copy it in)`),
);
