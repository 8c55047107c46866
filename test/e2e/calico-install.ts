// Installing Calico on a BYO CNI cluster of the netns data plane as Calico's AKS page tells users to
// (https://docs.tigera.io/calico/latest/getting-started/kubernetes/managed-public-cloud/aks, "Bring your own CNI",
// Operator tab): the operator's unmodified manifests (test/fixtures/calico/SOURCE.md), then the Installation
// (kubernetesProvider AKS, Calico CNI, BGP off, one VXLAN pool on the pod CIDR). Shared by the end-to-end tests that
// need Calico running (dataplane-calico-operator, services-calico).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { aksInstallation, OPERATOR_DIR, operatorSkipReason } from '../cluster/calico-operator-fixture.js';
import { type DataplaneWorld, eventually, skipReason } from './dataplane-harness.js';

/** Why Calico cannot be installed on the netns data plane here (no root or tools, no manifests), or false. */
export function calicoSkipReason(): string | false {
  return skipReason() || operatorSkipReason();
}

/** Creates the operator and the Installation, and waits until TigeraStatus calico is Available and every node Ready. */
export async function installCalicoOperator(world: DataplaneWorld, podCidr: string): Promise<void> {
  await world.kubectlOk(['create', '-f', join(OPERATOR_DIR, 'operator-crds.yaml')]);
  await world.kubectlOk(['wait', '--for=condition=established', '--all', 'crd', '--timeout=60s']);
  await world.create('tigera-operator.yaml', readFileSync(join(OPERATOR_DIR, 'tigera-operator.yaml'), 'utf8'));
  await world.create('installation.yaml', aksInstallation(podCidr, false));
  // kubectl wait fails at once on an object not yet there: the operator creates TigeraStatus calico first.
  await eventually(async () => (await world.kubectl(['get', 'tigerastatus', 'calico'])).code === 0, 60_000, 'TigeraStatus calico');
  await world.kubectlOk(['wait', '--for=condition=Available', 'tigerastatus/calico', '--timeout=120s']);
  await world.kubectlOk(['wait', '--for=condition=Ready', 'node', '--all', '--timeout=60s']);
}
