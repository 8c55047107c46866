// What aksemu's CNI plugins use to wire a pod (docs/dataplane.md §6.3). A plugin runs inside its node's network
// namespace (the runtime nsenters it there), so host-side changes are made where the process is, and pod-side
// ones through `nsenter --net=<CNI_NETNS>`; each side is one `ip -force -b -` process.
//   - a routed veth, Calico's shape (cni-plugin/pkg/dataplane/linux/dataplane_linux.go): host end `cali<hash>`
//     with proxy ARP, forwarding and a /32 route to the pod; pod end CNI_IFNAME holding the pod IP /32, a link
//     route to a gateway that exists nowhere (169.254.1.1) and the pod's routes via it. Cilium's lxc… has the
//     same shape with its router IP as the gateway. Neighbours are written permanent both ways with
//     deterministic MACs (docs/dataplane.md §7.1), so no ARP is needed;
//   - delegation: another plugin of CNI_PATH run with the caller's CNI environment and a config of its own
//     (flannel → bridge + host-local), as libcni's invoke.DelegateAdd does;
//   - the result object of an attachment, in the spelling of the config's cniVersion.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CniError, execPlugin } from '../exec.js';
import { compareVersions } from '../version.js';
import { type PluginRequest, PluginError } from './plugin.js';

/** The gateway every Calico pod routes through: a link-local address no interface holds. */
export const CALICO_GATEWAY = '169.254.1.1';
/** Calico's host-side MAC on every cali… veth. */
export const CALICO_HOST_MAC = 'ee:ee:ee:ee:ee:ee';

/** skel's code for an error that is not a CNI error object (types.ErrInternal). */
const INTERNAL = 999;
const INVALID_ENV = 4;

/** A locally administered unicast MAC derived from `text` (the same derivation as the data plane's). */
export function localMac(text: string): string {
  const hex = createHash('sha1').update(`mac:${text}`).digest('hex');
  return ['02', ...[0, 2, 4, 6, 8].map((i) => hex.slice(i, i + 2))].join(':');
}

/** `<prefix><sha1 hex>` filling IFNAMSIZ: Calico's VethNameForWorkload is `cali` + sha1("<namespace>.<pod>")[:11]. */
export function hostVethName(prefix: string, key: string): string {
  return (
    prefix +
    createHash('sha1')
      .update(key)
      .digest('hex')
      .slice(0, 15 - prefix.length)
  );
}

const IFNAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,14}$/;
const IPV4_RE = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const MAC_RE = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/;

function checked(value: string, re: RegExp, what: string, code = INTERNAL): string {
  if (!re.test(value)) throw new PluginError(code, `invalid ${what} "${value}"`);
  return value;
}

function ipv4Prefix(text: string, what: string): string {
  const [addr = '', len = '32', extra] = text.split('/');
  if (extra !== undefined || !IPV4_RE.test(addr) || !/^(\d|[12]\d|3[0-2])$/.test(len)) throw new PluginError(INTERNAL, `invalid ${what} "${text}"`);
  return `${addr}/${len}`;
}

type Line = string | { line: string; mayFail: true };

/** One `ip -force -b -` process, here (netns undefined) or in a namespace; may-fail lines may fail. */
async function ipBatch(netns: string | undefined, lines: Line[], what: string): Promise<void> {
  const text = lines.map((l) => (typeof l === 'string' ? l : l.line));
  const [file, args] = netns ? ['nsenter', [`--net=${netns}`, 'ip', '-force', '-b', '-']] : ['ip', ['-force', '-b', '-']];
  const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve) => {
    const child = execFile(file, args, { timeout: 30_000 }, (err, _stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stderr: String(stderr) }),
    );
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(`${text.join('\n')}\n`);
  });
  if (code === 0) return;
  // iproute2 prints why, then `Command failed -:N`, for every line that failed.
  const failed: string[] = [];
  let why = '';
  for (const l of stderr.split('\n').map((s) => s.trim())) {
    const n = /^Command failed -:(\d+)$/.exec(l)?.[1];
    if (n === undefined) why = why ? `${why} ${l}`.trim() : l;
    else {
      if (typeof lines[Number(n) - 1] === 'string') failed.push(`${text[Number(n) - 1]}: ${why || 'failed'}`);
      why = '';
    }
  }
  if (failed.length || !stderr.includes('Command failed'))
    throw new PluginError(INTERNAL, `failed to set up ${what}`, failed.join('; ') || stderr.trim().slice(0, 500));
}

