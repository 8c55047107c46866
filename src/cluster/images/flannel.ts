// flannel's images in the CNI agent catalogue (catalogue.ts; program.ts says what an entry holds), as
// kube-flannel.yml runs them:
//   - flannel-cni-plugin holds /flannel, the CNI plugin its install-cni-plugin init container copies into the
//     node's /opt/cni/bin (`cp -f /flannel /opt/cni/bin/flannel`): aksemu's plugin `flannel` (src/cni/plugins);
//   - flannel holds /opt/bin/install-conf (the install-cni init container: conflist into /etc/cni/net.d) and
//     /opt/bin/flanneld (the agent: subnet.env, node annotations, the vxlan overlay).
// Images are matched by repository wherever they are mirrored from (ghcr.io/flannel-io, docker.io/flannel, Rancher's
// mirrored-flannelcni-*).
import { flanneld } from './flannel-flanneld.js';
import { installConf } from './flannel-install-conf.js';
import type { ImageSpec } from './program.js';

export const FLANNEL_IMAGES: ImageSpec[] = [
  {
    image: /(?:^|\/)(?:flannel(?:-io)?\/flannel-cni-plugin|mirrored-flannelcni-flannel-cni-plugin)$/,
    files: { '/flannel': { plugin: 'flannel' } },
    programs: {},
  },
  {
    image: /(?:^|\/)(?:flannel(?:-io)?\/flannel|mirrored-flannelcni-flannel)$/,
    programs: { 'install-conf': installConf, flanneld },
  },
];
