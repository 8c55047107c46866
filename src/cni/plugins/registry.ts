// aksemu's CNI plugins by type (plugin.ts). Issue 16 fills it: flannel, calico, calico-ipam, cilium-cni.
import { ciliumCni } from './cilium-cni.js';
import type { Plugin } from './plugin.js';

export const PLUGINS: Record<string, Plugin> = Object.create(null) as Record<string, Plugin>;
PLUGINS['cilium-cni'] = ciliumCni;
