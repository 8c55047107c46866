// EndpointSlices kept in step with each Service, as kube-controller-manager's two slice controllers keep them
// (kubernetes pkg/controller/endpointslice and endpointslicemirroring): a Service with a selector gets slices
// managed by endpointslice-controller.k8s.io listing its pods; a selector-less Service whose Endpoints someone
// wrote gets them mirrored, managed by endpointslicemirroring-controller.k8s.io. The pods are read from the
// Endpoints object of the same name (endpoints.ts computes it from the same pods and ports), plus the selected
// pods being deleted, which Endpoints leave out and slices keep as terminating; one slice per distinct port set
// and address family, at most 100 endpoints each. Each slice carries the labels
// kubernetes.io/service-name and endpointslice.kubernetes.io/managed-by and the Service's own labels, the
// Service as its controlling owner, and per endpoint the conditions ready, serving and terminating.
import { type KubeObject, objectKey } from '../apimachinery/object.js';
import type { EndpointAddress, Endpoints, Pod, Service } from '../apimachinery/types.js';
import type { Change, ObjectStore } from '../apiserver/index.js';
import { ENDPOINTS, ENDPOINTSLICES, PODS, SERVICES, resourceKey } from '../apimachinery/resources.js';
import { labelSelectorMatches } from '../apimachinery/selectors.js';
import type { ControllerContext } from '../client/context.js';
import { ownerReference } from '../client/context.js';
import { isPodReady } from '../client/pod-state.js';
import { targetPort } from './endpoints.js';
import { randomSuffix } from '../apimachinery/generated-names.js';
import { SERVICE_NAME_LABEL } from '../apimachinery/types.js';
import { splitKey, KeyedController } from '../client/queue.js';

export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
const CONTROLLER = 'endpointslice-controller.k8s.io';
/** endpointslicemirroring leaves Endpoints carrying it alone (discovery.LabelSkipMirror). */
const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror';
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

type EndpointPort = { name: string; port: number; protocol: string };

/**
 * The selected pods being deleted, which Endpoints leave out and slices keep (the EndpointSliceTerminatingCondition
 * behaviour): not ready, serving while the pod is ready, terminating; with their ports resolved as endpoints.ts does.
 */
function terminatingOf(objects: ObjectStore, svc: Service): Array<{ ports: EndpointPort[]; endpoint: Record<string, unknown> }> {
  const ns = svc.metadata.namespace;
  return (objects.list(PODS, ns) as Pod[])
    .filter((p) => p.metadata.deletionTimestamp && p.status?.podIP && labelSelectorMatches({ matchLabels: svc.spec?.selector ?? {} }, p.metadata.labels))
    .map((pod) => ({
      ports: (svc.spec?.ports ?? []).flatMap((p) => {
        const port = targetPort(p, pod);
        return port === undefined ? [] : [{ name: p.name ?? '', port, protocol: p.protocol ?? 'TCP' }];
      }),
      endpoint: {
        addresses: [pod.status!.podIP!],
        conditions: { ready: false, serving: isPodReady(pod), terminating: true },
        ...(pod.spec?.nodeName ? { nodeName: pod.spec.nodeName } : {}),
        targetRef: { kind: 'Pod', name: pod.metadata.name, namespace: ns, uid: pod.metadata.uid },
      },
    }));
}

/** The slices' bodies for an Endpoints object and the terminating pods: per port set and family, in chunks of MAX_ENDPOINTS. */
function bodiesOf(ep: Endpoints | undefined, terminating: ReturnType<typeof terminatingOf>): SliceBody[] {
  const out: SliceBody[] = [];
  const sets = new Map<string, { ports: EndpointPort[]; all: Array<Record<string, unknown>> }>();
  for (const s of ep?.subsets ?? []) {
    const ports = (s.ports ?? []).map((p) => ({ name: p.name ?? '', port: p.port, protocol: p.protocol ?? 'TCP' }));
    const set = sets.get(JSON.stringify(ports)) ?? { ports, all: [] };
    set.all.push(...(s.addresses ?? []).map((a) => endpointOf(a, true)), ...(s.notReadyAddresses ?? []).map((a) => endpointOf(a, false)));
    sets.set(JSON.stringify(ports), set);
  }
  for (const t of terminating) {
    const set = sets.get(JSON.stringify(t.ports)) ?? { ports: t.ports, all: [] };
    set.all.push(t.endpoint);
    sets.set(JSON.stringify(t.ports), set);
  }
  for (const { ports, all } of sets.values()) {
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
    else if (change.resource === resourceKey(PODS) && (o.metadata.deletionTimestamp || change.previous?.metadata.deletionTimestamp)) {
      // A pod being deleted stays in its services' slices (terminating) until it is gone.
      for (const svc of this.ctx.objects.list(SERVICES, o.metadata.namespace) as Service[]) {
        const sel = svc.spec?.selector;
        if (sel && Object.keys(sel).length > 0 && labelSelectorMatches({ matchLabels: sel }, o.metadata.labels)) this.enqueue(svc);
      }
    } else if (change.resource === resourceKey(ENDPOINTSLICES) && change.type === 'DELETED') {
      const service = o.metadata.labels?.[SERVICE_NAME_LABEL];
      if (service) this.queue.add(objectKey(o.metadata.namespace, service));
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
    const written = objects.get(ENDPOINTS, namespace, name) as Endpoints | undefined;
    // Endpoints labelled skip-mirror (the apiserver's own, which writes its slice itself) are not mirrored.
    const ep = written?.metadata.labels?.[SKIP_MIRROR_LABEL] === 'true' && !selected ? undefined : written;
    // A selector-less Service is mirrored only from Endpoints someone wrote; without either, it has no slices.
    const wanted: SliceBody[] = !svc || (!selected && !ep) ? [] : bodiesOf(ep, selected ? terminatingOf(objects, svc) : []);
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
