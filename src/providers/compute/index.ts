// Microsoft.Compute: virtual machines only, as test hosts on a subnet (their NICs come from
// Microsoft.Network). Deleting a resource group takes its VMs with its keys; they hold nothing elsewhere.
import type { Provider } from '../../arm/provider.js';
import { NAMESPACE } from './models.js';
import { virtualMachineOperationKinds, virtualMachineRoutes } from './virtualMachines.js';

/** Newest first; az 2.45 sends 2022-11-01. */
const COMPUTE_API_VERSIONS = [
  '2024-07-01',
  '2024-03-01',
  '2023-09-01',
  '2023-07-01',
  '2023-03-01',
  '2022-11-01',
  '2022-08-01',
  '2022-03-01',
  '2021-11-01',
  '2021-07-01',
] as const;

export function computeProvider(): Provider {
  return {
    namespace: NAMESPACE,
    apiVersions: COMPUTE_API_VERSIONS,
    routes: virtualMachineRoutes,
    operationKinds: virtualMachineOperationKinds,
  };
}
