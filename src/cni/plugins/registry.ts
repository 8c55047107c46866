// aksemu's CNI plugins by type (plugin.ts): flannel, calico, calico-ipam, cilium-cni.
import { calico } from './calico.js';
import { calicoIpam } from './calico-ipam.js';
import { FLANNEL_PLUGIN } from './flannel.js';
import type { Plugin } from './plugin.js';

export const PLUGINS: Record<string, Plugin> = Object.create(null) as Record<string, Plugin>;
PLUGINS['calico'] = calico;
PLUGINS['calico-ipam'] = calicoIpam;
PLUGINS['flannel'] = FLANNEL_PLUGIN;
