// Microsoft.Compute/virtualMachines as the store keeps them: ARM's GET shape, minus the instance view
// (computed on read) and minus every secret (adminPassword is checked, never kept).
import type { SubResource } from '../network/resource.js';

export const NAMESPACE = 'Microsoft.Compute';
export const VM_TYPE = 'Microsoft.Compute/virtualMachines';

export type VmProvisioningState = 'Creating' | 'Updating' | 'Succeeded' | 'Deleting' | 'Failed';

export interface ImageReference {
  publisher: string;
  offer: string;
  sku: string;
  version: string;
}

interface OsDisk {
  osType: 'Linux' | 'Windows';
  name: string;
  createOption: 'FromImage';
  caching: string;
  managedDisk: { storageAccountType: string };
  deleteOption: string;
  diskSizeGB: number;
}

interface LinuxConfiguration {
  disablePasswordAuthentication: boolean;
  ssh?: { publicKeys: Array<{ path: string; keyData: string }> };
  provisionVMAgent: boolean;
}

export interface NetworkInterfaceReference extends SubResource {
  properties?: { primary?: boolean; deleteOption?: string };
}

interface VirtualMachineProperties {
  vmId: string;
  hardwareProfile: { vmSize: string };
  storageProfile: { imageReference: ImageReference; osDisk: OsDisk; dataDisks: unknown[] };
  osProfile: {
    computerName: string;
    adminUsername: string;
    linuxConfiguration?: LinuxConfiguration;
    secrets: unknown[];
    allowExtensionOperations: boolean;
    requireGuestProvisionSignal: boolean;
  };
  networkProfile: { networkInterfaces: NetworkInterfaceReference[] };
  provisioningState: VmProvisioningState;
  timeCreated: string;
}

export interface VirtualMachine {
  name: string;
  id: string;
  type: typeof VM_TYPE;
  location: string;
  tags?: Record<string, string>;
  properties: VirtualMachineProperties;
}
