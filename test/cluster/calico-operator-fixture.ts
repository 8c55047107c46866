// What the Calico operator tests share: the directory of Calico's v3.32.1 operator manifests (test/fixtures/calico/
// SOURCE.md), why a test cannot run without them or without calico's catalogue entries, and the Installation of
// Calico's AKS page (https://docs.tigera.io/calico/latest/getting-started/kubernetes/managed-public-cloud/aks,
// "Bring your own CNI", Operator tab): kubernetesProvider AKS, Calico CNI, BGP disabled, one VXLAN pool.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { imageSpecOf } from '../../src/cluster/images/catalogue.js';
import { thirdPartyFile } from '../third-party.js';

export const OPERATOR_DIR = `${thirdPartyFile('calico', 'v3.32.1')}/`;

/** Why the operator install cannot run here (manifests or calico's entries missing), or false. */
export function operatorSkipReason(): string | false {
  if (['operator-crds.yaml', 'tigera-operator.yaml'].some((f) => !existsSync(join(OPERATOR_DIR, f))))
    return `Calico v3.32.1 manifests not in ${OPERATOR_DIR}: put them there as test/fixtures/calico/SOURCE.md says (tools/copy-calico-manifests.mjs)`;
  if (!imageSpecOf('quay.io/calico/node:v3.32.1') || !imageSpecOf('quay.io/calico/cni:v3.32.1'))
    return 'the CNI agent catalogue has no entries for calico/node and calico/cni yet (src/cluster/images/calico.ts)';
  return false;
}

/** The Installation (and, when asked, the APIServer) of Calico's AKS BYO CNI instructions on a pod CIDR. */
export function aksInstallation(podCidr: string, apiServer = true): string {
  const installation = `kind: Installation
apiVersion: operator.tigera.io/v1
metadata:
  name: default
spec:
  kubernetesProvider: AKS
  cni:
    type: Calico
  calicoNetwork:
    bgp: Disabled
    ipPools:
     - cidr: ${podCidr}
       encapsulation: VXLAN
`;
  return apiServer ? `${installation}---\napiVersion: operator.tigera.io/v1\nkind: APIServer\nmetadata:\n   name: default\nspec: {}\n` : installation;
}
