// cilium-operator-generic (quay.io/cilium/operator-generic): registers Cilium's CRDs (cilium-crds.ts), takes the
// leader Lease (cilium-operator-resource-lock; the Deployment runs two replicas, one leads), and as leader runs
// cluster-pool IPAM (cilium/cilium pkg/ipam/allocator/clusterpool): every CiliumNode without pod CIDRs gets
// spec.ipam.podCIDRs, a block of cluster-pool-ipv4-mask-size bits carved from cluster-pool-ipv4-cidr in order
// (the same cidrset as kube-controller-manager's), and status.ipam.operator-status; a CiliumNode whose Node is
// gone is deleted, its block freed.
import { randomBytes } from 'node:crypto';
import { CidrSet } from '../../net/cidrset.js';
import { Cidr } from '../../net/ip.js';
import type { KubeObject } from '../apimachinery/object.js';
import { listValue, logLine, pause, readCiliumConfig } from './cilium-config.js';
import { ciliumCrds, ciliumPath } from './cilium-crds.js';
import type { Program, ProgramContext } from './program.js';

const SUBSYS = 'cilium-operator-generic';
const LEASE = 'cilium-operator-resource-lock';
const LEASE_SECONDS = 15;
const RENEW_MS = 2_000;
const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

function registerCrds(ctx: ProgramContext): void {
  for (const crd of ciliumCrds()) {
    const res = ctx.api.create(CRD_PATH, crd);
    if (res.status === 409) continue;
    if (res.object) logLine(ctx, 'k8s', 'info', 'Creating CRD (CustomResourceDefinition)...', { name: crd.metadata.name });
    else logLine(ctx, 'k8s', 'error', 'Unable to create CRD', { name: crd.metadata.name, error: JSON.stringify(res.error ?? res.status) });
  }
}

/** Takes or renews the Lease; true while this replica holds it. */
function lead(ctx: ProgramContext, identity: string, namespace: string): boolean {
  const path = `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`;
  const now = new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
  const spec = { holderIdentity: identity, leaseDurationSeconds: LEASE_SECONDS, acquireTime: now, renewTime: now, leaseTransitions: 0 };
  const current = ctx.api.get(`${path}/${LEASE}`);
  if (!current)
    return ctx.api.create(path, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: LEASE, namespace }, spec }).object !== undefined;
  const held = (current['spec'] ?? {}) as {
    holderIdentity?: string;
    renewTime?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    leaseTransitions?: number;
  };
  const expired = Date.parse(held.renewTime ?? '') + (held.leaseDurationSeconds ?? LEASE_SECONDS) * 1000 < Date.now();
  if (held.holderIdentity !== identity && !expired) return false;
  const next =
    held.holderIdentity === identity
      ? { ...spec, acquireTime: held.acquireTime ?? now, leaseTransitions: held.leaseTransitions ?? 0 }
      : { ...spec, leaseTransitions: (held.leaseTransitions ?? 0) + 1 };
  // An update with the resourceVersion read: of two replicas racing for an expired Lease, one gets the conflict.
  return ctx.api.update(`${path}/${LEASE}`, { ...current, spec: next }).object !== undefined;
}

function podCidrsOf(cn: KubeObject): string[] {
  const cidrs = ((cn['spec'] as { ipam?: { podCIDRs?: unknown } } | undefined)?.ipam?.podCIDRs ?? []) as unknown;
  return Array.isArray(cidrs) ? cidrs.filter((c): c is string => typeof c === 'string') : [];
}

