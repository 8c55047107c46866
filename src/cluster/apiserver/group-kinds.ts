// How the kinds of the built-in groups installers touch behave (storage, admission, aggregation, discovery,
// scheduling, node, certificates, policy, coordination, autoscaling, networking, and core storage and quota
// kinds): their records in the kind table (kinds.ts, docs/architecture.md §7). Most are stored as written with
// the defaults their SetDefaults_* functions fill (kubernetes pkg/apis/<group>/v1/defaults.go); the ones the
// controllers keep hand them their status; node Leases and CSINodes are computed from the nodes.
import { CSR_FIELDS } from './field-labels.js';
import { isPlainObject } from '../../http/own.js';
import { at } from './group-printers.js';
import {
  apiServicePrinter,
  csiDriverPrinter,
  csiNodePrinter,
  csrPrinter,
  hpaPrinter,
  ingressClassPrinter,
  ingressPrinter,
  leasePrinter,
  pdbPrinter,
  persistentVolumeClaimPrinter,
  persistentVolumePrinter,
  podTemplatePrinter,
  priorityClassPrinter,
  resourceQuotaPrinter,
  runtimeClassPrinter,
  storageClassPrinter,
  volumeAttachmentPrinter,
  webhookConfigurationPrinter,
  endpointSlicePrinter,
} from './group-printers.js';
import type { KindBehaviour } from './kind-behaviour.js';
import { minorOf } from '../../aks/kubernetes-versions.js';
import { networkPolicyDefaults, validateNetworkPolicy } from './validation/network-policy.js';
import { nodeLease } from './heartbeats.js';
import { compareKeys, objectKey, type KubeObject } from '../apimachinery/object.js';
import type { ObjectStore } from './storage/store.js';
import {
  APISERVICES,
  CSIDRIVERS,
  CSINODES,
  CSRS,
  ENDPOINTSLICES,
  HPAS,
  INGRESSCLASSES,
  NETWORKPOLICIES,
  INGRESSES,
  LEASES,
  MUTATINGWEBHOOKS,
  NODES,
  PDBS,
  PERSISTENTVOLUMECLAIMS,
  PERSISTENTVOLUMES,
  PODTEMPLATES,
  PRIORITYCLASSES,
  RESOURCEQUOTAS,
  RUNTIMECLASSES,
  STORAGECLASSES,
  VALIDATINGWEBHOOKS,
  VOLUMEATTACHMENTS,
  type ResourceType,
} from '../apimachinery/resources.js';
import { fieldError, forbidden, invalidObject } from '../apimachinery/status.js';
import { k8sTime } from '../apimachinery/time.js';

/** Sets obj[key] when the client left it unset (a Go pointer the defaulter fills). */
function fill(obj: unknown, key: string, value: unknown): void {
  if (isPlainObject(obj) && obj[key] === undefined) obj[key] = value;
}

function each(v: unknown, fn: (item: Record<string, unknown>) => void): void {
  if (Array.isArray(v)) for (const item of v) if (isPlainObject(item)) fn(item);
}

/**
 * Computed objects (one per node) merged with the stored ones of the kind: the computed win a name they
 * share, and the list is in key order as the apiserver lists.
 */
function computedWithStored(r: ResourceType, compute: (objects: ObjectStore, namespace: string | undefined) => KubeObject[]) {
  return (objects: ObjectStore, namespace: string | undefined): KubeObject[] => {
    const made = compute(objects, namespace);
    const keys = new Set(made.map((o) => objectKey(o.metadata.namespace, o.metadata.name)));
    const stored = objects.list(r, r.namespaced ? namespace : undefined).filter((o) => !keys.has(objectKey(o.metadata.namespace, o.metadata.name)));
    return [...made, ...stored].sort((a, b) => compareKeys(objectKey(a.metadata.namespace, a.metadata.name), objectKey(b.metadata.namespace, b.metadata.name)));
  };
}

/** The node Leases in kube-node-lease, one per Node, renewed as the kubelet renews them. */
function nodeLeases(objects: ObjectStore, namespace: string | undefined): KubeObject[] {
  if (namespace !== undefined && namespace !== 'kube-node-lease') return [];
  return objects.list(NODES).map((n) => nodeLease(n));
}

