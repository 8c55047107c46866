// calico's images in the CNI agent catalogue (catalogue.ts; program.ts says what an entry holds), as calico.yaml
// v3.32.1 and the tigera operator's calico-system pods run them:
//   calico/cni              /opt/cni/bin/install (install-cni; also the image's CMD), calico-ipam -upgrade
//   calico/node             calico-node -init (ebpf-bootstrap), start_runit (the image's CMD: calico-node)
//   calico/kube-controllers kube-controllers (the image's ENTRYPOINT, behind /usr/bin/wrapper), check-status (probes)
//   calico/typha            calico-typha (the image's CMD, behind tini)
import { CALICO_CNI_FILES, calicoInstall, calicoIpamUpgrade } from './calico-install.js';
import { calicoKubeControllers, calicoNode, calicoNodeInit, calicoTypha } from './calico-node.js';
import type { ImageSpec } from './program.js';

export const CALICO_IMAGES: ImageSpec[] = [
  {
    image: /(^|\/)calico\/cni$/,
    files: CALICO_CNI_FILES,
    entrypoint: ['/opt/cni/bin/install'],
    programs: { '/opt/cni/bin/install': calicoInstall, install: calicoInstall, 'calico-ipam': calicoIpamUpgrade },
  },
  {
    image: /(^|\/)calico\/node$/,
    entrypoint: ['start_runit'],
    programs: { 'calico-node': calicoNodeInit, start_runit: calicoNode },
    // Felix, inside calico-node, programs the node's NetworkPolicy.
    enforcesNetworkPolicy: [calicoNode],
  },
  {
    image: /(^|\/)calico\/kube-controllers$/,
    entrypoint: ['/usr/bin/wrapper', 'kube-controllers'],
    // check-status -r / -l: the probes read the status file the controllers keep; they are healthy while running.
    programs: { 'kube-controllers': calicoKubeControllers, wrapper: calicoKubeControllers, 'check-status': () => Promise.resolve(0) },
  },
  { image: /(^|\/)calico\/typha$/, entrypoint: ['/sbin/tini', '--', 'calico-typha'], programs: { 'calico-typha': calicoTypha, tini: calicoTypha } },
];
