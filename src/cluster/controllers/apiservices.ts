// The kube-aggregator's availability controller (kubernetes staging/src/k8s.io/kube-aggregator/pkg/controllers/
// status: the local and remote AvailableConditionControllers): an APIService without a service is Local and
// always Available; one that names a Service is checked as the aggregator checks it, in its order and with its
// reasons and messages: the Service exists (ServiceNotFound), listens on the port (ServicePortError), has
// Endpoints (EndpointsNotFound) with a ready address on that port's name (MissingEndpoints). The last step, a
// GET of the API's discovery document, cannot succeed here: aksemu runs no aggregated API servers and proxies
// nothing, so an APIService whose endpoints are ready is FailedDiscoveryCheck. Discovery serves only the
// built-in groups (resources.ts), so a registered but unavailable group never breaks kubectl.
import { isPlainObject, own } from '../../http/own.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { Change } from '../apiserver/index.js';
import type { Endpoints, Service } from '../apimachinery/types.js';
import { APISERVICES, ENDPOINTS, SERVICES, resourceKey } from '../apimachinery/resources.js';
import { k8sTime } from '../apimachinery/time.js';
import type { ControllerContext } from '../client/context.js';
import { KeyedController, splitKey } from '../client/queue.js';

interface Availability {
  status: 'True' | 'False';
  reason: string;
  message: string;
}

export class ApiServiceController extends KeyedController {
  constructor(protected override readonly ctx: ControllerContext) {
    super(ctx, APISERVICES, 'apiservices');
  }

  observe(change: Change): void {
    const o = change.object;
    if (change.resource === resourceKey(APISERVICES)) {
      if (change.type !== 'DELETED') this.enqueue(o);
    } else if (change.resource === resourceKey(SERVICES) || change.resource === resourceKey(ENDPOINTS)) {
      for (const api of this.ctx.objects.list(APISERVICES)) {
        const svc = own(own(api, 'spec'), 'service');
        if (own(svc, 'namespace') === o.metadata.namespace && own(svc, 'name') === o.metadata.name) this.enqueue(api);
      }
    }
  }

  private availability(api: KubeObject): Availability {
    const spec = own(api, 'spec');
    const ref = own(spec, 'service');
    if (!isPlainObject(ref)) return { status: 'True', reason: 'Local', message: 'Local APIServices are always available' };
    const ns = String(ref['namespace'] ?? '');
    const name = String(ref['name'] ?? '');
    const port = typeof ref['port'] === 'number' ? ref['port'] : 443;
    const where = `service/${name} in ${JSON.stringify(ns)}`;
    const svc = this.ctx.objects.get(SERVICES, ns, name) as Service | undefined;
    if (!svc) return { status: 'False', reason: 'ServiceNotFound', message: `${where} is not present` };
    let portName = '';
    if ((svc.spec?.type ?? 'ClusterIP') === 'ClusterIP') {
      const sp = (svc.spec?.ports ?? []).find((p) => p.port === port);
      if (!sp) return { status: 'False', reason: 'ServicePortError', message: `${where} is not listening on port ${port}` };
      portName = sp.name ?? '';
      const ep = this.ctx.objects.get(ENDPOINTS, ns, name) as Endpoints | undefined;
      if (!ep) return { status: 'False', reason: 'EndpointsNotFound', message: `cannot find endpoints for ${where}` };
      const ready = (ep.subsets ?? []).some((s) => (s.addresses ?? []).length > 0 && (s.ports ?? []).some((p) => (p.name ?? '') === portName));
      if (!ready)
        return { status: 'False', reason: 'MissingEndpoints', message: `endpoints for ${where} have no addresses with port name ${JSON.stringify(portName)}` };
    }
    const path = api.metadata.name === 'v1.' ? `/api/${String(own(spec, 'version'))}` : `/apis/${String(own(spec, 'group'))}/${String(own(spec, 'version'))}`;
    return {
      status: 'False',
      reason: 'FailedDiscoveryCheck',
      message: `failing or missing response from https://${svc.spec?.clusterIP ?? ''}:${port}${path}: aksemu runs no aggregated API servers`,
    };
  }

  reconcile(key: string): void {
    const [, name] = splitKey(key);
    const { objects } = this.ctx;
    const api = objects.get(APISERVICES, undefined, name);
    if (!api) return;
    const now = this.availability(api);
    const status = (isPlainObject(api['status']) ? api['status'] : {}) as Record<string, unknown>;
    const conditions = (Array.isArray(status['conditions']) ? status['conditions'] : []).filter(isPlainObject);
    const before = conditions.find((c) => c['type'] === 'Available');
    const same = before && before['status'] === now.status && before['reason'] === now.reason && before['message'] === now.message;
    if (same) return;
    const since =
      before && before['status'] === now.status && typeof before['lastTransitionTime'] === 'string' ? before['lastTransitionTime'] : k8sTime(Date.now());
    const available = { type: 'Available', status: now.status, lastTransitionTime: since, reason: now.reason, message: now.message };
    objects.put(APISERVICES, { ...api, status: { ...status, conditions: [...conditions.filter((c) => c !== before), available] } });
  }
}
