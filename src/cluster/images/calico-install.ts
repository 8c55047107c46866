// calico/cni's programs (cni-plugin, v3.32.1): `/opt/cni/bin/install` (install-cni: pkg/install/install.go) and
// `calico-ipam -upgrade` (upgrade-ipam: pkg/ipamplugin Main + pkg/upgrade/migrate.go).
//
// install copies every binary of the image's /opt/cni/bin but itself to /host/opt/cni/bin (calico and calico-ipam
// are aksemu's plugins; flannel, host-local, loopback, portmap and tuning are the reference plugins the image
// ships), writes /host/etc/cni/net.d/calico-kubeconfig with a token for the calico-cni-plugin ServiceAccount
// (TokenRequest; where the API has no serviceaccounts/token the pod's own projected token, as token_watch.go
// falls back to), then the conflist from CNI_NETWORK_CONFIG with its __PLACEHOLDERS__ replaced, mode 0600.
import type { Program, ProgramContext } from './program.js';
import { CALICO_VERSION, calicoLogger } from './calico-log.js';

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
const HOST_BIN = '/host/opt/cni/bin';
const HOST_NET = '/host/etc/cni/net.d';

/** The binaries of calico/cni's /opt/cni/bin (its Makefile: calico, calico-ipam, the reference plugins it builds, install). */
export const CALICO_CNI_FILES = {
  '/opt/cni/bin/calico': { plugin: 'calico' },
  '/opt/cni/bin/calico-ipam': { plugin: 'calico-ipam' },
  '/opt/cni/bin/flannel': { plugin: 'flannel' },
  '/opt/cni/bin/host-local': { plugin: 'host-local' },
  '/opt/cni/bin/loopback': { plugin: 'loopback' },
  '/opt/cni/bin/portmap': { plugin: 'portmap' },
  '/opt/cni/bin/tuning': { plugin: 'tuning' },
} as const;

const env = (ctx: ProgramContext, k: string, d: string) => (Object.hasOwn(ctx.env, k) ? ctx.env[k]! : d);

/** The token for the CNI's kubeconfig: a TokenRequest for calico-cni-plugin, or the pod's own when the API has none. */
function cniToken(ctx: ProgramContext): string | undefined {
  const namespace = ctx.files.read(`${SA_DIR}/namespace`)?.trim() || 'kube-system';
  const sa = env(ctx, 'CALICO_CNI_SERVICE_ACCOUNT', 'calico-cni-plugin');
  const res = ctx.api.create(`/api/v1/namespaces/${namespace}/serviceaccounts/${sa}/token`, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { audiences: [], expirationSeconds: 86400 },
  });
  const token = (res.object as { status?: { token?: unknown } } | undefined)?.status?.token;
  if (typeof token === 'string' && token !== '') return token;
  return ctx.files.read(`${SA_DIR}/token`) ?? undefined;
}

function kubeconfig(ctx: ProgramContext, token: string): string {
  const host = env(ctx, 'KUBERNETES_SERVICE_HOST', '');
  const port = env(ctx, 'KUBERNETES_SERVICE_PORT', '');
  const proto = env(ctx, 'KUBERNETES_SERVICE_PROTOCOL', 'https') || 'https';
  const endpoint = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const tls =
    ctx.env['SKIP_TLS_VERIFY'] === 'true'
      ? 'insecure-skip-tls-verify: true'
      : `certificate-authority-data: ${Buffer.from(ctx.files.read(`${SA_DIR}/ca.crt`) ?? '').toString('base64')}`;
  return [
    '# Kubeconfig file for Calico CNI plugin.',
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: local',
    '  cluster:',
    `    server: ${proto}://${endpoint}`,
    `    ${tls}`,
    'users:',
    '- name: calico',
    '  user:',
    `    token: ${token}`,
    'contexts:',
    '- name: calico-context',
    '  context:',
    '    cluster: local',
    '    user: calico',
    'current-context: calico-context',
    '',
  ].join('\n');
}

