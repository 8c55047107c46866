// flannel's CNI plugin (flannel-io/cni-plugin: flannel.go, flannel_linux.go), as aksemu runs it on a node. It does
// what the real one does: reads the subnet file flanneld wrote (subnetFile, default /run/flannel/subnet.env),
// renders the delegate's configuration (the conflist's `delegate`, bridge by default, named after the network,
// ipMasq the opposite of FLANNEL_IPMASQ, mtu FLANNEL_MTU, isGateway for a bridge, IPAM host-local with the node's
// subnet as its one range and the flannel network as a route), saves it under dataDir (default
// /var/lib/cni/flannel/<container id>) for DEL, and runs the delegate from CNI_PATH. DEL runs the delegate with the
// saved configuration and removes it; a missing one is nothing to do. CHECK does nothing (the real one's TODO).
//
// Beyond the real one, two facts of aksemu (plugin.ts): node paths are under req.nodeRoot, and a host-local IPAM
// keeps its leases in the node's /var/lib/cni/networks (dataDir added when the delegate runs, not in the saved
// file, which stays as flannel writes it). Without a data plane (req.addressOnly) only the delegate's IPAM runs,
// with the same configuration the bridge would hand it, and its result is the answer.
//
// Errors are the real plugin's: its own failures are code 999 (skel wraps a plain error as ErrInternal) with its
// wording, and a delegate's error object passes through as the delegate printed it (skel does not wrap an Error).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { Cidr } from '../../net/ip.js';
import { findPlugin } from '../exec.js';
import { delegate } from './links.js';
import { type Plugin, PluginError, type PluginRequest } from './plugin.js';

const DEFAULT_SUBNET_FILE = '/run/flannel/subnet.env';
const DEFAULT_DATA_DIR = '/var/lib/cni/flannel';
/** skel's ErrInternal: what a plugin's plain Go error becomes. */
const INTERNAL = 999;

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What flanneld wrote for this node (flannel.go subnetEnv). */
interface SubnetEnv {
  networks: Cidr[];
  subnet?: Cidr;
  ip6Networks: Cidr[];
  ip6Subnet?: Cidr;
  mtu?: number;
  ipmasq?: boolean;
}

/** A node path under the node's root; `..` cannot leave it. */
function nodePath(req: PluginRequest, path: string): string {
  return join(req.nodeRoot, posix.normalize(`/${path}`));
}

/** Go's net.ParseCIDR: the network of `10.244.1.1/24` is 10.244.1.0/24. */
function parseCidr(text: string): Cidr {
  try {
    return Cidr.parse(text, { canonical: false });
  } catch {
    throw new Error(`invalid CIDR address: ${text}`);
  }
}

function addUnique(list: Cidr[], cidr: Cidr): void {
  if (!list.some((c) => c.equals(cidr))) list.push(cidr);
}

/** loadFlannelSubnetEnv: KEY=VALUE lines; a missing key is named in the error as the real one names it. */
function loadSubnetEnv(file: string, hostFile: string): SubnetEnv {
  let text: string;
  try {
    text = readFileSync(hostFile, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(`open ${file}: ${code === 'ENOENT' ? 'no such file or directory' : code === 'EISDIR' ? 'is a directory' : 'permission denied'}`);
  }
  const env: SubnetEnv = { networks: [], ip6Networks: [] };
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    const key = eq < 0 ? line : line.slice(0, eq);
    const value = eq < 0 ? '' : line.slice(eq + 1);
    if (key === 'FLANNEL_NETWORK') {
      env.networks = [];
      for (const c of value.split(',')) addUnique(env.networks, parseCidr(c));
    } else if (key === 'FLANNEL_SUBNET') env.subnet = parseCidr(value);
    else if (key === 'FLANNEL_IPV6_NETWORK') {
      env.ip6Networks = [];
      for (const c of value.split(',')) addUnique(env.ip6Networks, parseCidr(c));
    } else if (key === 'FLANNEL_IPV6_SUBNET') env.ip6Subnet = parseCidr(value);
    else if (key === 'FLANNEL_MTU') {
      if (!/^[0-9]{1,10}$/.test(value) || Number(value) > 0xffffffff) throw new Error(`strconv.ParseUint: parsing "${value}": invalid syntax`);
      env.mtu = Number(value);
    } else if (key === 'FLANNEL_IPMASQ') env.ipmasq = value === 'true';
  }
  const missing: string[] = [];
  if (env.networks.length === 0 && env.ip6Networks.length === 0) missing.push('FLANNEL_NETWORK', 'FLANNEL_IPV6_NETWORK');
  if (!env.subnet && !env.ip6Subnet) missing.push('FLANNEL_SUBNET', 'FLANNEL_IPV6_SUBNET');
  if (env.mtu === undefined) missing.push('FLANNEL_MTU');
  if (env.ipmasq === undefined) missing.push('FLANNEL_IPMASQ');
  if (missing.length > 0) throw new Error(`${file} is missing ${missing.join(', ')}`);
  return env;
}

