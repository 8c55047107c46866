// The cloud controller manager's service controller (k8s.io/cloud-provider controllers/service/controller.go) with
// cloud-provider-azure as its load balancer (azure-load-balancers.ts; docs/aks-rules.md §12). For each Service of type
// LoadBalancer without a loadBalancerClass: `EnsuringLoadBalancer`, the cleanup finalizer, the load balancer ensured,
// `EnsuredLoadBalancer` and status.loadBalancer.ingress; when it is deleted or stops being a LoadBalancer:
// `DeletingLoadBalancer`, the load balancer's part removed, the finalizer taken off, `DeletedLoadBalancer`. A failure
// is `SyncLoadBalancerFailed` with the controller's wording and a retry after 5 s, doubling up to 5 minutes, as the
// controller's rate-limited queue does. What was last ensured for each Service is remembered, so the controller's own
// status write does not ensure again.
import type { KubeObject } from '../apimachinery/object.js';
import { SERVICES, resourceKey } from '../apimachinery/resources.js';
import type { Service } from '../apimachinery/types.js';
import type { Change } from '../apiserver/index.js';
import { finalizersOf, removeFinalizer } from '../apiserver/index.js';
import type { Controller, ControllerContext } from '../client/context.js';
import { LoadBalancerError } from './azure-load-balancers.js';

/** servicehelpers.LoadBalancerCleanupFinalizer. */
const LB_FINALIZER = 'service.kubernetes.io/load-balancer-cleanup';
const COMPONENT = 'service-controller';
const SERVICES_KEY = resourceKey(SERVICES);
const RETRY_FIRST_MS = 5_000;
const RETRY_MAX_MS = 300_000;

/** What the controller needs of the cloud (cloudprovider.LoadBalancer). */
export interface LoadBalancerCloud {
  exists(svc: Service): boolean;
  /** Returns the ingress address; throws LoadBalancerError (or an Error) naming what failed. */
  ensure(svc: Service): string;
  remove(svc: Service): void;
}

/** wantsLoadBalancer: type LoadBalancer and no class of another controller. */
function wantsLoadBalancer(svc: Service): boolean {
  return svc.spec?.type === 'LoadBalancer' && !svc.spec.loadBalancerClass;
}

/** What a change of means the load balancer must be ensured again (the controller's needsUpdate, roughly). */
function desiredOf(svc: Service): string {
  const s = svc.spec ?? {};
  return JSON.stringify([
    svc.metadata.uid,
    svc.metadata.annotations ?? {},
    s.ports,
    s.externalTrafficPolicy,
    s.healthCheckNodePort,
    s.loadBalancerIP,
    s.sessionAffinity,
  ]);
}

