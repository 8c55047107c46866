// The apiserver's printers for the built-in groups installers touch (storage, admission, aggregation,
// discovery, scheduling, node, certificates, policy, coordination, autoscaling, networking) and the core kinds
// beside them: the columns and cells of kubernetes pkg/printers/internalversion/printers.go (and, for
// APIService, kube-aggregator's pkg/registry/apiservice/etcd/etcd.go). These kinds are stored as clients send
// them, so every cell reads its field defensively: a value of an unexpected shape prints as unset.
import { isPlainObject, own } from '../../http/own.js';
import type { KubeObject } from '../apimachinery/object.js';
import { AGE, col, NAME, selectorText, type Printer } from './printers.js';
import { age, humanDuration } from '../apimachinery/time.js';

/** The value at a path of plain objects, or undefined. */
export function at(obj: unknown, ...path: string[]): unknown {
  let v = obj;
  for (const k of path) v = isPlainObject(v) ? own(v, k) : undefined;
  return v;
}

function text(v: unknown, unset = ''): string {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : unset;
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function flag(v: unknown, dflt: boolean): boolean {
  return typeof v === 'boolean' ? v : dflt;
}

const created = (o: KubeObject, now: number) => age(o.metadata.creationTimestamp, now);

/** listWithMoreString: up to three items, then "+ N more..."; `<unset>` when there are none. */
function firstThree(items: string[]): string {
  if (items.length === 0) return '<unset>';
  const shown = items.slice(0, 3).join(',');
  return items.length > 3 ? `${shown} + ${items.length - 3} more...` : shown;
}

export const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';

/** storageutil.IsDefaultAnnotation: the annotation, or its beta spelling, says "true". */
export function isDefaultClass(o: KubeObject): boolean {
  const a = o.metadata.annotations ?? {};
  return own(a, DEFAULT_CLASS_ANNOTATION) === 'true' || own(a, 'storageclass.beta.kubernetes.io/is-default-class') === 'true';
}

export const storageClassPrinter: Printer = {
  columns: [
    NAME,
    col('Provisioner', 'Indicates the type of the provisioner.'),
    col('ReclaimPolicy', 'Indicates the type of the reclaim policy.'),
    col('VolumeBindingMode', 'Indicates how PersistentVolumeClaims should be bound.'),
    col('AllowVolumeExpansion', 'Indicates whether the storage class allow volume expand.'),
    AGE,
  ],
  cells: (o, now) => [
    isDefaultClass(o) ? `${o.metadata.name} (default)` : o.metadata.name,
    text(o['provisioner']),
    text(o['reclaimPolicy'], 'Delete'),
    text(o['volumeBindingMode'], 'Immediate'),
    flag(o['allowVolumeExpansion'], false),
    created(o, now),
  ],
};

export const csiDriverPrinter: Printer = {
  columns: [
    NAME,
    col('AttachRequired', 'Indicates this CSI volume driver requires an attach operation.', { type: 'boolean' }),
    col('PodInfoOnMount', 'Indicates this CSI volume driver requires additional pod information during mount operations.', { type: 'boolean' }),
    col('StorageCapacity', 'Indicates this CSI volume driver supports storage capacity tracking.', { type: 'boolean' }),
    col('TokenRequests', 'Indicates the CSI driver needs pods service account tokens it is mounting volume for to do necessary authentication.'),
    col('RequiresRepublish', 'Indicates the CSI driver wants NodePublishVolume being periodically called.', { type: 'boolean' }),
    col('Modes', 'Indicates the volume lifecycle modes this CSI driver supports.'),
    AGE,
  ],
  cells: (o, now) => {
    const spec = at(o, 'spec');
    const tokens = at(spec, 'tokenRequests');
    const modes = list(at(spec, 'volumeLifecycleModes')).map((m) => text(m));
    return [
      o.metadata.name,
      flag(at(spec, 'attachRequired'), true),
      flag(at(spec, 'podInfoOnMount'), false),
      flag(at(spec, 'storageCapacity'), false),
      Array.isArray(tokens) ? tokens.map((t) => text(at(t, 'audience'))).join(',') : '<unset>',
      flag(at(spec, 'requiresRepublish'), false),
      modes.length ? modes.join(',') : '<none>',
      created(o, now),
    ];
  },
};

export const csiNodePrinter: Printer = {
  columns: [NAME, col('Drivers', 'Drivers indicates the number of CSI drivers registered on the node', { type: 'integer' }), AGE],
  cells: (o, now) => [o.metadata.name, list(at(o, 'spec', 'drivers')).length, created(o, now)],
};

export const volumeAttachmentPrinter: Printer = {
  columns: [
    NAME,
    col('Attacher', 'Attacher indicates the name of the volume driver that MUST handle this request.'),
    col('PV', 'Name of the persistent volume to attach.'),
    col('Node', 'The node that the volume should be attached to.'),
    col('Attached', 'Indicates the volume is successfully attached.', { type: 'boolean' }),
    AGE,
  ],
  cells: (o, now) => [
    o.metadata.name,
    text(at(o, 'spec', 'attacher')),
    text(at(o, 'spec', 'source', 'persistentVolumeName')),
    text(at(o, 'spec', 'nodeName')),
    flag(at(o, 'status', 'attached'), false),
    created(o, now),
  ],
};

export const webhookConfigurationPrinter: Printer = {
  columns: [NAME, col('Webhooks', 'Webhooks indicates the number of webhooks registered in this configuration', { type: 'integer' }), AGE],
  cells: (o, now) => [o.metadata.name, list(o['webhooks']).length, created(o, now)],
};

export const apiServicePrinter: Printer = {
  columns: [NAME, col('Service', 'The reference to the service that hosts this API endpoint.'), col('Available', 'Whether this service is available.'), AGE],
  cells: (o, now) => {
    const svc = at(o, 'spec', 'service');
    const available = list(at(o, 'status', 'conditions')).find((c) => at(c, 'type') === 'Available');
    const status = text(at(available, 'status'), 'Unknown');
    return [
      o.metadata.name,
      isPlainObject(svc) ? `${text(svc['namespace'])}/${text(svc['name'])}` : 'Local',
      status === 'True' || !available ? status : `${status} (${text(at(available, 'reason'))})`,
      created(o, now),
    ];
  },
};

export const endpointSlicePrinter: Printer = {
  columns: [
    NAME,
    col('AddressType', 'The IP protocol for this slice.'),
    col('Ports', 'The ports encompassed by this slice.'),
    col('Endpoints', 'The endpoints encompassed by this slice.'),
    AGE,
  ],
  cells: (o, now) => [
    o.metadata.name,
    text(o['addressType']),
    firstThree(list(o['ports']).map((p) => text(at(p, 'port'), text(at(p, 'name'), '*')))),
    firstThree(list(o['endpoints']).flatMap((e) => list(at(e, 'addresses')).map((a) => text(a)))),
    created(o, now),
  ],
};

export const priorityClassPrinter: Printer = {
  columns: [
    NAME,
    col('Value', 'The value of this priority class.', { type: 'integer' }),
    col('Global-Default', 'globalDefault specifies whether this PriorityClass should be considered as the default priority.', { type: 'boolean' }),
    AGE,
    col('PreemptionPolicy', 'PreemptionPolicy is the Policy for preempting pods with lower priority.'),
  ],
  cells: (o, now) => [
    o.metadata.name,
    typeof o['value'] === 'number' ? o['value'] : 0,
    flag(o['globalDefault'], false),
    created(o, now),
    text(o['preemptionPolicy'], 'PreemptLowerPriority'),
  ],
};

export const runtimeClassPrinter: Printer = {
  columns: [NAME, col('Handler', 'Handler specifies the underlying runtime and configuration that the CRI implementation will use.'), AGE],
  cells: (o, now) => [o.metadata.name, text(o['handler']), created(o, now)],
};

export const csrPrinter: Printer = {
  columns: [
    NAME,
    AGE,
    col('SignerName', 'Requested signer for the request.'),
    col('Requestor', 'Name of the user who made the request.'),
    col('RequestedDuration', 'Requested duration of the issued certificate.'),
    col('Condition', 'State of the request.'),
  ],
  cells: (o, now) => {
    const seconds = at(o, 'spec', 'expirationSeconds');
    const types = list(at(o, 'status', 'conditions')).map((c) => text(at(c, 'type')));
    if (text(at(o, 'status', 'certificate')) !== '') types.push('Issued');
    return [
      o.metadata.name,
      created(o, now),
      text(at(o, 'spec', 'signerName')),
      text(at(o, 'spec', 'username')),
      typeof seconds === 'number' ? humanDuration(seconds * 1000) : '<none>',
      types.length ? types.join(',') : 'Pending',
    ];
  },
};

export const pdbPrinter: Printer = {
  columns: [
    NAME,
    col('Min Available', 'The minimum number of pods that must be available.'),
    col('Max Unavailable', 'The maximum number of pods that may be unavailable.'),
    col('Allowed Disruptions', 'Calculated number of pods that may be disrupted at this time.', { type: 'integer' }),
    AGE,
  ],
  cells: (o, now) => {
    const allowed = at(o, 'status', 'disruptionsAllowed');
    return [
      o.metadata.name,
      text(at(o, 'spec', 'minAvailable'), 'N/A'),
      text(at(o, 'spec', 'maxUnavailable'), 'N/A'),
      typeof allowed === 'number' ? allowed : 0,
      created(o, now),
    ];
  },
};

export const leasePrinter: Printer = {
  columns: [NAME, col('Holder', 'The holder of the lease.'), AGE],
  cells: (o, now) => [o.metadata.name, text(at(o, 'spec', 'holderIdentity')), created(o, now)],
};

/** formatHPAMetrics for the common case: each metric's current value over its target, `<unknown>` until measured. */
function hpaTargets(o: KubeObject): string {
  const metrics = list(at(o, 'spec', 'metrics'));
  if (metrics.length === 0) return '<none>';
  const current = list(at(o, 'status', 'currentMetrics'));
  const parts = metrics.map((m, i) => {
    const type = text(at(m, 'type'));
    const key =
      type === 'Resource'
        ? 'resource'
        : type === 'ContainerResource'
          ? 'containerResource'
          : type === 'Pods'
            ? 'pods'
            : type === 'Object'
              ? 'object'
              : 'external';
    const target = at(m, key, 'target');
    const now = at(current[i], key, 'current');
    const name = text(at(m, key, 'name'), text(at(m, key, 'metric', 'name')));
    if (text(at(target, 'type')) === 'Utilization') {
      const have = at(now, 'averageUtilization');
      return `${name}: ${typeof have === 'number' ? `${have}%` : '<unknown>'}/${text(at(target, 'averageUtilization'))}%`;
    }
    const field = text(at(target, 'type')) === 'Value' ? 'value' : 'averageValue';
    return `${name}: ${text(at(now, field), '<unknown>')}/${text(at(target, field))}`;
  });
  return parts.length > 4 ? `${parts.slice(0, 4).join(', ')} + ${parts.length - 4} more...` : parts.join(', ');
}

export const hpaPrinter: Printer = {
  columns: [
    NAME,
    col('Reference', 'The reference to the target that should be scaled.'),
    col('Targets', 'The metrics targets for the autoscaler.'),
    col('MinPods', 'Lower limit for the number of pods that can be set by the autoscaler, default 1.'),
    col('MaxPods', 'Upper limit for the number of pods that can be set by the autoscaler.', { type: 'integer' }),
    col('Replicas', 'Current number of replicas of pods managed by this autoscaler.', { type: 'integer' }),
    AGE,
  ],
  cells: (o, now) => {
    const ref = at(o, 'spec', 'scaleTargetRef');
    const max = at(o, 'spec', 'maxReplicas');
    const replicas = at(o, 'status', 'currentReplicas');
    return [
      o.metadata.name,
      `${text(at(ref, 'kind'))}/${text(at(ref, 'name'))}`,
      hpaTargets(o),
      text(at(o, 'spec', 'minReplicas'), '<unset>'),
      typeof max === 'number' ? max : 0,
      typeof replicas === 'number' ? replicas : 0,
      created(o, now),
    ];
  },
};

/** The load balancer's ingress points, as loadBalancerStatusStringer joins them. */
function loadBalancerText(o: KubeObject): string {
  return list(at(o, 'status', 'loadBalancer', 'ingress'))
    .map((i) => text(at(i, 'ip')) || text(at(i, 'hostname')))
    .filter((s) => s !== '')
    .join(',');
}

export const ingressPrinter: Printer = {
  columns: [
    NAME,
    col('Class', 'The name of the IngressClass resource that should be used for this Ingress.'),
    col('Hosts', 'Hosts that incoming requests are matched against before the ingress rule'),
    col('Address', 'Address is a list containing ingress points for the load-balancer'),
    col('Ports', 'Ports of TLS configurations that open'),
    AGE,
  ],
  cells: (o, now) => {
    const rules = list(at(o, 'spec', 'rules'));
    const hosts = rules.slice(0, 3).flatMap((r) => (text(at(r, 'host')) ? [text(at(r, 'host'))] : []));
    const hostCell = hosts.length === 0 ? '*' : rules.length > 3 ? `${hosts.join(',')} + ${rules.length - 3} more...` : hosts.join(',');
    return [
      o.metadata.name,
      text(at(o, 'spec', 'ingressClassName'), '<none>'),
      hostCell,
      loadBalancerText(o),
      list(at(o, 'spec', 'tls')).length > 0 ? '80, 443' : '80',
      created(o, now),
    ];
  },
};

export const ingressClassPrinter: Printer = {
  columns: [
    NAME,
    col('Controller', 'Controller that is responsible for handling this class.'),
    col('Parameters', 'A reference to a resource with additional parameters.', { priority: 1 }),
    AGE,
  ],
  cells: (o, now) => {
    const p = at(o, 'spec', 'parameters');
    const group = text(at(p, 'apiGroup'));
    return [
      o.metadata.name,
      text(at(o, 'spec', 'controller')),
      isPlainObject(p) ? `${text(p['kind'])}${group ? `.${group}` : ''}/${text(p['name'])}` : '<none>',
      created(o, now),
    ];
  },
};

export const resourceQuotaPrinter: Printer = {
  columns: [
    NAME,
    AGE,
    col('Request', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
    col('Limit', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
  ],
  cells: (o, now) => {
    const hard = at(o, 'spec', 'hard');
    const requests: string[] = [];
    const limits: string[] = [];
    for (const r of Object.keys(isPlainObject(hard) ? hard : {}).sort()) {
      const line = `${r}: ${text(at(o, 'status', 'used', r), '0')}/${text(at(o, 'status', 'hard', r), '0')}`;
      (r.startsWith('limits.') ? limits : requests).push(line);
    }
    return [o.metadata.name, created(o, now), requests.join(', '), limits.join(', ')];
  },
};

const ACCESS_MODES: Record<string, string> = { ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' };

/** GetAccessModesAsString: the short forms, each once, in the apiserver's order. */
function accessModes(v: unknown): string {
  const modes = list(v).map((m) => text(m));
  return Object.keys(ACCESS_MODES)
    .filter((m) => modes.includes(m))
    .map((m) => ACCESS_MODES[m]!)
    .join(',');
}

const VOLUME_MODE = col('VolumeMode', 'The volume mode.', { priority: 1 });
const VOLUME_ATTRIBUTES_CLASS = col('VolumeAttributesClass', 'The VolumeAttributesClass of the volume.');
/** The cells PVs and PVCs share: their spec's StorageClass, VolumeAttributesClass and VolumeMode. */
const volumeClass = (o: KubeObject) => text(at(o, 'spec', 'storageClassName'));
const attributesClass = (o: KubeObject) => text(at(o, 'spec', 'volumeAttributesClassName'), '<unset>');
const volumeMode = (o: KubeObject) => text(at(o, 'spec', 'volumeMode'), '<unset>');

export const persistentVolumePrinter: Printer = {
  columns: [
    NAME,
    col('Capacity', "capacity is the description of the persistent volume's resources and capacity."),
    col('Access Modes', 'accessModes contains all ways the volume can be mounted.'),
    col('Reclaim Policy', 'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.'),
    col('Status', 'phase indicates if a volume is available, bound to a claim, or released by a claim.'),
    col('Claim', 'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.'),
    col('StorageClass', 'StorageClass of the pv'),
    VOLUME_ATTRIBUTES_CLASS,
    col('Reason', 'reason is a brief CamelCase string that describes any failure.'),
    AGE,
    VOLUME_MODE,
  ],
  cells: (o, now) => {
    const claim = at(o, 'spec', 'claimRef');
    return [
      o.metadata.name,
      text(at(o, 'spec', 'capacity', 'storage'), '0'),
      accessModes(at(o, 'spec', 'accessModes')),
      text(at(o, 'spec', 'persistentVolumeReclaimPolicy')),
      text(at(o, 'status', 'phase')),
      isPlainObject(claim) ? `${text(claim['namespace'])}/${text(claim['name'])}` : '',
      volumeClass(o),
      attributesClass(o),
      text(at(o, 'status', 'reason')),
      created(o, now),
      volumeMode(o),
    ];
  },
};

export const persistentVolumeClaimPrinter: Printer = {
  columns: [
    NAME,
    col('Status', 'phase represents the current phase of PersistentVolumeClaim.'),
    col('Volume', 'volumeName is the binding reference to the PersistentVolume backing this claim.'),
    col('Capacity', 'capacity represents the actual resources of the underlying volume.'),
    col('Access Modes', 'accessModes contains the actual access modes the volume backing the PVC has.'),
    col('StorageClass', 'StorageClass of the pvc'),
    VOLUME_ATTRIBUTES_CLASS,
    AGE,
    VOLUME_MODE,
  ],
  cells: (o, now) => {
    const bound = text(at(o, 'spec', 'volumeName')) !== '';
    return [
      o.metadata.name,
      o.metadata.deletionTimestamp ? 'Terminating' : text(at(o, 'status', 'phase')),
      text(at(o, 'spec', 'volumeName')),
      bound ? text(at(o, 'status', 'capacity', 'storage')) : '',
      bound ? accessModes(at(o, 'status', 'accessModes')) : '',
      volumeClass(o),
      attributesClass(o),
      created(o, now),
      volumeMode(o),
    ];
  },
};

export const podTemplatePrinter: Printer = {
  columns: [
    NAME,
    col('Containers', 'Names of each container in the template.'),
    col('Images', 'Images referenced by each container in the template.'),
    col('Pod Labels', 'The labels for the pod template.'),
  ],
  cells: (o) => {
    const containers = list(at(o, 'template', 'spec', 'containers'));
    const labels = at(o, 'template', 'metadata', 'labels');
    return [
      o.metadata.name,
      containers.map((c) => text(at(c, 'name'))).join(','),
      containers.map((c) => text(at(c, 'image'))).join(','),
      selectorText(isPlainObject(labels) ? (labels as Record<string, string>) : undefined),
    ];
  },
};
