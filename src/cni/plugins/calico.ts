// aksemu's calico CNI plugin (cni-plugin/pkg/plugin/plugin.go and pkg/k8s/k8s.go, v3.32.1, Kubernetes
// datastore). ADD: refuses while ClusterInformation `default` is not datastoreReady (calico/node sets it), runs
// the netconf's IPAM plugin from CNI_PATH (calico-ipam) with the same config, wires the pod with a routed veth
// `cali<11 hex>` (links.ts), records the workload endpoint as Calico's KDD backend does (the pod's
// cni.projectcalico.org/containerID, podIP and podIPs annotations) and prints the host and pod interfaces with the
// address as a /32. On a failure after IPAM the addresses are released. DEL removes the veth and releases the
// handle through the IPAM plugin. Without a data plane (req.addressOnly) no veth is wired and the result has no
// interfaces.
import { CniError, execPlugin } from '../exec.js';
import { CALICO_GROUP } from './calico-ipam-blocks.js';
import type { KubeApi } from './calico-kube.js';
import { CALICO_VERSIONS, type CalicoNetConf, calicoClient, calicoNetConf } from './calico-netconf.js';
import { addRoutedVeth, CALICO_GATEWAY, CALICO_HOST_MAC, delRoutedVeth, hostVethName } from './links.js';
import { type Plugin, PluginError, type PluginRequest } from './plugin.js';

const INTERNAL = 999;
type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/**
 * The netconf's IPAM plugin, found on CNI_PATH and executed as the CNI spec says (aksemu's own calico-ipam wrapper runs
 * in this process: exec.ts ownWrapper).
 */
async function ipamCall(req: PluginRequest, command: 'ADD' | 'DEL', conf: CalicoNetConf): Promise<Record<string, unknown> | undefined> {
  const type = typeof conf.ipam['type'] === 'string' ? conf.ipam['type'] : '';
  return execPlugin({
    command,
    type,
    path: req.path,
    config: req.config,
    containerId: req.containerId,
    netns: req.netns,
    ifName: req.ifName,
    args: req.args,
    ...(req.hostNetns ? { hostNetns: req.hostNetns } : {}),
  });
}

/** Calico's client checks the datastore is initialised before doing anything (plugin.go). */
async function checkReady(api: KubeApi): Promise<void> {
  let res: { status: number; body: unknown };
  try {
    res = await api.request('GET', `${CALICO_GROUP}/clusterinformations/default`);
  } catch (e) {
    throw new Error(`error getting ClusterInformation: ${(e as Error).message}`);
  }
  if (res.status === 404)
    throw new Error(
      'error getting ClusterInformation: resource does not exist: ClusterInformation(default) with error: clusterinformations.crd.projectcalico.org "default" not found',
    );
  if (res.status !== 200) throw new Error(`error getting ClusterInformation: ${String(obj(res.body)['message'] ?? res.status)}`);
  if (obj(obj(res.body)['spec'])['datastoreReady'] !== true) throw new Error('Calico is currently not ready to process requests');
}

function firstAddress(result: Record<string, unknown> | undefined): string | undefined {
  const ips = Array.isArray(result?.['ips']) ? (result['ips'] as Obj[]) : [];
  const a = ips.map((i) => i['address']).find((x): x is string => typeof x === 'string' && x.includes('.'));
  return a?.split('/')[0];
}

async function add(req: PluginRequest, conf: CalicoNetConf): Promise<Record<string, unknown>> {
  let api: KubeApi;
  try {
    api = calicoClient(req, conf);
  } catch (e) {
    throw new Error(`error creating calico client: ${(e as Error).message}`);
  }
  await checkReady(api);
  let ipam: Record<string, unknown> | undefined;
  try {
    ipam = await ipamCall(req, 'ADD', conf);
  } catch (e) {
    // The IPAM plugin's own error object goes back as it is (types.Error keeps its code).
    if (e instanceof CniError) throw new PluginError(e.error.code, e.error.msg, e.error.details);
    throw e;
  }
  const ip = firstAddress(ipam);
  if (!ip) throw new Error('IPAM plugin returned no IP addresses in result');
  const release = () => ipamCall(req, 'DEL', conf).catch(() => undefined);
  const namespace = req.args['K8S_POD_NAMESPACE'] ?? '';
  const pod = req.args['K8S_POD_NAME'] ?? '';
  const hostVeth = hostVethName('cali', `${namespace}.${pod}`);
  const old = String(req.config['cniVersion'] ?? '').startsWith('0.');
  const address = { ...(old ? { version: '4' } : {}), address: `${ip}/32` };
  let mac = '';
  if (!req.addressOnly) {
    try {
      mac = (
        await addRoutedVeth({
          netns: req.netns,
          hostIf: hostVeth,
          ifName: req.ifName,
          ip,
          gateway: CALICO_GATEWAY,
          mtu: conf.mtu,
          hostMac: CALICO_HOST_MAC,
          ...(req.hostNetns ? { hostNetns: req.hostNetns } : {}),
        })
      ).podMac;
    } catch (e) {
      await release();
      throw e;
    }
  }
  // The workload endpoint, as the KDD backend keeps it: annotations on the pod (also without a data plane).
  if (pod) {
    const patched = await api
      .request('PATCH', `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}`, {
        metadata: {
          annotations: {
            'cni.projectcalico.org/containerID': req.containerId,
            'cni.projectcalico.org/podIP': `${ip}/32`,
            'cni.projectcalico.org/podIPs': `${ip}/32`,
          },
        },
      })
      .catch((e: Error) => ({ status: 0, body: { message: e.message } }));
    if (patched.status !== 200) {
      if (!req.addressOnly) await delRoutedVeth(hostVeth, req.hostNetns);
      await release();
      throw new Error(String(obj(patched.body)['message'] ?? `error updating pod ${namespace}/${pod}`));
    }
  }
  if (req.addressOnly) return { ips: [address], dns: {} };
  return {
    interfaces: [{ name: hostVeth }, { name: req.ifName, mac, sandbox: req.netns }],
    ips: [{ ...address, interface: 1 }],
    dns: {},
  };
}

async function del(req: PluginRequest, conf: CalicoNetConf): Promise<void> {
  if (!req.addressOnly) {
    const namespace = req.args['K8S_POD_NAMESPACE'] ?? '';
    const pod = req.args['K8S_POD_NAME'] ?? '';
    if (pod) await delRoutedVeth(hostVethName('cali', `${namespace}.${pod}`), req.hostNetns);
  }
  try {
    await ipamCall(req, 'DEL', conf);
  } catch (e) {
    if (e instanceof CniError) throw new PluginError(e.error.code, e.error.msg, e.error.details);
    throw e;
  }
}

export const calico: Plugin = {
  supportedVersions: CALICO_VERSIONS,
  async run(req) {
    const conf = calicoNetConf(req);
    try {
      if (req.command === 'ADD') return await add(req, conf);
      if (req.command === 'DEL') await del(req, conf);
      return undefined;
    } catch (e) {
      if (e instanceof PluginError) throw e;
      throw new PluginError(INTERNAL, (e as Error)?.message ?? String(e));
    }
  },
};