/** install.go writeCNIConfig's substitutions, in its order. */
export function calicoNetconf(template: string, ctx: Pick<ProgramContext, 'env' | 'node'>, token: string): string {
  const get = (k: string, d: string) => (Object.hasOwn(ctx.env, k) ? ctx.env[k]! : d);
  const netDir = get('CNI_NET_DIR', '/etc/cni/net.d');
  const replacements: Array<[string, string]> = [
    ['__LOG_LEVEL__', get('LOG_LEVEL', 'info')],
    ['__LOG_FILE_PATH__', get('LOG_FILE_PATH', '/var/log/calico/cni/cni.log')],
    ['__LOG_FILE_MAX_SIZE__', get('LOG_FILE_MAX_SIZE', '100')],
    ['__LOG_FILE_MAX_AGE__', get('LOG_FILE_MAX_AGE', '30')],
    ['__LOG_FILE_MAX_COUNT__', get('LOG_FILE_MAX_COUNT', '10')],
    ['__DATASTORE_TYPE__', get('DATASTORE_TYPE', 'kubernetes')],
    ['__KUBERNETES_NODE_NAME__', get('KUBERNETES_NODE_NAME', ctx.node)],
    ['__KUBECONFIG_FILEPATH__', `${netDir}/calico-kubeconfig`],
    ['__CNI_MTU__', get('CNI_MTU', '1500')],
    ['__KUBERNETES_SERVICE_HOST__', get('KUBERNETES_SERVICE_HOST', '')],
    ['__KUBERNETES_SERVICE_PORT__', get('KUBERNETES_SERVICE_PORT', '')],
    ['__SERVICEACCOUNT_TOKEN__', token],
    ['__CALICO_API_GROUP__', get('CALICO_API_GROUP', 'crd.projectcalico.org/v1')],
    // No etcd TLS assets are mounted (calico.yaml uses the Kubernetes datastore), so install-cni blanks them.
    ['__ETCD_CERT_FILE__', ''],
    ['__ETCD_CA_CERT_FILE__', ''],
    ['__ETCD_KEY_FILE__', ''],
    ['__ETCD_ENDPOINTS__', get('ETCD_ENDPOINTS', '')],
    ['__ETCD_DISCOVERY_SRV__', get('ETCD_DISCOVERY_SRV', '')],
    ['__REQUIRE_MTU_FILE__', get('REQUIRE_MTU_FILE', 'false')],
  ];
  let netconf = template;
  for (const [from, to] of replacements) netconf = netconf.split(from).join(to);
  return netconf;
}

