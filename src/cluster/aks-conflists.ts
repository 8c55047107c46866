// The conflists AKS writes on kubenet and Azure CNI nodes (AgentBaker), which the kubelet emulation puts in a
// node's conf dir; loading a conf dir is src/cni/confdir.ts.

/** AgentBaker's kubenet conflist: bridge cbr0 with host-local IPAM over the node's podCIDR, then portmap. */
export function kubenetConflist(podCidr: string): { file: string; text: string } {
  const conf = {
    cniVersion: '0.3.1',
    name: 'kubenet',
    plugins: [
      {
        type: 'bridge',
        bridge: 'cbr0',
        mtu: 1500,
        addIf: 'eth0',
        isGateway: true,
        ipMasq: false,
        promiscMode: true,
        hairpinMode: false,
        ipam: { type: 'host-local', subnet: podCidr, routes: [{ dst: '0.0.0.0/0' }] },
      },
      { type: 'portmap', capabilities: { portMappings: true }, externalSetMarkChain: 'KUBE-MARK-MASQ' },
    ],
  };
  return { file: '10-containerd-net.conflist', text: `${JSON.stringify(conf, null, 4)}\n` };
}

/** Azure CNI's conflist: azure-vnet in transparent mode; node-subnet IPAM is azure-vnet-ipam, overlay uses CNS. */
export function azureConflist(overlay: boolean): { file: string; text: string } {
  const conf = {
    cniVersion: '0.3.0',
    name: 'azure',
    plugins: [
      {
        type: 'azure-vnet',
        mode: 'transparent',
        ipsToRouteViaHost: ['169.254.20.10'],
        ipam: { type: overlay ? 'azure-cns' : 'azure-vnet-ipam' },
      },
      { type: 'portmap', capabilities: { portMappings: true }, snat: true },
    ],
  };
  return { file: '10-azure.conflist', text: `${JSON.stringify(conf, null, 3)}\n` };
}
