// The network flags of `az aks create` as aksemu's CLI parses them: `aksemu az aks create` turns them into a
// request body, `aksemu plan` into a plan, so both read the same names.
export interface AzNetworkFlags {
  networkPlugin?: string;
  networkPluginMode?: string;
  networkPolicy?: string;
  podCidr?: string;
  serviceCidr?: string;
  dnsServiceIp?: string;
}
