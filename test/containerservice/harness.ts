// The official @azure/arm-containerservice SDK pointed at a real server, at an api-version the test chooses
// (az 2.45's 2022-11-01 by default), or at the package's own default (sdkClient). A client's serializer sends the
// members its model has defaults for, so a request at an older version comes from an older major (v19: 2023-07-01's
// model, which has none of the later members the 24.x model fills in, such as loadBalancerProfile.backendPoolType).
import { ContainerServiceClient, type ManagedCluster } from '@azure/arm-containerservice';
import { ContainerServiceClient as ContainerServiceClientV19 } from '@azure/arm-containerservice-v19';
import { EmulatorCredential, type TestServer } from '../e2e/harness.js';
import { clientOptions, type Env } from '../network/harness.js';

export function aksClient(server: TestServer, apiVersion = '2022-11-01'): ContainerServiceClient {
  return new ContainerServiceClient(new EmulatorCredential(server), server.identity.subscriptionId, {
    ...clientOptions(server),
    apiVersion,
  });
}

/** The 19.x package (its own default 2023-07-01) at an older api-version: what an older client sends. */
export function olderAksClient(server: TestServer, apiVersion = '2022-11-01'): ContainerServiceClient {
  const client = new ContainerServiceClientV19(new EmulatorCredential(server), server.identity.subscriptionId, {
    ...clientOptions(server),
    apiVersion,
  });
  return client as unknown as ContainerServiceClient;
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

/** A kubenet cluster of one node as a raw ARM body (for tests over HTTP). */
export function rawCluster(dnsPrefix: string, properties: Record<string, unknown> = {}) {
  return {
    location: 'eastus',
    identity: { type: 'SystemAssigned' },
    properties: {
      dnsPrefix,
      agentPoolProfiles: [{ name: 'nodepool1', count: 1, vmSize: 'Standard_DS2_v2', mode: 'System', osType: 'Linux' }],
      networkProfile: { networkPlugin: 'kubenet' },
      ...properties,
    },
  };
}

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
