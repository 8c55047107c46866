// What the two Azure CNI models (node subnet, overlay) share: azure-vnet's conflist and the plugin's rule hooks.
import type { Conflist, NetworkModel, PodIpam } from './model.js';

/** Azure CNI's conflist: azure-vnet in transparent mode; node-subnet IPAM is azure-vnet-ipam, overlay uses CNS. */
export function azureConflist(ipam: PodIpam): Conflist {
  const conf = {
    cniVersion: '0.3.0',
    name: 'azure',
    plugins: [
      {
        type: 'azure-vnet',
        mode: 'transparent',
        ipsToRouteViaHost: ['169.254.20.10'],
        ipam: { type: ipam },
      },
      { type: 'portmap', capabilities: { portMappings: true }, snat: true },
    ],
  };
  return { file: '10-azure.conflist', text: `${JSON.stringify(conf, null, 3)}\n` };
}

/** Azure CNI admits Windows pools (N7) and networkMode (N6, N6b). */
export const AZURE_CNI_RULES = {
  windowsPools: true,
  networkModes: true,
} as const satisfies Partial<NetworkModel['rules']>;
