// The overlay a test plays the CNI agent with: flanneld's vxlan backend's shape (flannel.1, VNI 1, UDP 8472, MTU
// 1450; the device holds its node subnet's network address /32, which is also its tunnel address; one FDB entry,
// neighbour and onlink route per other node). Node i owns `10.<second>.<i>.0/24`.
import type { VxlanOverlay } from '../../src/dataplane/dataplane.js';

export const TEST_OVERLAY_DEVICE = 'flannel.1';

export const testNodeSubnet = (i: number, second = 244): string => `10.${second}.${i}.0/24`;
const vtepMac = (i: number): string => `02:fa:00:00:00:${i.toString(16).padStart(2, '0')}`;

/** Node i's overlay; `peers` (default: every other node) are indexes into nodeIps. */
export function testOverlay(i: number, nodeIps: string[], second = 244, peers = nodeIps.map((_, j) => j).filter((j) => j !== i)): VxlanOverlay {
  return {
    device: TEST_OVERLAY_DEVICE,
    vni: 1,
    port: 8472,
    mtu: 1450,
    mac: vtepMac(i),
    localIp: nodeIps[i]!,
    addresses: [`10.${second}.${i}.0/32`],
    peers: peers.map((j) => ({ nodeIp: nodeIps[j]!, mac: vtepMac(j), tunnelIp: `10.${second}.${j}.0`, cidrs: [testNodeSubnet(j, second)] })),
  };
}

/** Node i's conflist: the reference bridge + host-local on its /24, no masquerade, as flannel delegates. */
export function testConflist(i: number): string {
  const ipam = { type: 'host-local', ranges: [[{ subnet: testNodeSubnet(i) }]], routes: [{ dst: '0.0.0.0/0' }] };
  return JSON.stringify({ cniVersion: '1.0.0', name: 'test-overlay', plugins: [{ type: 'bridge', bridge: 'cni0', isGateway: true, ipMasq: false, ipam }] });
}
