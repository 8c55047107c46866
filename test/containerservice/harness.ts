// The official @azure/arm-containerservice SDK pointed at a real server. The SDK pins a newer api-version
// than aksemu serves, so the tests choose the version explicitly (az 2.45's 2022-11-01 by default).
import { ContainerServiceClient, type ManagedCluster } from '@azure/arm-containerservice';
import { EmulatorCredential, type TestServer } from '../e2e/harness.js';
import { clientOptions, type Env } from '../network/harness.js';

export function aksClient(server: TestServer, apiVersion = '2022-11-01'): ContainerServiceClient {
  return new ContainerServiceClient(new EmulatorCredential(server), server.identity.subscriptionId, {
    ...clientOptions(server),
    apiVersion,
  });
}

/** The seed's cluster: one system pool of 3 nodes, the given network profile. */
export function cluster(network: ManagedCluster['networkProfile'], pool: Record<string, unknown> = {}): ManagedCluster {
  return {
    location: 'eastus',
    identity: { type: 'SystemAssigned' },
    dnsPrefix: 'myakscluster',
    agentPoolProfiles: [{ name: 'nodepool1', count: 3, vmSize: 'Standard_DS2_v2', mode: 'System', osType: 'Linux', ...pool }],
    networkProfile: network,
  };
}

export const POLL = { updateIntervalInMs: 10 };

/** A VNet with one subnet, through Microsoft.Network; returns the subnet id. */
export async function subnet(env: Env, vnet: string, vnetPrefix: string, name: string, prefix: string, extra: Record<string, unknown> = {}): Promise<string> {
  await env.network.virtualNetworks.beginCreateOrUpdateAndWait(
    'rg',
    vnet,
    { location: 'eastus', addressSpace: { addressPrefixes: [vnetPrefix] }, subnets: [{ name, addressPrefix: prefix, ...extra }] },
    POLL,
  );
  return `/subscriptions/${env.sub}/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/${vnet}/subnets/${name}`;
}