/** The plugin's own settings from stdin (loadFlannelNetConf): subnetFile, dataDir, delegate, ipam, runtimeConfig. */
function netConf(config: Obj): { subnetFile: string; dataDir: string; delegate: Obj | undefined; ipam: Obj | undefined; runtimeConfig: Obj | undefined } {
  const str = (key: string, fallback: string): string => {
    const v = config[key];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'string') throw new Error(`failed to load netconf: json: cannot unmarshal ${typeof v} into Go struct field NetConf.${key} of type string`);
    return v;
  };
  const map = (key: string): Obj | undefined => {
    const v = config[key];
    if (v === undefined || v === null) return undefined;
    if (!isObj(v))
      throw new Error(
        `failed to load netconf: json: cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v} into Go struct field NetConf.${key} of type map[string]interface {}`,
      );
    return v;
  };
  return {
    subnetFile: str('subnetFile', DEFAULT_SUBNET_FILE),
    dataDir: str('dataDir', DEFAULT_DATA_DIR),
    delegate: map('delegate'),
    ipam: map('ipam'),
    runtimeConfig: map('runtimeConfig'),
  };
}

/** getDelegateIPAM: the conflist's ipam (host-local by default) with the node's subnets as ranges and the networks as routes. */
function delegateIpam(ipam: Obj | undefined, env: SubnetEnv): Obj {
  const out: Obj = { ...(ipam ?? {}) };
  if (!Object.hasOwn(out, 'type')) out['type'] = 'host-local';
  const ranges: Obj[][] = [];
  if (env.subnet) ranges.push([{ subnet: env.subnet.toString() }]);
  if (env.ip6Subnet) ranges.push([{ subnet: env.ip6Subnet.toString() }]);
  out['ranges'] = ranges;
  const given = out['routes'];
  if (given !== undefined && !Array.isArray(given))
    throw new Error('failed to assemble Delegate IPAM: failed to read IPAM routes: failed to parse ipam.routes: json: cannot unmarshal into []types.Route');
  out['routes'] = [...(Array.isArray(given) ? given : []), ...[...env.networks, ...env.ip6Networks].map((n) => ({ dst: n.toString() }))];
  return out;
}

/** cmdAdd + doCmdAdd: the delegate's configuration, as flannel renders it. */
function renderDelegate(config: Obj, conf: ReturnType<typeof netConf>, env: SubnetEnv): Obj {
  const delegate: Obj = { ...(conf.delegate ?? {}) };
  if (conf.delegate) {
    if (Object.hasOwn(delegate, 'type') && typeof delegate['type'] !== 'string')
      throw new Error(`'delegate' dictionary, if present, must have (string) 'type' field`);
    if (Object.hasOwn(delegate, 'name')) throw new Error(`'delegate' dictionary must not have 'name' field, it'll be set by flannel`);
    if (Object.hasOwn(delegate, 'ipam')) throw new Error(`'delegate' dictionary must not have 'ipam' field, it'll be set by flannel`);
  }
  if (conf.runtimeConfig) delegate['runtimeConfig'] = conf.runtimeConfig;
  delegate['name'] = config['name'];
  if (!Object.hasOwn(delegate, 'type')) delegate['type'] = 'bridge';
  // If flannel is not masquerading, the bridge should.
  if (!Object.hasOwn(delegate, 'ipMasq')) delegate['ipMasq'] = !env.ipmasq;
  if (!Object.hasOwn(delegate, 'mtu')) delegate['mtu'] = env.mtu;
  if (delegate['type'] === 'bridge' && !Object.hasOwn(delegate, 'isGateway')) delegate['isGateway'] = true;
  if (typeof config['cniVersion'] === 'string' && config['cniVersion'] !== '') delegate['cniVersion'] = config['cniVersion'];
  delegate['ipam'] = delegateIpam(conf.ipam, env);
  return delegate;
}