export interface RoutedVeth {
  /** CNI_NETNS: the pod's namespace path. */
  netns: string;
  /** CNI_IFNAME: the pod end's name. */
  ifName: string;
  /** The node end's name (hostVethName). */
  hostIf: string;
  /** The pod's IPv4 address (held as /32). */
  ip: string;
  /** The next hop the pod routes through: CALICO_GATEWAY, or Cilium's router IP. */
  gateway: string;
  /** Prefixes the pod routes via the gateway (default: everything). */
  routes?: string[];
  mtu?: number;
  /** The node end's MAC (default: derived from hostIf). */
  hostMac?: string;
  /** PluginRequest.hostNetns: the node's namespace when the plugin does not run in it; default where it runs. */
  hostNetns?: string;
}

/** The MACs of a routed veth: the node end's and the pod end's (deterministic, so neighbours can be static). */
export function routedVethMacs(v: Pick<RoutedVeth, 'hostIf' | 'hostMac'>): { hostMac: string; podMac: string } {
  return { hostMac: v.hostMac ?? localMac(`host:${v.hostIf}`), podMac: localMac(`pod:${v.hostIf}`) };
}

function checkedVeth(v: RoutedVeth): Required<Omit<RoutedVeth, 'hostNetns'>> & { podMac: string } {
  const { hostMac, podMac } = routedVethMacs(v);
  const mtu = v.mtu ?? 1500;
  if (!Number.isInteger(mtu) || mtu < 68 || mtu > 65535) throw new PluginError(INTERNAL, `invalid MTU ${mtu}`);
  if (!v.netns.startsWith('/') || /\s/.test(v.netns)) throw new PluginError(INVALID_ENV, `invalid CNI_NETNS "${v.netns}"`);
  return {
    netns: v.netns,
    ifName: checked(v.ifName, IFNAME_RE, 'CNI_IFNAME', INVALID_ENV),
    hostIf: checked(v.hostIf, IFNAME_RE, 'host interface name'),
    ip: checked(v.ip, IPV4_RE, 'pod address'),
    gateway: checked(v.gateway, IPV4_RE, 'gateway'),
    routes: (v.routes ?? ['0.0.0.0/0']).map((r) => ipv4Prefix(r, 'route')),
    mtu,
    hostMac: checked(hostMac.toLowerCase(), MAC_RE, 'MAC'),
    podMac,
  };
}

/**
 * Creates the veth (replacing a node end of the same name left by an earlier sandbox, as Calico does) and
 * wires both ends. Resolves with the MACs for the result.
 */
export async function addRoutedVeth(veth: RoutedVeth): Promise<{ hostMac: string; podMac: string }> {
  const v = checkedVeth(veth);
  await ipBatch(
    veth.hostNetns,
    [
      { line: `link del ${v.hostIf}`, mayFail: true },
      `link add ${v.hostIf} address ${v.hostMac} mtu ${v.mtu} type veth peer name ${v.ifName} address ${v.podMac} mtu ${v.mtu} netns ${v.netns}`,
      `link set ${v.hostIf} up`,
      `route replace ${v.ip}/32 dev ${v.hostIf} scope link`,
      `neigh replace ${v.ip} lladdr ${v.podMac} dev ${v.hostIf} nud permanent`,
    ],
    `the host end ${v.hostIf}`,
  );
  await hostSysctls(v.hostIf, veth.hostNetns);
  await ipBatch(
    v.netns,
    [
      `link set ${v.ifName} up`,
      `addr add ${v.ip}/32 dev ${v.ifName}`,
      `route add ${v.gateway}/32 dev ${v.ifName} scope link`,
      ...v.routes.map((r) => `route add ${r} via ${v.gateway} dev ${v.ifName}`),
      `neigh replace ${v.gateway} lladdr ${v.hostMac} dev ${v.ifName} nud permanent`,
    ],
    `${v.ifName} in ${v.netns}`,
  );
  return { hostMac: v.hostMac, podMac: v.podMac };
}

/** The node end's proxy ARP and forwarding, in the node's namespace. */
async function hostSysctls(hostIf: string, hostNetns: string | undefined): Promise<void> {
  const keys = [`net/ipv4/conf/${hostIf}/proxy_arp=1`, `net/ipv4/neigh/${hostIf}/proxy_delay=0`, `net/ipv4/conf/${hostIf}/forwarding=1`];
  try {
    if (hostNetns === undefined) {
      // /proc/sys/net is the namespace of the process that opens it: the node's, where the plugin runs.
      for (const kv of keys) {
        const [key = '', value = ''] = kv.split('=');
        writeFileSync(`/proc/sys/${key}`, value);
      }
      return;
    }
    // Run in the runtime's process: written by a process in the node's namespace.
    await new Promise<void>((resolve, reject) =>
      execFile('nsenter', [`--net=${hostNetns}`, 'sysctl', '-q', '-w', ...keys], { timeout: 30_000 }, (err, _stdout, stderr) =>
        err ? reject(new Error(String(stderr).trim() || err.message)) : resolve(),
      ),
    );
  } catch (e) {
    throw new PluginError(INTERNAL, `failed to set net.ipv4.conf.${hostIf}.proxy_arp=1`, (e as Error).message);
  }
}

