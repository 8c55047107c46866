// The Endpoints controller: for every Service with a selector, an Endpoints object of the same name listing
// the selected pods' addresses (ready ones in addresses, the others in notReadyAddresses) and the ports
// resolved against each pod's named container ports.
import { type KubeObject, objectKey } from '../apimachinery/object.js';
import type { EndpointAddress, EndpointPort, Pod, Service, ServicePort } from '../apimachinery/types.js';
import type { Change } from '../apiserver/index.js';
import { matchLabels, type Requirement } from '../apimachinery/selectors.js';
import type { ControllerContext } from '../client/context.js';
import { isPodReady } from '../client/pod-state.js';
import { ENDPOINTS, PODS, SERVICES, resourceKey } from '../apimachinery/resources.js';
import { splitKey, KeyedController } from '../client/queue.js';

function selectorOf(svc: Service): Requirement[] | undefined {
  const sel = svc.spec?.selector;
  if (!sel || Object.keys(sel).length === 0) return undefined;
  return Object.entries(sel).map(([key, value]) => ({ key, op: '=', value }));
}

export function targetPort(port: ServicePort, pod: Pod): number | undefined {
  const t = port.targetPort ?? port.port;
  if (typeof t === 'number') return t;
  if (/^\d+$/.test(String(t))) return Number(t);
  for (const c of pod.spec?.containers ?? [])
    for (const p of c.ports ?? []) if (p.name === t && (p.protocol ?? 'TCP') === (port.protocol ?? 'TCP')) return p.containerPort;
  return undefined;
}

export class EndpointsController extends KeyedController {
  constructor(protected override readonly ctx: ControllerContext) {
    super(ctx, SERVICES, 'endpoints');
  }

  observe(change: Change): void {
    if (change.resource === resourceKey(SERVICES)) this.enqueue(change.object);
    else if (change.resource === resourceKey(PODS)) {
      const ns = change.object.metadata.namespace;
      for (const svc of this.ctx.objects.list(SERVICES, ns)) {
        const sel = selectorOf(svc);
        if (sel && [change.object, change.previous].some((p) => p && matchLabels(sel, p.metadata.labels))) this.queue.add(objectKey(ns, svc.metadata.name));
      }
    }
  }

  reconcile(key: string): void {
    const [namespace, name] = splitKey(key);
    const { objects } = this.ctx;
    const svc = objects.get(SERVICES, namespace, name) as Service | undefined;
    const sel = svc && selectorOf(svc);
    if (!svc) {
      objects.delete(ENDPOINTS, namespace, name);
      return;
    }
    // Endpoints of selector-less services belong to whoever wrote them.
    if (!sel) return;
    const pods = (objects.list(PODS, namespace) as Pod[]).filter(
      (p) => matchLabels(sel, p.metadata.labels) && p.status?.podIP && !p.metadata.deletionTimestamp,
    );
    // One subset per distinct port set (pods with the same named ports resolve alike).
    const subsets = new Map<string, { addresses: EndpointAddress[]; notReadyAddresses: EndpointAddress[]; ports: EndpointPort[] }>();
    for (const pod of pods) {
      const ports = (svc.spec?.ports ?? []).flatMap((p) => {
        const port = targetPort(p, pod);
        return port === undefined ? [] : [{ ...(p.name ? { name: p.name } : {}), port, protocol: p.protocol ?? 'TCP' }];
      });
      const k = JSON.stringify(ports);
      let s = subsets.get(k);
      if (!s) subsets.set(k, (s = { addresses: [], notReadyAddresses: [], ports }));
      const address = {
        ip: pod.status!.podIP!,
        nodeName: pod.spec?.nodeName,
        targetRef: { kind: 'Pod', name: pod.metadata.name, namespace, uid: pod.metadata.uid },
      };
      (isPodReady(pod) ? s.addresses : s.notReadyAddresses).push(address);
    }
    const out = [...subsets.values()].map((s) => ({
      ...(s.addresses.length ? { addresses: s.addresses.sort((a, b) => (a.ip < b.ip ? -1 : 1)) } : {}),
      ...(s.notReadyAddresses.length ? { notReadyAddresses: s.notReadyAddresses.sort((a, b) => (a.ip < b.ip ? -1 : 1)) } : {}),
      ...(s.ports.length ? { ports: s.ports } : {}),
    }));
    const existing = objects.get(ENDPOINTS, namespace, name);
    const endpoints: KubeObject = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: {
        ...(existing?.metadata ?? {}),
        name,
        namespace,
        labels: { ...(svc.metadata.labels ?? {}) },
      },
      ...(out.length ? { subsets: out } : {}),
    };
    objects.put(ENDPOINTS, endpoints, { onlyIfChanged: true });
  }
}