/** The CSINode each node's kubelet registers for AKS's Azure Disk and Azure Files CSI drivers. */
function csiNodes(objects: ObjectStore): KubeObject[] {
  return objects.list(NODES).map((n) => ({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSINode',
    metadata: {
      name: n.metadata.name,
      ...(n.metadata.creationTimestamp ? { creationTimestamp: n.metadata.creationTimestamp } : {}),
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: n.metadata.name, uid: n.metadata.uid }],
    },
    spec: {
      drivers: [
        { name: 'disk.csi.azure.com', nodeID: n.metadata.name, topologyKeys: ['topology.disk.csi.azure.com/zone', 'topology.kubernetes.io/zone'] },
        { name: 'file.csi.azure.com', nodeID: n.metadata.name, topologyKeys: null },
      ],
    },
  }));
}

/** What the webhook configurations' create and update answer in a Warning header: they are never called here. */
export const WEBHOOKS_NOT_CALLED = 'aksemu stores admission webhook configurations but never calls their webhooks: requests are admitted without them';

/** SetDefaults_ValidatingWebhook / SetDefaults_MutatingWebhook, SetDefaults_Rule, SetDefaults_ServiceReference. */
function webhookDefaults(mutating: boolean) {
  return (obj: KubeObject): void =>
    each(obj['webhooks'], (w) => {
      fill(w, 'failurePolicy', 'Fail');
      fill(w, 'matchPolicy', 'Equivalent');
      fill(w, 'namespaceSelector', {});
      fill(w, 'objectSelector', {});
      fill(w, 'timeoutSeconds', 10);
      if (mutating) fill(w, 'reinvocationPolicy', 'Never');
      each(w['rules'], (rule) => fill(rule, 'scope', '*'));
      fill(at(w, 'clientConfig', 'service'), 'port', 443);
    });
}

const webhooks = (mutating: boolean): KindBehaviour => ({
  defaults: webhookDefaults(mutating),
  warnings: [WEBHOOKS_NOT_CALLED],
  printer: webhookConfigurationPrinter,
});

const SYSTEM_PRIORITY_CLASSES = ['system-cluster-critical', 'system-node-critical'];
const HIGHEST_USER_PRIORITY = 1000000000;

/** ValidatePriorityClass and the Priority admission plugin's check of PriorityClass writes. */
function admitPriorityClass(pc: KubeObject, existing: KubeObject | undefined, objects: ObjectStore): void {
  const name = pc.metadata.name;
  const fail = (cause: ReturnType<typeof fieldError.invalid>) => invalidObject(PRIORITYCLASSES.kind, PRIORITYCLASSES.group, name, [cause]);
  const value = pc['value'];
  if (!SYSTEM_PRIORITY_CLASSES.includes(name)) {
    if (name.startsWith('system-'))
      throw fail(fieldError.invalid('metadata.name', name, "priority class names with 'system-' prefix are reserved for system use only"));
    if (typeof value === 'number' && value > HIGHEST_USER_PRIORITY)
      throw fail(fieldError.forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_PRIORITY}`));
  }
  if (existing && (existing['value'] ?? 0) !== (value ?? 0)) throw fail(fieldError.forbidden('value', 'may not be changed in an update.'));
  if (pc['globalDefault'] === true) {
    const other = objects.list(PRIORITYCLASSES).find((o) => o['globalDefault'] === true && o.metadata.name !== name);
    if (other)
      throw forbidden(
        PRIORITYCLASSES.resource,
        PRIORITYCLASSES.group,
        name,
        `PriorityClass ${other.metadata.name} is already marked as default. Only one default can exist`,
      );
  }
}

/** The kube-aggregator's ValidateAPIService checks of what names and ranks an APIService. */
function admitApiService(api: KubeObject): void {
  const spec = isPlainObject(api['spec']) ? api['spec'] : {};
  const causes = [];
  const required = `${String(spec['version'] ?? '')}.${String(spec['group'] ?? '')}`;
  if (api.metadata.name !== required)
    causes.push(fieldError.invalid('metadata.name', api.metadata.name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(required)}`));
  // Local APIServices (no service) are the apiserver's own; they carry no priorities to check.
  if (isPlainObject(spec['service'])) {
    const group = spec['groupPriorityMinimum'];
    const version = spec['versionPriority'];
    if (typeof group !== 'number' || group <= 0 || group > 20000)
      causes.push(fieldError.invalid('spec.groupPriorityMinimum', group ?? 0, 'must be positive and less than 20000'));
    if (typeof version !== 'number' || version <= 0 || version > 1000)
      causes.push(fieldError.invalid('spec.versionPriority', version ?? 0, 'must be positive and less than 1000'));
  }
  if (causes.length) throw invalidObject(APISERVICES.kind, APISERVICES.group, api.metadata.name, causes);
}

