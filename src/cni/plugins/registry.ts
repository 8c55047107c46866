// aksemu's CNI plugins by type (plugin.ts). Issue 16 fills it: flannel, calico, calico-ipam, cilium-cni.
import { calico } from './calico.js';
import { calicoIpam } from './calico-ipam.js';
import type { Plugin } from './plugin.js';

export const PLUGINS: Record<string, Plugin> = Object.create(null) as Record<string, Plugin>;
PLUGINS['calico'] = calico;
PLUGINS['calico-ipam'] = calicoIpam;