/** Calico's default template when neither CNI_NETWORK_CONFIG nor a file is given is not emulated: calico.yaml always sets it. */
export const calicoInstall: Program = async (ctx) => {
  const log = calicoLogger(ctx, 'cni-installer');
  ctx.files.remove(`${HOST_NET}/calico-tls`);
  const podToken = ctx.files.read(`${SA_DIR}/token`);
  const inPod = typeof podToken === 'string';
  if (inPod) log.info('install.go 134', 'Running as a Kubernetes pod');
  for (const [path, file] of Object.entries(CALICO_CNI_FILES)) {
    if (env(ctx, 'SKIP_CNI_BINARIES', '').split(',').includes(file.plugin)) continue;
    const target = `${HOST_BIN}/${path.slice(path.lastIndexOf('/') + 1)}`;
    try {
      ctx.files.installImageFile(path, target);
    } catch (e) {
      log.error('install.go 205', `Failed to install ${target} error=${JSON.stringify((e as Error).message)}`);
      return 1;
    }
    log.info('install.go 220', `Installed ${target}`);
  }
  log.info('install.go 224', `Wrote Calico CNI binaries to ${HOST_BIN}\n`);
  log.info('install.go 229', `CNI plugin version: ${CALICO_VERSION}`);
  log.info('install.go 181', '/host/secondary-bin-dir is not writeable, skipping');
  const token = inPod ? cniToken(ctx) : undefined;
  if (token !== undefined) ctx.files.write(`${HOST_NET}/calico-kubeconfig`, kubeconfig(ctx, token), 0o600);
  let template = ctx.env['CNI_NETWORK_CONFIG'] ?? '';
  if (template !== '') log.info('install.go 314', 'Using CNI config template from CNI_NETWORK_CONFIG environment variable.');
  const file = ctx.env['CNI_NETWORK_CONFIG_FILE'];
  if (file) {
    log.info('install.go 318', 'Using CNI config template from CNI_NETWORK_CONFIG_FILE');
    const text = ctx.files.read(file);
    if (typeof text !== 'string') {
      log.error('install.go 322', `open ${file}: no such file or directory`);
      return 1;
    }
    template = text;
  }
  const netconf = calicoNetconf(template, ctx, token ?? '');
  try {
    const parsed: unknown = JSON.parse(netconf);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('json: cannot unmarshal into Go value of type map[string]interface {}');
  } catch (e) {
    log.error('install.go 385', `CNI config is not valid JSON: ${(e as Error).message}`);
    return 1;
  }
  const perm = env(ctx, 'TEST_FILE_PERMISSION', '0600');
  log.info('install.go 391', `CNI config file permission is set to ${perm}\n`);
  const name = env(ctx, 'CNI_CONF_NAME', '10-calico.conflist');
  ctx.files.write(`${HOST_NET}/${name}`, netconf, Number.parseInt(perm, 8) || 0o600);
  log.info('install.go 411', `Created ${HOST_NET}/${name}`);
  const oldName = env(ctx, 'CNI_OLD_CONF_NAME', '10-calico.conflist');
  if (name !== oldName) {
    log.info('install.go 416', `Removing ${HOST_NET}/${oldName}`);
    ctx.files.remove(`${HOST_NET}/${oldName}`);
  }
  const sleep = env(ctx, 'SLEEP', 'true') !== 'false';
  log.info('install.go 249', `Done configuring CNI.  Sleep= ${sleep}`);
  if (!sleep) return 0;
  await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
  return 0;
};

/** upgrade-ipam: migrates host-local's allocations of k8s-pod-network to calico-ipam; a fresh node has none. */
export const calicoIpamUpgrade: Program = async (ctx) => {
  if (!ctx.argv.includes('-upgrade')) {
    // Run without -upgrade the binary is the CNI plugin, which wants CNI_COMMAND (skel's words).
    ctx.write('stdout', `${JSON.stringify({ code: 4, msg: 'required env variables [CNI_COMMAND] missing' })}\n`);
    return 1;
  }
  const log = calicoLogger(ctx, 'ipam');
  log.info('ipam_plugin.go 80', 'migrating from host-local to calico-ipam...');
  const node = ctx.env['KUBERNETES_NODE_NAME'] ?? '';
  if (node === '') {
    ctx.write('stderr', `${new Date().toISOString()} [FATAL][1] ipam/ipam_plugin.go 86: KUBERNETES_NODE_NAME not specified, refusing to migrate...\n`);
    return 1;
  }
  log.info('migrate.go 61', `checking host-local IPAM data dir existence... node="${node}"`);
  if (ctx.files.list('/var/lib/cni/networks/k8s-pod-network').length > 0) {
    // Migrating live host-local allocations is not emulated: say so rather than pretend.
    log.error('migrate.go 61', `aksemu does not migrate host-local allocations (/var/lib/cni/networks/k8s-pod-network) node="${node}"`);
    return 1;
  }
  log.info('migrate.go 63', `host-local IPAM data dir not found; no migration necessary, successfully exiting... node="${node}"`);
  log.info('ipam_plugin.go 110', `migration from host-local to calico-ipam complete node="${node}"`);
  return 0;
};
