// aksemu's calico-ipam (cni-plugin/pkg/ipamplugin/ipam_plugin.go, v3.32.1): ADD assigns one IPv4 address from
// the node's affine blocks, claiming a new block of the pool when they are full (calico-ipam-blocks.ts, through
// the API with the kubeconfig's token); the handle is `<network>.<container id>` and the allocation carries the
// pod's namespace, node, pod and a timestamp; CNI_ARGS IP= asks for one address (AssignIP). The result is the address with its block's prefix and one route to
// it, as Calico prints it. DEL releases everything the handle holds (a missing handle is not an error).
import { assignIp, autoAssign, releaseByHandle } from './calico-ipam-blocks.js';
import { CALICO_VERSIONS, calicoClient, calicoNetConf, handleId } from './calico-netconf.js';
import { type Plugin, PluginError } from './plugin.js';

/** skel turns a plain Go error into code 999 (types.ErrInternal). */
const INTERNAL = 999;

function fail(e: unknown): never {
  if (e instanceof PluginError) throw e;
  throw new PluginError(INTERNAL, (e as Error)?.message ?? String(e));
}

export const calicoIpam: Plugin = {
  supportedVersions: CALICO_VERSIONS,
  async run(req) {
    const conf = calicoNetConf(req);
    const handle = handleId(conf, req.containerId);
    try {
      const api = calicoClient(req, conf);
      if (req.command === 'DEL') {
        await releaseByHandle(api, handle);
        return undefined;
      }
      if (req.command !== 'ADD') return undefined;
      if (!conf.nodename) throw new Error('error getting nodename: no nodename in the network config and /var/lib/calico/nodename does not exist');
      const attrs: Record<string, string> = { node: conf.nodename, timestamp: `${new Date().toISOString().replace('T', ' ').replace('Z', ' +0000 UTC')}` };
      if (req.args['K8S_POD_NAME']) attrs['pod'] = req.args['K8S_POD_NAME'];
      if (req.args['K8S_POD_NAMESPACE']) attrs['namespace'] = req.args['K8S_POD_NAMESPACE'];
      const pools = Array.isArray(conf.ipam['ipv4_pools']) ? (conf.ipam['ipv4_pools'] as unknown[]).filter((p): p is string => typeof p === 'string') : [];
      let assigned: Awaited<ReturnType<typeof autoAssign>>;
      try {
        // CNI_ARGS IP=: that address (ipam_plugin.go's ipamArgs.IP → AssignIP), as a restored pod asks it back.
        const ip = req.args['IP'];
        assigned = ip
          ? await assignIp(api, { host: conf.nodename, handleId: handle, attrs, pools, ip })
          : await autoAssign(api, { host: conf.nodename, handleId: handle, attrs, pools });
      } catch (e) {
        // A short assignment is reported through the plugin's own prefix; other errors come back as they are.
        const msg = (e as Error).message;
        throw new Error(msg.startsWith('Assigned ') ? `failed to request IPv4 addresses: ${msg}` : msg);
      }
      const old = String(req.config['cniVersion'] ?? '').startsWith('0.');
      return {
        ips: [{ ...(old ? { version: '4' } : {}), address: assigned.address }],
        routes: [{ dst: assigned.address }],
        dns: {},
      };
    } catch (e) {
      fail(e);
    }
  },
};
