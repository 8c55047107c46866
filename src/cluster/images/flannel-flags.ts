// flanneld's command line (flannel v0.28.9 main.go: the flannel FlagSet, CmdLineOpts), as data: each flag's name,
// its CmdLineOpts field (the order `CLI flags config: %+v` prints them in), its kind and default. Parsed as Go's
// flag package does (`-x`, `--x`, `-x=v`, `-x v` for a non-boolean, stop at the first non-flag), then
// FLANNELD_<NAME> environment variables fill the flags the command line left unset (flagutil.SetFlagsFromEnv).
type Kind = 'string' | 'bool' | 'int' | 'list';

interface Flag {
  name: string;
  field: string;
  kind: Kind;
  default?: string | boolean | number;
}

const FLAGS: readonly Flag[] = [
  { name: 'etcd-endpoints', field: 'etcdEndpoints', kind: 'string', default: 'http://127.0.0.1:4001,http://127.0.0.1:2379' },
  { name: 'etcd-prefix', field: 'etcdPrefix', kind: 'string', default: '/coreos.com/network' },
  { name: 'etcd-keyfile', field: 'etcdKeyfile', kind: 'string' },
  { name: 'etcd-certfile', field: 'etcdCertfile', kind: 'string' },
  { name: 'etcd-cafile', field: 'etcdCAFile', kind: 'string' },
  { name: 'etcd-username', field: 'etcdUsername', kind: 'string' },
  { name: 'etcd-password', field: 'etcdPassword', kind: 'string' },
  { name: 'version', field: 'version', kind: 'bool' },
  { name: 'kube-subnet-mgr', field: 'kubeSubnetMgr', kind: 'bool' },
  { name: 'kube-api-url', field: 'kubeApiUrl', kind: 'string' },
  { name: 'kube-annotation-prefix', field: 'kubeAnnotationPrefix', kind: 'string', default: 'flannel.alpha.coreos.com' },
  { name: 'kubeconfig-file', field: 'kubeConfigFile', kind: 'string' },
  { name: 'iface', field: 'iface', kind: 'list' },
  { name: 'iface-regex', field: 'ifaceRegex', kind: 'list' },
  { name: 'ip-masq', field: 'ipMasq', kind: 'bool' },
  { name: 'ip-masq-fully-random-disable', field: 'ipMasqRandomFullyDisable', kind: 'bool' },
  { name: 'iface-can-reach', field: 'ifaceCanReach', kind: 'string' },
  { name: 'subnet-file', field: 'subnetFile', kind: 'string', default: '/run/flannel/subnet.env' },
  { name: 'public-ip', field: 'publicIP', kind: 'string' },
  { name: 'public-ipv6', field: 'publicIPv6', kind: 'string' },
  { name: 'subnet-lease-renew-margin', field: 'subnetLeaseRenewMargin', kind: 'int', default: 60 },
  { name: 'healthz-ip', field: 'healthzIP', kind: 'string', default: '0.0.0.0' },
  { name: 'healthz-port', field: 'healthzPort', kind: 'int', default: 0 },
  { name: 'iptables-resync', field: 'iptablesResyncSeconds', kind: 'int', default: 5 },
  { name: 'iptables-forward-rules', field: 'iptablesForwardRules', kind: 'bool', default: true },
  { name: 'ip-blackhole-route', field: 'blackholeRoute', kind: 'bool' },
  { name: 'net-config-path', field: 'netConfPath', kind: 'string', default: '/etc/kube-flannel/net-conf.json' },
  { name: 'set-node-network-unavailable', field: 'setNodeNetworkUnavailable', kind: 'bool', default: true },
];

/** klog's flags flanneld copies in (accepted, not used here). */
const KLOG_FLAGS: ReadonlySet<string> = new Set(['v', 'vmodule', 'log_backtrace_at']);

export type FlagValue = string | boolean | number | string[];

export interface FlannelOptions {
  values: Map<string, FlagValue>;
  string(name: string): string;
  bool(name: string): boolean;
  int(name: string): number;
  /** CmdLineOpts as `%+v` prints it. */
  describe(): string;
}

/** A command line the flag package refuses: its message, then flanneld exits 2 (flag.ExitOnError). */
export class FlagError extends Error {}

function defaultOf(flag: Flag): FlagValue {
  if (flag.kind === 'list') return [];
  return flag.default ?? (flag.kind === 'bool' ? false : flag.kind === 'int' ? 0 : '');
}

function parseValue(flag: Flag, text: string): FlagValue {
  if (flag.kind === 'bool') {
    if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(text)) return true;
    if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(text)) return false;
    throw new FlagError(`invalid boolean value "${text}" for -${flag.name}: parse error`);
  }
  if (flag.kind === 'int') {
    if (!/^[+-]?[0-9]{1,18}$/.test(text)) throw new FlagError(`invalid value "${text}" for flag -${flag.name}: parse error`);
    return Number(text);
  }
  return text;
}

export function parseFlannelFlags(args: readonly string[], env: Record<string, string>): FlannelOptions {
  const values = new Map<string, FlagValue>(FLAGS.map((f) => [f.name, defaultOf(f)]));
  const set = new Set<string>();
  const assign = (flag: Flag, text: string): void => {
    const v = parseValue(flag, text);
    const prev = values.get(flag.name);
    values.set(flag.name, flag.kind === 'list' ? [...(prev as string[]), String(v)] : v);
    set.add(flag.name);
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') break;
    if (!arg.startsWith('-') || arg === '-') break;
    const body = arg.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq < 0 ? body : body.slice(0, eq);
    if (KLOG_FLAGS.has(name)) {
      if (eq < 0) i++;
      continue;
    }
    const flag = FLAGS.find((f) => f.name === name);
    if (!flag) throw new FlagError(`flag provided but not defined: -${name}`);
    if (eq >= 0) assign(flag, body.slice(eq + 1));
    else if (flag.kind === 'bool') assign(flag, 'true');
    else if (i + 1 < args.length) assign(flag, args[++i]!);
    else throw new FlagError(`flag needs an argument: -${name}`);
  }
  for (const flag of FLAGS) {
    const key = `FLANNELD_${flag.name.toUpperCase().replace(/-/g, '_')}`;
    if (!set.has(flag.name) && Object.hasOwn(env, key) && env[key] !== '') assign(flag, env[key]!);
  }
  return {
    values,
    string: (name) => String(values.get(name) ?? ''),
    bool: (name) => values.get(name) === true,
    int: (name) => Number(values.get(name) ?? 0),
    describe: () =>
      `{${FLAGS.map((f) => {
        const v = values.get(f.name);
        return `${f.field}:${Array.isArray(v) ? `[${v.join(' ')}]` : String(v)}`;
      }).join(' ')}}`,
  };
}