/** One pass of cluster-pool: frees blocks of CiliumNodes whose Node is gone, gives blocks to those without. */
function allocate(ctx: ProgramContext, pools: CidrSet[], taken: Map<string, string>): void {
  const nodes = new Set(ctx.api.list('/api/v1/nodes').map((n) => n.metadata.name));
  for (const cn of ctx.api.list(ciliumPath('ciliumnodes'))) {
    const name = cn.metadata.name;
    const cidrs = podCidrsOf(cn);
    if (!nodes.has(name)) {
      ctx.api.delete(ciliumPath('ciliumnodes', undefined, name));
      logLine(ctx, 'ipam-allocator-clusterpool', 'info', 'Deleting CiliumNode of a node that no longer exists', { nodeName: name });
      continue;
    }
    for (const c of cidrs) occupy(pools, taken, c, name);
    if (cidrs.length > 0) continue;
    let cidr: string | undefined;
    let error = '';
    for (const pool of pools) {
      try {
        cidr = pool.allocateNext().toString();
        break;
      } catch (e) {
        error = (e as Error).message;
      }
    }
    if (cidr === undefined) {
      const msg = `allocator clusterpool: unable to allocate ipv4 pod CIDR: ${error || 'no pool configured'}`;
      ctx.api.patch(ciliumPath('ciliumnodes', undefined, name), { status: { ipam: { 'operator-status': { error: msg } } } });
      logLine(ctx, 'ipam-allocator-clusterpool', 'warning', 'Unable to allocate pod CIDR', { nodeName: name, error: msg });
      continue;
    }
    const spec = (cn['spec'] ?? {}) as Record<string, unknown>;
    const ipam = (spec['ipam'] ?? {}) as Record<string, unknown>;
    const updated = ctx.api.update(ciliumPath('ciliumnodes', undefined, name), {
      ...cn,
      spec: { ...spec, ipam: { ...ipam, podCIDRs: [cidr] } },
      status: { ...((cn['status'] as object) ?? {}), ipam: { 'operator-status': {} } },
    });
    if (updated.object) {
      taken.set(cidr, name);
      logLine(ctx, 'ipam-allocator-clusterpool', 'info', 'Allocated pod CIDR to CiliumNode', { nodeName: name, podCIDR: cidr });
    } else {
      // Changed since read (the agent updated it): give the block back, the next pass retries.
      for (const pool of pools) if (pool.cluster.containsCidr(Cidr.parse(cidr))) pool.release(Cidr.parse(cidr));
    }
  }
  // Blocks of CiliumNodes that went away return to the pool.
  const live = new Map(ctx.api.list(ciliumPath('ciliumnodes')).flatMap((cn) => podCidrsOf(cn).map((c) => [c, cn.metadata.name] as const)));
  for (const [cidr, owner] of [...taken]) {
    if (live.get(cidr) === owner) continue;
    taken.delete(cidr);
    for (const pool of pools) if (pool.cluster.containsCidr(Cidr.parse(cidr))) pool.release(Cidr.parse(cidr));
  }
}

function occupy(pools: CidrSet[], taken: Map<string, string>, cidr: string, owner: string): void {
  if (taken.get(cidr) === owner) return;
  let parsed: Cidr;
  try {
    parsed = Cidr.parse(cidr);
  } catch {
    return;
  }
  for (const pool of pools) if (pool.cluster.containsCidr(parsed)) pool.occupy(parsed);
  taken.set(cidr, owner);
}

export const ciliumOperatorGeneric: Program = async (ctx) => {
  const namespace = ctx.env['CILIUM_K8S_NAMESPACE'] || ctx.pod.metadata.namespace || 'kube-system';
  logLine(ctx, SUBSYS, 'info', 'Cilium Operator 1.19.6 go version go1.24', {});
  const config = readCiliumConfig(ctx) ?? {};
  const mask = Number(config['cluster-pool-ipv4-mask-size'] ?? '24');
  const pools: CidrSet[] = [];
  for (const c of listValue(config['cluster-pool-ipv4-cidr'])) {
    try {
      pools.push(new CidrSet(Cidr.parse(c), mask));
    } catch (e) {
      logLine(ctx, SUBSYS, 'error', 'Unable to initialize cluster-pool IPAM', { cidr: c, error: (e as Error).message });
      return 1;
    }
  }
  registerCrds(ctx);
  logLine(ctx, SUBSYS, 'info', 'Establishing connection to apiserver', {});
  const identity = `${ctx.pod.metadata.name}-${randomBytes(5).toString('hex')}`;
  const taken = new Map<string, string>();
  let leading = false;
  // As leader, CiliumNode and Node changes run a pass (deferred: the watch calls back inside the write).
  let queued = false;
  const kick = () => {
    if (queued || !leading) return;
    queued = true;
    setImmediate(() => {
      queued = false;
      if (leading && !ctx.signal.aborted) allocate(ctx, pools, taken);
    });
  };
  const unwatch: Array<() => void> = [];
  ctx.setReady(true);
  try {
    while (!ctx.signal.aborted) {
      // Watches once the CRD it registered is served (a watch of a kind not served yet sees nothing).
      if (unwatch.length === 0 && ctx.api.request('GET', ciliumPath('ciliumnodes')).status === 200) {
        unwatch.push(ctx.api.watch(ciliumPath('ciliumnodes'), kick), ctx.api.watch('/api/v1/nodes', kick));
      }
      const now = lead(ctx, identity, namespace);
      if (now && !leading) {
        logLine(ctx, SUBSYS, 'info', 'Leading the operator HA deployment', {});
        logLine(ctx, 'ipam-allocator-clusterpool', 'info', 'Starting ClusterPool IP allocator', {
          ipv4CIDRs: listValue(config['cluster-pool-ipv4-cidr']).join(','),
          ipv4MaskSize: mask,
        });
        logLine(ctx, SUBSYS, 'info', 'Initialization complete', {});
      }
      if (!now && leading) logLine(ctx, SUBSYS, 'info', 'Leader election lost', {});
      leading = now;
      if (leading) allocate(ctx, pools, taken);
      await pause(ctx.signal, unwatch.length === 0 ? 250 : RENEW_MS);
    }
  } finally {
    for (const u of unwatch) u();
  }
  return 0;
};
