// The field selectors each kind answers, as the apiserver declares them: the scheme's field label conversion
// (pkg/apis/<group>/v1/conversion.go, AddFieldLabelConversionFunc; runtime.DefaultMetaV1FieldSelectorConversion for a
// kind without one) decides which labels a list or watch may use and the 400's words for any other; the registry's
// GetAttrs / ToSelectableFields (pkg/registry/<group>/<kind>/strategy.go) decide what each label reads, always as a
// string (`spec.hostNetwork=false` matches a pod that never set it).
import { fieldValue, type Requirement, type Selector } from '../apimachinery/selectors.js';
import { badRequest } from '../apimachinery/status.js';
import { minorOf } from '../../aks/kubernetes-versions.js';

/** How one label reads off the object: the path of the same name, or a value computed as the strategy computes it. */
export type FieldRead = (obj: unknown) => string;

export interface FieldLabel {
  read?: FieldRead;
}

export interface FieldLabels {
  readonly labels: Readonly<Record<string, FieldLabel>>;
  /** The conversion's error for a label it does not take (the 400's message). */
  refused(label: string): string;
  /** The first Kubernetes minor version with this conversion; the default conversion's before it. */
  since?: number;
}

const NOT_SUPPORTED = (label: string) => `field label not supported: ${label}`;

/** A field read as the strategy reads it, with the strategy's value when the object leaves it unset. */
const orElse =
  (path: string, unset: string): FieldRead =>
  (obj) =>
    fieldValue(obj, path) || unset;

/** Only metadata.name and metadata.namespace (runtime.DefaultMetaV1FieldSelectorConversion): every kind without its own. */
export const METADATA_ONLY: FieldLabels = {
  labels: { 'metadata.name': {}, 'metadata.namespace': {} },
  refused: (label) => `"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
};

/** A kind's own conversion: its labels (metadata.name and, if namespaced, metadata.namespace first). */
function declared(namespaced: boolean, labels: Record<string, FieldLabel>, refused = NOT_SUPPORTED): FieldLabels {
  return { labels: { 'metadata.name': {}, ...(namespaced ? { 'metadata.namespace': {} } : {}), ...labels }, refused };
}

/** A CRD version's: metadata.name, metadata.namespace and its selectableFields (apiextensions' crConvertor). */
export function customFieldLabels(selectable: readonly string[]): FieldLabels {
  return declared(true, Object.fromEntries(selectable.map((f) => [f, {}])));
}

// pkg/apis/core/v1/conversion.go (Pod) + pkg/registry/core/pod/strategy.go (PodToSelectableFields): the pod's IP is
// podIPs[0]; status.podIPs is taken but never set, so it reads empty; spec.host is the old name of spec.nodeName.
export const POD_FIELDS = declared(true, {
  'spec.nodeName': {},
  'spec.host': { read: (pod) => fieldValue(pod, 'spec.nodeName') },
  'spec.restartPolicy': {},
  'spec.schedulerName': {},
  'spec.serviceAccountName': {},
  'spec.hostNetwork': { read: orElse('spec.hostNetwork', 'false') },
  'status.phase': {},
  'status.podIP': { read: (pod) => fieldValue(pod, 'status.podIPs.0.ip') || fieldValue(pod, 'status.podIP') },
  'status.podIPs': { read: () => '' },
  'status.nominatedNodeName': {},
});

// pkg/apis/core/v1/conversion.go (Node) + pkg/registry/core/node/strategy.go (NodeToSelectableFields).
export const NODE_FIELDS = declared(false, { 'spec.unschedulable': { read: orElse('spec.unschedulable', 'false') } });

// pkg/apis/core/v1/conversion.go (AddFieldLabelConversionsForNamespace) + pkg/registry/core/namespace/strategy.go.
export const NAMESPACE_FIELDS = declared(false, { 'status.phase': {} });

// pkg/apis/core/v1/conversion.go (AddFieldLabelConversionsForSecret) + pkg/registry/core/secret/strategy.go.
export const SECRET_FIELDS = declared(true, { type: {} });

// pkg/apis/core/v1/conversion.go (AddFieldLabelConversionsForService, Kubernetes 1.31) +
// pkg/registry/core/service/strategy.go; before 1.31 Services had the default conversion's two labels.
export const SERVICE_FIELDS: FieldLabels = { ...declared(true, { 'spec.clusterIP': {}, 'spec.type': {} }), since: 31 };

// pkg/apis/core/v1/conversion.go (AddFieldLabelConversionsForEvent) + pkg/registry/core/event/strategy.go: `source` is
// the source component, or the reporting controller when there is none.
export const EVENT_FIELDS = declared(true, {
  'involvedObject.kind': {},
  'involvedObject.namespace': {},
  'involvedObject.name': {},
  'involvedObject.uid': {},
  'involvedObject.apiVersion': {},
  'involvedObject.resourceVersion': {},
  'involvedObject.fieldPath': {},
  reason: {},
  reportingComponent: {},
  source: { read: (ev) => fieldValue(ev, 'source.component') || fieldValue(ev, 'reportingComponent') },
  type: {},
});

// pkg/apis/batch/v1/conversion.go (Job, in its own words) + pkg/registry/batch/job/strategy.go: the count of succeeded pods.
export const JOB_FIELDS = declared(
  true,
  { 'status.successful': { read: orElse('status.succeeded', '0') } },
  (label) => `field label "${label}" not supported for batchv1.Job`,
);

// apps/v1 registers no conversion: ReplicaSets, Deployments, DaemonSets take metadata.name and .namespace only (the
// status.replicas of ReplicationControllers and extensions/v1beta1 ReplicaSets is not theirs).

// pkg/apis/certificates/v1/conversion.go (CertificateSigningRequest) + pkg/registry/certificates/certificates/strategy.go.
export const CSR_FIELDS = declared(false, { 'spec.signerName': {} });

/**
 * The selector as the kind answers it: each field requirement with the kind's reading of its label. A label the kind
 * does not take (at this Kubernetes version) is the apiserver's 400, for lists and watches alike; kubectl prints the
 * message after its `Unable to find … that match label selector` preamble.
 */
export function kindSelector(kind: FieldLabels, selector: Selector, kubernetesVersion: string): Selector {
  if (selector.fields.length === 0) return selector;
  const labels = kind.since !== undefined && minorOf(kubernetesVersion) < kind.since ? METADATA_ONLY : kind;
  const fields = selector.fields.map((f): Requirement => {
    const label = Object.hasOwn(labels.labels, f.key) ? labels.labels[f.key] : undefined;
    if (!label) throw badRequest(labels.refused(f.key));
    return label.read ? { ...f, read: label.read } : f;
  });
  return { labels: selector.labels, fields };
}