/** JSON as Go's encoding/json writes a map: keys sorted. */
function goJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (isObj(value))
    return `{${Object.keys(value)
      .sort()
      .filter((k) => value[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${goJson(value[k])}`)
      .join(',')}}`;
  return JSON.stringify(value ?? null);
}

/** skel's check of CNI_CONTAINERID (utils.ValidateContainerID): it names the saved file, so no path tricks. */
function checkContainerId(id: string): void {
  if (!/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(id)) throw new PluginError(4, 'invalid characters in containerID', id);
}

/**
 * Address only, the kubelet may send no CNI_NETNS, but an IPAM plugin's skel requires one on ADD: a path under the
 * node that never exists (host-local never opens it).
 */
function placeholderNetns(req: PluginRequest): string {
  return join(req.nodeRoot, 'var', 'run', 'netns', `cni-${req.containerId.slice(0, 12)}`);
}

/**
 * invoke.DelegateAdd / DelegateDel through links.ts's delegate (host-local's state in the node). Without a data
 * plane only the delegate's IPAM runs (the part that gives the address).
 */
async function runDelegate(req: PluginRequest, command: 'ADD' | 'DEL', conf: Obj): Promise<Obj | undefined> {
  const ipam = conf['ipam'];
  const type = req.addressOnly && isObj(ipam) && typeof ipam['type'] === 'string' ? ipam['type'] : String(conf['type']);
  if (!findPlugin(type, req.path))
    throw new PluginError(INTERNAL, `failed to delegate ${command.toLowerCase()}: failed to find plugin "${type}" in path [${req.path.join(' ')}]`);
  const netns = req.netns || (req.addressOnly && command === 'ADD' ? placeholderNetns(req) : '');
  return delegate({ ...req, netns }, type, conf, command);
}

async function add(req: PluginRequest): Promise<Obj | undefined> {
  let conf: ReturnType<typeof netConf>;
  try {
    conf = netConf(req.config);
  } catch (e) {
    throw new PluginError(INTERNAL, `failed to load flannel netconf file: ${(e as Error).message}`);
  }
  let env: SubnetEnv;
  try {
    env = loadSubnetEnv(conf.subnetFile, nodePath(req, conf.subnetFile));
  } catch (e) {
    throw new PluginError(INTERNAL, `failed to load flannel 'subnet.env' file: ${(e as Error).message}. Check the flannel pod log for this node.`);
  }
  let delegate: Obj;
  try {
    delegate = renderDelegate(req.config, conf, env);
  } catch (e) {
    throw new PluginError(INTERNAL, (e as Error).message);
  }
  // Saved for DEL before the delegate runs (saveScratchNetConf: dir 0700, file 0600).
  const dir = nodePath(req, conf.dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, req.containerId), goJson(delegate), { mode: 0o600 });
  return runDelegate(req, 'ADD', delegate);
}

async function del(req: PluginRequest): Promise<undefined> {
  let conf: ReturnType<typeof netConf>;
  try {
    conf = netConf(req.config);
  } catch (e) {
    throw new PluginError(INTERNAL, (e as Error).message);
  }
  const file = join(nodePath(req, conf.dataDir), req.containerId);
  let saved: string;
  try {
    saved = readFileSync(file, 'utf8');
  } catch (e) {
    // Per the spec, what is already gone is no error.
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new PluginError(INTERNAL, `open ${posix.join(conf.dataDir, req.containerId)}: ${(e as Error).message}`);
  }
  let delegate: unknown;
  try {
    delegate = JSON.parse(saved);
  } catch {
    delegate = undefined;
  }
  // The real one leaves an unreadable file be and succeeds (the interface goes at the node's next boot).
  if (!isObj(delegate) || typeof delegate['type'] !== 'string') return undefined;
  await runDelegate(req, 'DEL', delegate);
  rmSync(file, { force: true });
  return undefined;
}

export const FLANNEL_PLUGIN: Plugin = {
  // containernetworking/cni version.All, which the real plugin declares.
  supportedVersions: ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'],
  async run(req) {
    if (req.command === 'ADD' || req.command === 'DEL') checkContainerId(req.containerId);
    if (req.command === 'ADD') return add(req);
    if (req.command === 'DEL') return del(req);
    return undefined;
  },
};
