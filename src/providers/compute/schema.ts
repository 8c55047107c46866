// The request-body model of a virtual machine, named as in the Compute REST spec. Only what aksemu
// models is accepted (strict mode names anything else); read-only members of a GET are tolerated so a
// GET body can be PUT back. customData is left out on purpose: it would be a secret to keep.
import { s } from '../../arm/schema.js';

const readOnlyAny = s.any();

const imageReference = s.object('ImageReference', {
  publisher: s.string(),
  offer: s.string(),
  sku: s.string(),
  version: s.string(),
  exactVersion: s.string(),
});

const osDisk = s.object('OSDisk', {
  osType: s.string(),
  name: s.string(),
  caching: s.string(),
  createOption: s.string(),
  diskSizeGB: s.integer(),
  deleteOption: s.string(),
  managedDisk: s.object('ManagedDiskParameters', { storageAccountType: s.string(), id: s.string() }),
});

const linuxConfiguration = s.object('LinuxConfiguration', {
  disablePasswordAuthentication: s.boolean(),
  ssh: s.object('SshConfiguration', { publicKeys: s.array(s.object('SshPublicKey', { path: s.string(), keyData: s.string() })) }),
  provisionVMAgent: s.boolean(),
  patchSettings: readOnlyAny,
  enableVMAgentPlatformUpdates: s.boolean(),
});

const osProfile = s.object('OSProfile', {
  computerName: s.string(),
  adminUsername: s.string(),
  adminPassword: s.string(),
  linuxConfiguration,
  secrets: s.array(s.any()),
  allowExtensionOperations: s.boolean(),
  requireGuestProvisionSignal: s.boolean(),
});

const networkInterfaceReference = s.object('NetworkInterfaceReference', {
  id: s.string(),
  properties: s.object('NetworkInterfaceReferenceProperties', { primary: s.boolean(), deleteOption: s.string() }),
});

export const virtualMachineModel = s.object('VirtualMachine', {
  id: s.string(),
  name: s.string(),
  type: s.string(),
  location: s.string(),
  tags: s.tags(),
  properties: s.object('VirtualMachineProperties', {
    hardwareProfile: s.object('HardwareProfile', { vmSize: s.string() }),
    storageProfile: s.object('StorageProfile', { imageReference, osDisk, dataDisks: s.array(s.any()) }),
    osProfile,
    networkProfile: s.object('NetworkProfile', { networkInterfaces: s.array(networkInterfaceReference) }),
    // Read-only.
    vmId: s.string(),
    provisioningState: s.string(),
    timeCreated: s.string(),
    instanceView: readOnlyAny,
  }),
});