export class ServiceLoadBalancers implements Controller {
  private readonly queue = new Set<string>();
  private readonly ensured = new Map<string, string>();
  /** Failed Services: the backoff, what failed, and whether the retry is due. */
  private readonly retries = new Map<string, { timer: NodeJS.Timeout; delay: number; desired: string; due: boolean }>();
  private scheduled = false;
  private closed = false;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly cloud: LoadBalancerCloud,
  ) {}

  observe(change: Change): void {
    if (change.resource !== SERVICES_KEY) return;
    const o = change.object;
    this.enqueue(`${o.metadata.namespace}/${o.metadata.name}`);
  }

  resync(): void {
    for (const s of this.ctx.objects.list(SERVICES)) this.enqueue(`${s.metadata.namespace}/${s.metadata.name}`);
  }

  close(): void {
    this.closed = true;
    for (const r of this.retries.values()) clearTimeout(r.timer);
    this.retries.clear();
  }

  private enqueue(key: string): void {
    if (this.closed) return;
    this.queue.add(key);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const keys = [...this.queue];
      this.queue.clear();
      for (const k of keys) this.sync(k);
    });
  }

  private sync(key: string): void {
    if (this.closed) return;
    const [namespace, name] = key.split('/') as [string, string];
    const svc = this.ctx.objects.get(SERVICES, namespace, name) as Service | undefined;
    if (!svc) {
      this.ensured.delete(key);
      return;
    }
    const hasFinalizer = finalizersOf(svc).includes(LB_FINALIZER);
    const wants = wantsLoadBalancer(svc) && !svc.metadata.deletionTimestamp;
    if (wants) {
      const desired = desiredOf(svc);
      const retry = this.retries.get(key);
      if (retry && !retry.due && retry.desired === desired) return;
      if (!retry && this.ensured.get(key) === desired && hasFinalizer) return;
      this.ensureOne(key, svc, desired);
    } else if (hasFinalizer || this.ensured.has(key)) {
      const retry = this.retries.get(key);
      if (retry && !retry.due && retry.desired === 'delete') return;
      this.deleteOne(key, svc);
    }
  }

  private record(svc: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.ctx.events.record(svc, { type, reason, message, component: COMPONENT });
  }

  private ensureOne(key: string, svc: Service, desired: string): void {
    this.record(svc, 'Normal', 'EnsuringLoadBalancer', 'Ensuring load balancer');
    let current: KubeObject = svc;
    if (!finalizersOf(svc).includes(LB_FINALIZER))
      current = this.ctx.objects.put(SERVICES, { ...svc, metadata: { ...svc.metadata, finalizers: [...finalizersOf(svc), LB_FINALIZER] } });
    let ip: string;
    try {
      ip = this.cloud.ensure(current as Service);
    } catch (e) {
      this.failed(key, current, desired, `failed to ensure load balancer: ${messageOf(e)}`);
      return;
    }
    this.succeeded(key);
    this.ensured.set(key, desired);
    this.record(current, 'Normal', 'EnsuredLoadBalancer', 'Ensured load balancer');
    this.patchStatus(current as Service, [{ ip }]);
  }

  private deleteOne(key: string, svc: Service): void {
    const exists = this.cloud.exists(svc);
    if (exists) {
      this.record(svc, 'Normal', 'DeletingLoadBalancer', 'Deleting load balancer');
      try {
        this.cloud.remove(svc);
      } catch (e) {
        this.failed(key, svc, 'delete', `failed to delete load balancer: ${messageOf(e)}`);
        return;
      }
    }
    this.succeeded(key);
    this.ensured.delete(key);
    // The status is cleared before the finalizer goes: the object may be gone right after.
    const cleared = this.patchStatus(svc, []);
    removeFinalizer(this.ctx.objects, SERVICES, cleared, LB_FINALIZER);
    if (exists) this.record(svc, 'Normal', 'DeletedLoadBalancer', 'Deleted load balancer');
  }

  private patchStatus(svc: Service, ingress: Array<{ ip: string }>): KubeObject {
    const now = svc.status?.loadBalancer?.ingress ?? [];
    if (JSON.stringify(now) === JSON.stringify(ingress)) return svc;
    const status = { ...(svc.status ?? {}), loadBalancer: ingress.length > 0 ? { ingress } : {} };
    return this.ctx.objects.put(SERVICES, { ...svc, status } as KubeObject);
  }

  private failed(key: string, svc: KubeObject, desired: string, message: string): void {
    this.record(svc, 'Warning', 'SyncLoadBalancerFailed', `Error syncing load balancer: ${message}`);
    const before = this.retries.get(key);
    if (before) clearTimeout(before.timer);
    const delay = before ? Math.min(before.delay * 2, RETRY_MAX_MS) : RETRY_FIRST_MS;
    const timer = setTimeout(() => {
      const r = this.retries.get(key);
      if (r) r.due = true;
      this.enqueue(key);
    }, delay);
    timer.unref?.();
    this.retries.set(key, { timer, delay, desired, due: false });
  }

  private succeeded(key: string): void {
    const r = this.retries.get(key);
    if (r) clearTimeout(r.timer);
    this.retries.delete(key);
  }
}

function messageOf(e: unknown): string {
  return e instanceof LoadBalancerError || e instanceof Error ? e.message : String(e);
}
