// The rest of azure-cli's acs/_validators.py checks that `aks` commands run before any request
// (docs/clients.md §3.12), beside those in src/aks/az-validators.ts; the same messages, exit 1.
import { CliUsageError } from '../../aks/az-validators.js';
import { isValidResourceId } from './resource-id.js';

/** validate_linux_host_name */
export function validateClusterName(name: string): void {
  if (!/^[a-zA-Z0-9]$|^[a-zA-Z0-9][-_a-zA-Z0-9]{0,61}[a-zA-Z0-9]$/.test(name)) {
    throw new CliUsageError('--name cannot exceed 63 characters and can only contain letters, numbers, underscores (_) or dashes (-).');
  }
}

/** validate_k8s_version: "" means the server's default; a leading v is dropped. */
export function validateKubernetesVersion(version: string | undefined): string {
  if (!version) return '';
  const match = /^[v|V]?(\d+\.\d+(?:\.\d+)?)$/.exec(version);
  if (!match) {
    throw new CliUsageError('--kubernetes-version should be the full version number or major.minor version number, such as "1.7.12" or "1.7"');
  }
  return match[1]!;
}

/** validate_network_policy */
export function validateNetworkPolicy(policy: string | undefined): void {
  if (policy !== undefined && policy !== policy.toLowerCase()) throw new CliUsageError('--network-policy should be provided in lowercase');
}

/** validate_vnet_subnet_id (also --pod-subnet-id) */
export function validateSubnetId(flagName: string, id: string | undefined): void {
  if (id === undefined || id === '') return;
  if (!isValidResourceId(id)) throw new CliUsageError(`${flagName} is not a valid Azure resource ID.`);
}

/** The managed-cluster decorator: network settings need an explicit --network-plugin. */
export function validateNetworkPluginGiven(plugin: string | undefined, others: (string | undefined)[]): void {
  if (plugin === undefined && others.some((v) => v !== undefined)) throw new CliUsageError('Please explicitly specify the network plugin type');
}
