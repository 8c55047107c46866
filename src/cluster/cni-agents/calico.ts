// calico's images in the CNI agent catalogue (catalogue.ts; program.ts says what an entry holds).
//   calico/cni   install-cni (/opt/cni/bin/install, the image's entrypoint; cni-plugin/pkg/install): the config
//                template from CNI_NETWORK_CONFIG (usually a configMapKeyRef) with install-cni's substitutions,
//                written as CNI_CONF_NAME (10-calico.conflist) into the node's conf dir
import type { ImageSpec, Program } from './program.js';

const CNI_CONF_HOST_DIR = '/etc/cni/net.d';

/** Calico's install-cni: the config template from CNI_NETWORK_CONFIG, substituted, into /host/etc/cni/net.d. */
const install: Program = async (ctx) => {
  const { env } = ctx;
  // Without a template there is nothing aksemu knows to write (as before issue 16).
  if (!('CNI_NETWORK_CONFIG' in env)) return 0;
  const get = (k: string, d: string) => env[k] ?? d;
  const netDir = get('CNI_NET_DIR', CNI_CONF_HOST_DIR);
  const replacements: Array<[string, string]> = [
    ['__LOG_LEVEL__', get('LOG_LEVEL', 'info')],
    ['__LOG_FILE_PATH__', get('LOG_FILE_PATH', '/var/log/calico/cni/cni.log')],
    ['__LOG_FILE_MAX_SIZE__', get('LOG_FILE_MAX_SIZE', '100')],
    ['__LOG_FILE_MAX_AGE__', get('LOG_FILE_MAX_AGE', '30')],
    ['__LOG_FILE_MAX_COUNT__', get('LOG_FILE_MAX_COUNT', '10')],
    ['__DATASTORE_TYPE__', get('DATASTORE_TYPE', 'kubernetes')],
    // A host-network pod's hostname is the node's name.
    ['__KUBERNETES_NODE_NAME__', get('KUBERNETES_NODE_NAME', ctx.node)],
    ['__KUBECONFIG_FILEPATH__', `${netDir}/calico-kubeconfig`],
    ['__CNI_MTU__', get('CNI_MTU', '1500')],
    ['__KUBERNETES_SERVICE_HOST__', get('KUBERNETES_SERVICE_HOST', '')],
    ['__KUBERNETES_SERVICE_PORT__', get('KUBERNETES_SERVICE_PORT', '')],
    // etcd TLS files are absent, so install-cni blanks them too.
    ['__SERVICEACCOUNT_TOKEN__', ''],
    ['__ETCD_CERT_FILE__', ''],
    ['__ETCD_CA_CERT_FILE__', ''],
    ['__ETCD_KEY_FILE__', ''],
    ['__ETCD_ENDPOINTS__', get('ETCD_ENDPOINTS', '')],
    ['__ETCD_DISCOVERY_SRV__', get('ETCD_DISCOVERY_SRV', '')],
  ];
  let netconf = env['CNI_NETWORK_CONFIG']!;
  for (const [from, to] of replacements) netconf = netconf.split(from).join(to);
  try {
    const parsed: unknown = JSON.parse(netconf);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('json: cannot unmarshal into Go value of type map[string]interface {}');
  } catch (e) {
    ctx.write('stderr', `${netconf} is not a valid json object\nerror: ${(e as Error).message}\n`);
    return 1;
  }
  const name = get('CNI_CONF_NAME', '10-calico.conflist');
  ctx.files.write(`/host/etc/cni/net.d/${name}`, netconf);
  const oldName = get('CNI_OLD_CONF_NAME', '10-calico.conflist');
  if (name !== oldName) ctx.files.remove(`/host/etc/cni/net.d/${oldName}`);
  return 0;
};

export const CALICO_IMAGES: ImageSpec[] = [
  {
    // docker.io/calico/cni, quay.io/calico/cni, a mirror's …/calico/cni
    image: /^(?:.+\/)?calico\/cni$/,
    entrypoint: ['/opt/cni/bin/install'],
    programs: { install },
  },
];
