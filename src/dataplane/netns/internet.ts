// The "internet" (docs/dataplane.md §3.5): one namespace per instance holding 198.51.100.10 on a bridge that
// every VNet router's wan0 joins, routing each VNet's address space back through that VNet's router.
import { Cidr } from '../../net/ip.js';
import { mayFail, sysctl, type IpCmd } from './exec.js';
import { IF, macFor } from './names.js';
import type { NetnsState, RouterState } from './state.js';

/** The "internet": a documentation range (RFC 5737), never routed anywhere real. */
export const INTERNET = { prefixLength: 24, host: '198.51.100.10', wanBase: '198.51.100.0/24' } as const;

export async function buildInternet(state: NetnsState): Promise<void> {
  const inet = state.names.internet();
  // Any port for nobody: the API servers' listeners are bound there unprivileged (api-listener.ts).
  await sysctl(inet, {
    'net.ipv4.ip_forward': 0,
    'net.ipv4.conf.all.rp_filter': 1,
    'net.ipv4.conf.default.rp_filter': 1,
    'net.ipv4.ip_unprivileged_port_start': 0,
  });
  await state.ip.batch(inet, [
    'link set lo up',
    `link add ${IF.internetBridge} address ${macFor(`${inet}:wan`)} type bridge`,
    `link set ${IF.internetBridge} up`,
    `addr replace ${INTERNET.host}/${INTERNET.prefixLength} dev ${IF.internetBridge}`,
  ]);
  state.inet = inet;
}

/** The next free router address on the internet side (.10 is the internet host). */
export function allocateWanIp(state: NetnsState): string {
  const used = new Set([...state.routers.values()].map((r) => r.wanIp));
  const base = Cidr.parse(INTERNET.wanBase);
  for (let i = 1; i < 255; i++) {
    const ip = base.addressAt(i).toString();
    if (ip !== INTERNET.host && !used.has(ip)) return ip;
  }
  throw new Error('no internet-side address left for another VNet router (at most 253 VNets)');
}

/** The internet's routes back to a router, changed from its current spaces to `spaces` (none: it is gone). */
export function routesBack(r: RouterState, spaces: string[]): IpCmd[] {
  const gone = r.spaces.filter((s) => !spaces.includes(s));
  const added = spaces.filter((s) => !r.spaces.includes(s));
  return [...gone.map((s) => mayFail(`route del ${s} via ${r.wanIp}`)), ...added.map((s) => `route replace ${s} via ${r.wanIp}`)];
}
