// Virtual machines: validation in the Compute RP's order (required members, admin user, network
// interfaces), the stored record, and the instance view computed on read. A VM holds no addresses of
// its own: its NICs do (Microsoft.Network), so deleting a VM leaves them, as Azure's default does.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Store } from '../../store/store.js';
import { invalidResourceReference } from '../network/errors.js';
import type { NetworkInterface } from '../network/models.js';
import { findNetworkInterface } from '../network/nicModel.js';
import { sameId } from '../../ids/compare.js';
import { childrenOf, compact, nameOf, putLocation, referenceId } from '../network/resource.js';
import type { ResourceGroup } from '../resources/resourceGroups.js';
import { isDisallowedAdminUsername } from './adminUsernames.js';
import { adminUsernameNotAllowed, invalidParameter, nicInUse, primaryNicRequired, propertyChangeNotAllowed, requiredParameterMissing } from './errors.js';
import { VM_TYPE, type ImageReference, type NetworkInterfaceReference, type VirtualMachine, type VmProvisioningState } from './models.js';

export interface VmInput {
  location?: string;
  tags?: Record<string, string> | null;
  properties?: {
    hardwareProfile?: { vmSize?: string | null } | null;
    storageProfile?: {
      imageReference?: Partial<ImageReference> | null;
      osDisk?: {
        osType?: string | null;
        name?: string | null;
        caching?: string | null;
        createOption?: string | null;
        diskSizeGB?: number | null;
        deleteOption?: string | null;
        managedDisk?: { storageAccountType?: string | null } | null;
      } | null;
      dataDisks?: unknown[] | null;
    } | null;
    osProfile?: {
      computerName?: string | null;
      adminUsername?: string | null;
      adminPassword?: string | null;
      linuxConfiguration?: {
        disablePasswordAuthentication?: boolean | null;
        ssh?: { publicKeys?: Array<{ path?: string; keyData?: string }> | null } | null;
        provisionVMAgent?: boolean | null;
      } | null;
      allowExtensionOperations?: boolean | null;
      requireGuestProvisionSignal?: boolean | null;
    } | null;
    networkProfile?: {
      networkInterfaces?: Array<{ id?: string; properties?: { primary?: boolean | null; deleteOption?: string | null } | null }> | null;
    } | null;
  };
}

export function findVirtualMachine(store: Store, id: string): VirtualMachine | undefined {
  const vm = store.get<VirtualMachine>(id);
  return vm && vm.type === VM_TYPE ? vm : undefined;
}

export function virtualMachinesIn(store: Store, groupId: string): VirtualMachine[] {
  return childrenOf<VirtualMachine>(store, `${groupId}/providers/Microsoft.Compute/virtualMachines/`).filter((vm) => vm.type === VM_TYPE);
}

/** Every VM of a subscription. */
export function virtualMachinesOf(store: Store, subscriptionId: string): VirtualMachine[] {
  return childrenOf<ResourceGroup>(store, `/subscriptions/${subscriptionId}/resourceGroups/`).flatMap((g) => virtualMachinesIn(store, g.id));
}

/** The NIC that carries the VM's address: the primary one, or the only one. */
export function primaryNicId(vm: VirtualMachine): string | undefined {
  const nics = vm.properties.networkProfile.networkInterfaces;
  return (nics.find((n) => n.properties?.primary === true) ?? (nics.length === 1 ? nics[0] : undefined))?.id;
}

/** The primary ip configuration's address and subnet of a NIC. */
export function primaryAddress(nic: NetworkInterface): { ip: string; subnetId: string } | undefined {
  const configs = nic.properties.ipConfigurations;
  const config = configs.find((c) => c.properties.primary) ?? configs[0];
  return config ? { ip: config.properties.privateIPAddress, subnetId: config.properties.subnet.id } : undefined;
}

function required<T>(value: T | null | undefined, parameter: string): T {
  if (value === null || value === undefined || value === '') throw requiredParameterMissing(parameter);
  return value;
}

function checkNics(
  store: Store,
  vmId: string,
  location: string,
  refs: NonNullable<NonNullable<VmInput['properties']>['networkProfile']>['networkInterfaces'],
): NetworkInterfaceReference[] {
  const list = refs ?? [];
  if (list.length === 0) throw requiredParameterMissing('networkProfile.networkInterfaces');
  if (list.length > 1 && list.filter((r) => r.properties?.primary === true).length !== 1) throw primaryNicRequired(nameOf(vmId));
  const subscriptionId = /^\/subscriptions\/([^/]+)/i.exec(vmId)![1]!;
  const others = virtualMachinesOf(store, subscriptionId).filter((vm) => !sameId(vm.id, vmId));
  return list.map((ref, i) => {
    const id = referenceId(ref, `properties.networkProfile.networkInterfaces[${i}]`);
    const nic = id === undefined ? undefined : findNetworkInterface(store, id);
    if (!nic || nic.location !== location) throw invalidResourceReference(id ?? '', vmId);
    const user = others.find((vm) => vm.properties.networkProfile.networkInterfaces.some((n) => sameId(n.id, nic.id)));
    if (user) throw nicInUse(nic.id, user.id);
    const properties = compact({ primary: ref.properties?.primary ?? undefined, deleteOption: ref.properties?.deleteOption ?? undefined });
    return Object.keys(properties).length > 0 ? { id: nic.id, properties } : { id: nic.id };
  });
}

function checkImage(input: Partial<ImageReference> | null | undefined): ImageReference {
  const image = required(input, 'storageProfile.imageReference');
  return {
    publisher: required(image.publisher, 'storageProfile.imageReference.publisher'),
    offer: required(image.offer, 'storageProfile.imageReference.offer'),
    sku: required(image.sku, 'storageProfile.imageReference.sku'),
    version: image.version || 'latest',
  };
}