/** Go's %#v of a byte slice, as field.Invalid prints a []byte value. */
function goBytes(bytes: Buffer): string {
  return `[]byte{${[...bytes].map((b) => `0x${b.toString(16)}`).join(', ')}}`;
}

/**
 * certificates.ParseCSR's first steps (kubernetes pkg/apis/certificates/helpers.go): spec.request is one PEM
 * block of type CERTIFICATE REQUEST holding a DER SEQUENCE. The x509 parse and signature check that follow
 * are not repeated here (they would refuse key types this check cannot read).
 */
function requestProblem(request: Buffer): string | undefined {
  const m = /-----BEGIN ([^\n-]+)-----\r?\n([A-Za-z0-9+/=\r\n]*)-----END \1-----/.exec(request.toString('latin1'));
  if (!m || m[1] !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  const der = Buffer.from(m[2]!.replace(/\s/g, ''), 'base64');
  if (der.length < 2 || der[0] !== 0x30) return 'x509: malformed certificate request';
  const first = der[1]!;
  const bytes = first & 0x7f;
  const length = first < 0x80 ? first : bytes <= 4 && der.length >= 2 + bytes ? der.subarray(2, 2 + bytes).reduce((n, b) => n * 256 + b, 0) : Infinity;
  return (first < 0x80 ? 2 : 2 + bytes) + length > der.length ? 'asn1: syntax error: sequence truncated' : undefined;
}

/** ValidateCertificateSigningRequestCreate's check of spec.request. */
function admitCsr(csr: KubeObject, existing: KubeObject | undefined): void {
  if (existing) return;
  const request = at(csr, 'spec', 'request');
  const bytes = Buffer.from(typeof request === 'string' ? request : '', 'base64');
  const problem = bytes.length === 0 ? 'required' : requestProblem(bytes);
  if (!problem) return;
  const cause =
    problem === 'required'
      ? fieldError.required('spec.request')
      : { reason: 'FieldValueInvalid', message: `Invalid value: ${goBytes(bytes)}: ${problem}`, field: 'spec.request' };
  throw invalidObject(CSRS.kind, CSRS.group, csr.metadata.name, [cause]);
}

/** The approval subresource writes only the request's conditions, their times filled (certificates strategy.go). */
function approve(existing: KubeObject, written: KubeObject): KubeObject {
  const now = k8sTime(Date.now());
  const conditions = at(written, 'status', 'conditions');
  each(conditions, (c) => {
    fill(c, 'lastUpdateTime', now);
    fill(c, 'lastTransitionTime', now);
  });
  const status = isPlainObject(existing['status']) ? existing['status'] : {};
  return { ...existing, status: { ...status, conditions: Array.isArray(conditions) ? conditions : [] } };
}

export const GROUP_KINDS: ReadonlyArray<[ResourceType, KindBehaviour]> = [
  [LEASES, { computed: computedWithStored(LEASES, nodeLeases), printer: leasePrinter }],
  [
    PERSISTENTVOLUMECLAIMS,
    {
      controllerStatus: { initial: { phase: 'Pending' } },
      defaults: (pvc) => fill(pvc['spec'], 'volumeMode', 'Filesystem'),
      printer: persistentVolumeClaimPrinter,
    },
  ],
  [
    PERSISTENTVOLUMES,
    {
      controllerStatus: { initial: { phase: 'Pending' } },
      defaults: (pv) => {
        fill(pv['spec'], 'persistentVolumeReclaimPolicy', 'Retain');
        fill(pv['spec'], 'volumeMode', 'Filesystem');
      },
      printer: persistentVolumePrinter,
    },
  ],
  [PODTEMPLATES, { printer: podTemplatePrinter }],
  [
    RESOURCEQUOTAS,
    {
      controllerStatus: { initial: {} },
      // The quota controller's first step: status.hard follows spec.hard (usage is not counted here).
      defaults: (q) => {
        const hard = at(q, 'spec', 'hard');
        if (isPlainObject(hard)) q['status'] = { ...(isPlainObject(q['status']) ? q['status'] : {}), hard: structuredClone(hard) };
      },
      printer: resourceQuotaPrinter,
    },
  ],
  [APISERVICES, { controllerStatus: { initial: {} }, admit: (api) => admitApiService(api), printer: apiServicePrinter }],
  [
    HPAS,
    { controllerStatus: { initial: { currentReplicas: 0, desiredReplicas: 0 } }, defaults: (h) => fill(h['spec'], 'minReplicas', 1), printer: hpaPrinter },
  ],
  [
    CSRS,
    {
      controllerStatus: { initial: {} },
      // The requester's identity, as the apiserver records it: aksemu's credentials are AKS's local accounts.
      defaults: (csr, existing) => {
        if (existing || !isPlainObject(csr['spec'])) return;
        csr['spec']['username'] = 'masterclient';
        csr['spec']['groups'] = ['system:masters', 'system:authenticated'];
      },
      admit: (csr, existing) => admitCsr(csr, existing),
      subresourceWrites: { approval: approve },
      printer: csrPrinter,
      fieldLabels: CSR_FIELDS,
    },
  ],
  [INGRESSCLASSES, { printer: ingressClassPrinter }],
  [
    NETWORKPOLICIES,
    {
      defaults: networkPolicyDefaults,
      admit: (policy, _existing, host) => validateNetworkPolicy(policy, NETWORKPOLICIES.group, minorOf(host.kubernetesVersion())),
    },
  ],
  [INGRESSES, { controllerStatus: { initial: { loadBalancer: {} } }, printer: ingressPrinter }],
  [PDBS, { controllerStatus: { initial: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 } }, printer: pdbPrinter }],
  [
    CSIDRIVERS,
    {
      defaults: (d) => {
        const spec = d['spec'];
        fill(spec, 'attachRequired', true);
        fill(spec, 'podInfoOnMount', false);
        fill(spec, 'storageCapacity', false);
        fill(spec, 'fsGroupPolicy', 'ReadWriteOnceWithFSType');
        fill(spec, 'requiresRepublish', false);
        fill(spec, 'volumeLifecycleModes', ['Persistent']);
      },
      printer: csiDriverPrinter,
    },
  ],
  [CSINODES, { computed: computedWithStored(CSINODES, csiNodes), printer: csiNodePrinter }],
  [
    STORAGECLASSES,
    {
      defaults: (sc) => {
        fill(sc, 'reclaimPolicy', 'Delete');
        fill(sc, 'volumeBindingMode', 'Immediate');
      },
      printer: storageClassPrinter,
    },
  ],
  [VOLUMEATTACHMENTS, { controllerStatus: { initial: { attached: false } }, printer: volumeAttachmentPrinter }],
  [MUTATINGWEBHOOKS, webhooks(true)],
  [VALIDATINGWEBHOOKS, webhooks(false)],
  [
    PRIORITYCLASSES,
    {
      defaults: (pc) => fill(pc, 'preemptionPolicy', 'PreemptLowerPriority'),
      admit: (pc, existing, host) => admitPriorityClass(pc, existing, host.objects),
      printer: priorityClassPrinter,
    },
  ],
  [RUNTIMECLASSES, { printer: runtimeClassPrinter }],
  [ENDPOINTSLICES, { printer: endpointSlicePrinter }],
];
