// flanneld's --ip-masq rules on a node (flannel v0.28.9 pkg/trafficmngr: iptables.go's masqRules, written as its
// nftables.go writes them), one nft table in the node's namespace only. Not the agents' outgoing masquerade of
// masq.ts (Calico's natOutgoing, Cilium's): that one is ip-masq-agent's shape (the agent's pool sources, a keep
// list, only what leaves eth0); flannel's also masquerades the host's own traffic into the pod network and leaves
// kube-proxy's marked packets alone, and it lives and goes with the overlay (overlay.ts), as flanneld's does with
// its lease. In the order flannel adds them:
//   traffic kube-proxy marked for masquerade (0x4000) is left to kube-proxy (no double NAT);
//   lease → network and network → lease keep their addresses (pod → pod over the overlay);
//   from outside the lease into the network: kept (external traffic arriving at a pod of this node);
//   from the network to anything but multicast: masqueraded (pods going out of the cluster);
//   from the host into the network: masqueraded (the node reaching other nodes' pods through flannel.1).
import type { VxlanOverlay } from '../dataplane.js';

export const FLANNEL_IP_MASQ_TABLE = 'flannel-ipv4';

export function flannelIpMasqBody(masq: NonNullable<VxlanOverlay['ipMasq']>): string {
  const { network, subnet } = masq;
  return [
    '  chain postrtg {',
    '    type nat hook postrouting priority srcnat; policy accept;',
    '    meta mark & 0x4000 == 0x4000 return',
    `    ip saddr ${subnet} ip daddr ${network} return`,
    `    ip saddr ${network} ip daddr ${subnet} return`,
    `    ip saddr != ${subnet} ip daddr ${network} return`,
    `    ip saddr ${network} ip daddr != 224.0.0.0/4 masquerade fully-random`,
    `    ip saddr != ${network} ip daddr ${network} masquerade fully-random`,
    '  }',
  ].join('\n');
}