/** Validates and writes a VM (`id` carries the group's stored casing); state is Creating or Updating. */
export function writeVirtualMachine(store: Store, id: string, input: VmInput, state: VmProvisioningState): { vm: VirtualMachine; created: boolean } {
  const existing = findVirtualMachine(store, id);
  const location = putLocation(input.location, existing, VM_TYPE);
  const vmId = existing?.id ?? id;
  const p = input.properties ?? {};
  const vmSize = required(p.hardwareProfile?.vmSize, 'hardwareProfile.vmSize');
  const imageReference = checkImage(p.storageProfile?.imageReference);
  if ((p.storageProfile?.dataDisks ?? []).length > 0)
    throw invalidParameter('aksemu does not model data disks; remove storageProfile.dataDisks.', 'storageProfile.dataDisks');
  const createOption = p.storageProfile?.osDisk?.createOption;
  if (createOption && createOption.toLowerCase() !== 'fromimage') {
    throw invalidParameter(
      `aksemu creates OS disks from images only; storageProfile.osDisk.createOption '${createOption}' is not supported.`,
      'storageProfile.osDisk.createOption',
    );
  }

  const os = required(p.osProfile, 'osProfile');
  const computerName = required(os.computerName, 'computerName');
  const adminUsername = required(os.adminUsername, 'adminUsername');
  if (isDisallowedAdminUsername(adminUsername)) throw adminUsernameNotAllowed();
  const windows = /windows/i.test(imageReference.publisher);
  const linux = os.linuxConfiguration ?? {};
  const keys = (linux.ssh?.publicKeys ?? []).map((k, i) => ({
    path: k.path ?? `/home/${adminUsername}/.ssh/authorized_keys`,
    keyData: required(k.keyData, `linuxConfiguration.ssh.publicKeys[${i}].keyData`),
  }));
  const noPassword = !windows && (linux.disablePasswordAuthentication ?? false);
  // The password is checked for presence only: it is never stored, logged or returned.
  if (noPassword ? keys.length === 0 : !os.adminPassword && !existing) {
    throw requiredParameterMissing(noPassword ? 'linuxConfiguration.ssh.publicKeys' : 'adminPassword');
  }
  if (existing && existing.properties.osProfile.computerName !== computerName) throw propertyChangeNotAllowed('osProfile.computerName');
  if (existing && existing.properties.osProfile.adminUsername !== adminUsername) throw propertyChangeNotAllowed('osProfile.adminUsername');
  const networkInterfaces = checkNics(store, vmId, location, p.networkProfile?.networkInterfaces);

  const disk = p.storageProfile?.osDisk ?? {};
  const vm: VirtualMachine = compact({
    name: existing?.name ?? nameOf(vmId),
    id: vmId,
    type: VM_TYPE,
    location,
    tags: input.tags ?? undefined,
    properties: {
      vmId: existing?.properties.vmId ?? randomUUID(),
      hardwareProfile: { vmSize },
      storageProfile: {
        imageReference,
        osDisk: {
          osType: windows ? 'Windows' : 'Linux',
          // Azure's pattern: <vm>_OsDisk_1_<32 hex>.
          name: existing?.properties.storageProfile.osDisk.name ?? disk.name ?? `${nameOf(vmId)}_OsDisk_1_${randomBytes(16).toString('hex')}`,
          createOption: 'FromImage',
          caching: disk.caching ?? 'ReadWrite',
          managedDisk: { storageAccountType: disk.managedDisk?.storageAccountType ?? 'Premium_LRS' },
          deleteOption: disk.deleteOption ?? 'Detach',
          diskSizeGB: disk.diskSizeGB ?? 30,
        },
        dataDisks: [],
      },
      osProfile: {
        computerName,
        adminUsername,
        linuxConfiguration: windows
          ? undefined
          : {
              disablePasswordAuthentication: noPassword,
              ssh: keys.length > 0 ? { publicKeys: keys } : undefined,
              provisionVMAgent: linux.provisionVMAgent ?? true,
            },
        secrets: [],
        allowExtensionOperations: os.allowExtensionOperations ?? true,
        requireGuestProvisionSignal: os.requireGuestProvisionSignal ?? true,
      },
      networkProfile: { networkInterfaces },
      provisioningState: state,
      timeCreated: existing?.properties.timeCreated ?? new Date().toISOString(),
    },
  });
  store.put(vm.id, vm);
  return { vm, created: !existing };
}

/** What Azure reports of a running VM: provisioning state and power state (an emulated VM runs). */
export function instanceView(vm: VirtualMachine): unknown {
  const state = vm.properties.provisioningState;
  const statuses: Array<Record<string, string>> = [
    { code: `ProvisioningState/${state.toLowerCase()}`, level: 'Info', displayStatus: `Provisioning ${state.toLowerCase()}`, time: vm.properties.timeCreated },
  ];
  if (state === 'Succeeded' || state === 'Updating') statuses.push({ code: 'PowerState/running', level: 'Info', displayStatus: 'VM running' });
  if (state === 'Creating') statuses.push({ code: 'PowerState/starting', level: 'Info', displayStatus: 'VM starting' });
  if (state === 'Deleting') statuses.push({ code: 'PowerState/stopping', level: 'Info', displayStatus: 'VM stopping' });
  return { computerName: vm.properties.osProfile.computerName, osName: vm.properties.storageProfile.imageReference.offer, statuses };
}

export function renderVirtualMachine(vm: VirtualMachine, expandInstanceView: boolean): unknown {
  return expandInstanceView ? { ...vm, properties: { ...vm.properties, instanceView: instanceView(vm) } } : vm;
}
