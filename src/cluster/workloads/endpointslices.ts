// EndpointSlices kept in step with each Service, as kube-controller-manager's two slice controllers keep them
// (kubernetes pkg/controller/endpointslice and endpointslicemirroring): a Service with a selector gets slices
// managed by endpointslice-controller.k8s.io listing its pods; a selector-less Service whose Endpoints someone
// wrote gets them mirrored, managed by endpointslicemirroring-controller.k8s.io. The pods are read from the
// Endpoints object of the same name (endpoints.ts computes it from the same pods and ports), one slice per
// distinct port set and address family, at most 100 endpoints each. Each slice carries the labels
// kubernetes.io/service-name and endpointslice.kubernetes.io/managed-by and the Service's own labels, the
// Service as its controlling owner, and per endpoint the conditions ready, serving and terminating.
import type { KubeObject } from '../objects/object.js';
import type { EndpointAddress, Endpoints, Service } from '../objects/types.js';
import { resourceKey, type Change } from '../objects/store.js';
import { ENDPOINTS, ENDPOINTSLICES, SERVICES } from '../resources.js';
import type { ControllerContext } from './context.js';
import { ownerReference } from './context.js';
import { randomSuffix } from './names.js';
import { nsKey, splitKey, KeyedController } from './queue.js';

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
const CONTROLLER = 'endpointslice-controller.k8s.io';
const MIRRORING = 'endpointslicemirroring-controller.k8s.io';
/** maxEndpointsPerSlice: the controller's default (--max-endpoints-per-slice). */
const MAX_ENDPOINTS = 100;

interface SliceBody {
  addressType: 'IPv4' | 'IPv6';
  endpoints: Array<Record<string, unknown>> | null;
  ports: Array<Record<string, unknown>> | null;
}

function endpointOf(a: EndpointAddress, ready: boolean): Record<string, unknown> {
  return {
    addresses: [a.ip],
    conditions: { ready, serving: ready, terminating: false },
    ...(a.nodeName ? { nodeName: a.nodeName } : {}),
    ...(a.targetRef ? { targetRef: a.targetRef } : {}),
  };
}

/** The slices' bodies for an Endpoints object: per subset and family, in chunks of MAX_ENDPOINTS. */
function bodiesOf(ep: Endpoints | undefined): SliceBody[] {
  const out: SliceBody[] = [];
  for (const s of ep?.subsets ?? []) {
    const ports = (s.ports ?? []).map((p) => ({ name: p.name ?? '', port: p.port, protocol: p.protocol ?? 'TCP' }));
    const all = [...(s.addresses ?? []).map((a) => endpointOf(a, true)), ...(s.notReadyAddresses ?? []).map((a) => endpointOf(a, false))];
    for (const family of ['IPv4', 'IPv6'] as const) {
      const mine = all.filter((e) => String((e['addresses'] as string[])[0]).includes(':') === (family === 'IPv6'));
      for (let i = 0; i < mine.length; i += MAX_ENDPOINTS)
        out.push({ addressType: family, endpoints: mine.slice(i, i + MAX_ENDPOINTS), ports: ports.length ? ports : null });
    }
  }
  return out;
}

export class EndpointSliceController extends KeyedController {
  constructor(protected override readonly ctx: ControllerContext) {
    super(ctx, SERVICES, 'endpointslices');
  }

  observe(change: Change): void {
    const o = change.object;
    if (change.resource === resourceKey(SERVICES) || change.resource === resourceKey(ENDPOINTS)) this.enqueue(o);
    else if (change.resource === resourceKey(ENDPOINTSLICES) && change.type === 'DELETED') {
      const service = o.metadata.labels?.[SERVICE_NAME_LABEL];
      if (service) this.queue.add(nsKey(o.metadata.namespace, service));
    }
  }

  /** The slices this controller keeps for a service, oldest first (their names stay as they were). */
  private slicesOf(namespace: string, name: string): KubeObject[] {
    return this.ctx.objects.list(ENDPOINTSLICES, namespace).filter((s) => {
      const labels = s.metadata.labels ?? {};
      return labels[SERVICE_NAME_LABEL] === name && (labels[MANAGED_BY_LABEL] === CONTROLLER || labels[MANAGED_BY_LABEL] === MIRRORING);
    });
  }

  reconcile(key: string): void {
    const [namespace, name] = splitKey(key);
    const { objects } = this.ctx;
    const svc = objects.get(SERVICES, namespace, name) as Service | undefined;
    const existing = this.slicesOf(namespace, name);
    const selected = svc?.spec?.selector !== undefined && Object.keys(svc.spec.selector).length > 0;
    const ep = objects.get(ENDPOINTS, namespace, name) as Endpoints | undefined;
    // A selector-less Service is mirrored only from Endpoints someone wrote; without either, it has no slices.
    const wanted: SliceBody[] = !svc || (!selected && !ep) ? [] : bodiesOf(ep);
    // A selected Service with no endpoints still gets one empty placeholder slice.
    if (svc && selected && wanted.length === 0)
      wanted.push({ addressType: svc.spec?.ipFamilies?.[0] === 'IPv6' ? 'IPv6' : 'IPv4', endpoints: null, ports: null });
    wanted.forEach((body, i) => {
      const prior = existing[i];
      const labels: Record<string, string> = {
        ...(svc!.metadata.labels ?? {}),
        [SERVICE_NAME_LABEL]: name,
        [MANAGED_BY_LABEL]: selected ? CONTROLLER : MIRRORING,
      };
      if (svc!.spec?.clusterIP === 'None') labels['service.kubernetes.io/headless'] = '';
      const slice: KubeObject = {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          ...(prior?.metadata ?? {}),
          name: prior?.metadata.name ?? `${name}-${randomSuffix()}`,
          generateName: `${name}-`,
          namespace,
          labels,
          ownerReferences: [ownerReference(svc!)],
        },
        ...body,
      };
      objects.put(ENDPOINTSLICES, slice, { onlyIfChanged: true });
    });
    for (const extra of existing.slice(wanted.length)) objects.delete(ENDPOINTSLICES, namespace, extra.metadata.name);
  }
}
