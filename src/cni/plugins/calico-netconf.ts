// What Calico's CNI plugins read from their network configuration (cni-plugin/pkg/types NetConf) and the node:
// the node name (`nodename`, else /var/lib/calico/nodename that calico/node writes, as utils.DetermineNodename
// does), the kubeconfig (`kubernetes.kubeconfig`), the IPAM section, the MTU; and the handle every allocation of
// one container is recorded under (utils.GetHandleID: `<network name>.<container id>`).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeKubeApi, type KubeApi } from './calico-kube.js';
import type { PluginRequest } from './plugin.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export const CALICO_VERSIONS = ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'];

export interface CalicoNetConf {
  name: string;
  nodename: string;
  kubeconfig: string;
  ipam: Obj;
  mtu: number;
}

export function calicoNetConf(req: PluginRequest): CalicoNetConf {
  const c = req.config;
  let nodename = str(c['nodename']);
  if (!nodename) {
    try {
      nodename = readFileSync(join(req.nodeRoot, 'var/lib/calico/nodename'), 'utf8').trim() || undefined;
    } catch {
      // calico/node has not written it yet
    }
  }
  return {
    name: str(c['name']) ?? '',
    nodename: nodename ?? '',
    kubeconfig: str(obj(c['kubernetes'])['kubeconfig']) ?? '/etc/cni/net.d/calico-kubeconfig',
    ipam: obj(c['ipam']),
    mtu: typeof c['mtu'] === 'number' && c['mtu'] > 0 ? c['mtu'] : 1500,
  };
}

/** The IPAM handle of a container's allocations. */
export function handleId(conf: CalicoNetConf, containerId: string): string {
  return `${conf.name}.${containerId}`;
}

/** The client of the netconf's kubeconfig (throws when the file is missing). */
export function calicoClient(req: PluginRequest, conf: CalicoNetConf): KubeApi {
  return nodeKubeApi(req.nodeRoot, conf.kubeconfig);
}
