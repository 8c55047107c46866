// Pod namespaces and their lifecycle: attach (reserve, create the namespace, wire it), detach, and release
// when the pod's node goes. How a pod is wired is its wiring's business (wiring/).
import type { PodAttachment, PodNetwork } from '../dataplane.js';
import { netnsPath } from './exec.js';
import { deleteNamespaces } from './gc.js';
import { assertUnique, podKeyOf, type NetnsState, type PodState } from './state.js';
import { podWiring, WIRINGS } from './wiring/index.js';

export async function attachPod(state: NetnsState, pod: PodAttachment): Promise<PodNetwork> {
  const key = podKeyOf(pod);
  const existing = state.pods.get(key);
  if (existing) return { ip: existing.ip, netns: netnsPath(existing.netns) };
  const host = state.hosts.get(pod.hostId.toLowerCase());
  if (!host || host.kind !== 'node' || !host.node) throw new Error(`node ${pod.node} (${pod.hostId}) is not in the data plane: apply a topology with it first`);
  const netns = state.names.pod(key);
  const kind = podWiring(pod, host.node);
  const wiring = WIRINGS[kind];
  const ip = wiring.admit(pod, host, state.pods);
  assertUnique(state, [netns]);
  const p: PodState = {
    key,
    netns,
    clusterId: pod.clusterId,
    namespace: pod.namespace,
    name: pod.name,
    hostId: host.id.toLowerCase(),
    ip: ip ?? '',
    wiring: kind,
    attachment: pod,
  };
  // Reserved before the first await, so concurrent attaches see the port count and the address.
  state.pods.set(key, p);
  host.pods.add(key);
  try {
    await state.ip.batch(null, [`netns add ${netns}`]);
    p.ip = await wiring.wire(state.ip, host, p);
  } catch (e) {
    state.pods.delete(key);
    host.pods.delete(key);
    await wiring.unwire?.(pod, host.netns, netns).catch(() => undefined);
    await deleteNamespaces(state.ip, [netns]);
    throw e;
  }
  return { ip: p.ip, netns: netnsPath(netns) };
}

export async function detachPod(state: NetnsState, pod: PodAttachment): Promise<void> {
  const key = podKeyOf(pod);
  const p = state.pods.get(key);
  const netns = p?.netns ?? state.names.pod(key);
  const host = state.hosts.get((p?.hostId ?? pod.hostId).toLowerCase());
  const kind = host && podWiring(pod, host.node);
  const wiring = kind && WIRINGS[kind];
  if (host) await wiring?.unwire?.(pod, host.netns, netns);
  // Deleting the namespace takes the veth with it (an `ip link del` costs ~17 ms each: pitfall 7).
  await deleteNamespaces(state.ip, [netns]);
  const ip = p?.ip ?? pod.ip;
  if (host && ip && wiring?.forget) await state.ip.batch(host.netns, wiring.forget(ip));
  state.pods.delete(key);
  host?.pods.delete(key);
}

/** Forgets pods whose node goes, unwiring each first (else CNI IPAM addresses leak: pitfall 11). */
export async function releasePods(state: NetnsState, keys: string[]): Promise<string[]> {
  const netns: string[] = [];
  for (const key of keys) {
    const p = state.pods.get(key);
    if (!p) continue;
    const host = state.hosts.get(p.hostId);
    const unwire = WIRINGS[p.wiring].unwire;
    if (unwire && host) await unwire(p.attachment, host.netns, p.netns).catch(() => undefined);
    netns.push(p.netns);
    state.pods.delete(key);
    host?.pods.delete(key);
  }
  return netns;
}