/** DEL: the node end goes, and the pod end with it; nothing there is fine (DEL is idempotent). */
export async function delRoutedVeth(hostIf: string, hostNetns?: string): Promise<void> {
  await ipBatch(hostNetns, [{ line: `link del ${checked(hostIf, IFNAME_RE, 'host interface name')}`, mayFail: true }], hostIf);
}

/**
 * Runs a delegate plugin of CNI_PATH for this request with `config` on stdin and the caller's CNI environment,
 * as libcni's invoke.DelegateAdd/DelegateDel do. host-local keeps its state in the node's /var/lib/cni/networks,
 * never the machine's. The delegate's error object is passed on as the caller's.
 */
export async function delegate(
  req: PluginRequest,
  type: string,
  config: Record<string, unknown>,
  command = req.command,
): Promise<Record<string, unknown> | undefined> {
  const args = Object.fromEntries(Object.entries(req.args).filter(([k]) => k.toLowerCase() !== 'ignoreunknown'));
  try {
    return await execPlugin({
      command,
      type,
      path: req.path,
      config: withNodeIpamDir(config, req.nodeRoot),
      containerId: req.containerId,
      netns: req.netns,
      ifName: req.ifName,
      args,
      ...(req.hostNetns ? { hostNetns: req.hostNetns } : {}),
    });
  } catch (e) {
    if (e instanceof CniError) throw new PluginError(e.error.code, e.error.msg, e.error.details);
    throw e;
  }
}

/** host-local's dataDir is the node's (plugin.ts: every host-local delegate's state lives under the node root). */
function withNodeIpamDir(config: Record<string, unknown>, nodeRoot: string): Record<string, unknown> {
  const ipam = config['ipam'];
  if (!ipam || typeof ipam !== 'object' || (ipam as Record<string, unknown>)['type'] !== 'host-local') return config;
  return { ...config, ipam: { ...(ipam as Record<string, unknown>), dataDir: join(nodeRoot, 'var', 'lib', 'cni', 'networks') } };
}

export interface ResultInterface {
  name: string;
  mac?: string;
  /** The pod's namespace path for an interface inside it; absent for a node-side one. */
  sandbox?: string;
}

export interface ResultIp {
  /** With its prefix length (`10.244.1.5/32`). */
  address: string;
  gateway?: string;
  /** Index into interfaces. */
  interface?: number;
}

export interface AttachmentResult {
  interfaces?: ResultInterface[];
  ips: ResultIp[];
  routes?: Array<{ dst: string; gw?: string }>;
  dns?: { nameservers?: string[]; domain?: string; search?: string[]; options?: string[] };
}

/** The result object in the config's cniVersion: before 1.0.0 each IP also names its version ("4" or "6"). */
export function cniResult(cniVersion: string, r: AttachmentResult): Record<string, unknown> {
  const legacy = compareVersions(cniVersion, '1.0.0') < 0;
  return {
    cniVersion,
    ...(r.interfaces ? { interfaces: r.interfaces } : {}),
    ips: r.ips.map((ip) => (legacy ? { version: ip.address.includes(':') ? '6' : '4', ...ip } : ip)),
    ...(r.routes ? { routes: r.routes } : {}),
    dns: r.dns ?? {},
  };
}

/** The result of a routed veth: the node end, the pod end in its sandbox, the pod IP /32 on it, the routes. */
export function routedVethResult(cniVersion: string, veth: RoutedVeth, dns?: AttachmentResult['dns']): Record<string, unknown> {
  const { hostMac, podMac } = routedVethMacs(veth);
  return cniResult(cniVersion, {
    interfaces: [
      { name: veth.hostIf, mac: hostMac },
      { name: veth.ifName, mac: podMac, sandbox: veth.netns },
    ],
    ips: [{ address: `${veth.ip}/32`, interface: 1 }],
    routes: (veth.routes ?? ['0.0.0.0/0']).map((dst) => ({ dst, gw: veth.gateway })),
    ...(dns ? { dns } : {}),
  });
}
