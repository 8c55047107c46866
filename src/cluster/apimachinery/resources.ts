// The resource types the cluster API serves: one table that discovery, OpenAPI, routing, storage and the
// controllers read, and the one set of constants naming its entries. Verbs, short names and categories are the
// real apiserver's (they make `kubectl get no`, `get all` work), and so is the rule each kind's names must
// follow. How each kind behaves on writes, reads and deletes is declared beside it, in kinds.ts.
import type { NameRule } from './names.js';

export interface ResourceType {
  group: string;
  version: string;
  /** Plural, lower case: the URL segment. */
  resource: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  /** Subresources served (status). */
  subresources?: string[];
  verbs?: string[];
  /** How names are validated: a DNS-1123 subdomain unless said otherwise. */
  nameRule?: NameRule;
}

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export const RESOURCES: readonly ResourceType[] = [
  { group: '', version: 'v1', resource: 'configmaps', singular: 'configmap', kind: 'ConfigMap', namespaced: true, shortNames: ['cm'] },
  { group: '', version: 'v1', resource: 'endpoints', singular: 'endpoints', kind: 'Endpoints', namespaced: true, shortNames: ['ep'] },
  { group: '', version: 'v1', resource: 'events', singular: 'event', kind: 'Event', namespaced: true, shortNames: ['ev'] },
  { group: '', version: 'v1', resource: 'limitranges', singular: 'limitrange', kind: 'LimitRange', namespaced: true, shortNames: ['limits'] },
  {
    group: '',
    version: 'v1',
    resource: 'namespaces',
    singular: 'namespace',
    kind: 'Namespace',
    namespaced: false,
    shortNames: ['ns'],
    subresources: ['status'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    nameRule: 'label',
  },
  { group: '', version: 'v1', resource: 'nodes', singular: 'node', kind: 'Node', namespaced: false, shortNames: ['no'], subresources: ['status'] },
  {
    group: '',
    version: 'v1',
    resource: 'persistentvolumeclaims',
    singular: 'persistentvolumeclaim',
    kind: 'PersistentVolumeClaim',
    namespaced: true,
    shortNames: ['pvc'],
    subresources: ['status'],
  },
  {
    group: '',
    version: 'v1',
    resource: 'persistentvolumes',
    singular: 'persistentvolume',
    kind: 'PersistentVolume',
    namespaced: false,
    shortNames: ['pv'],
    subresources: ['status'],
  },
  {
    group: '',
    version: 'v1',
    resource: 'pods',
    singular: 'pod',
    kind: 'Pod',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    subresources: ['status', 'ephemeralcontainers'],
  },
  { group: '', version: 'v1', resource: 'podtemplates', singular: 'podtemplate', kind: 'PodTemplate', namespaced: true },
  {
    group: '',
    version: 'v1',
    resource: 'resourcequotas',
    singular: 'resourcequota',
    kind: 'ResourceQuota',
    namespaced: true,
    shortNames: ['quota'],
    subresources: ['status'],
  },
  { group: '', version: 'v1', resource: 'secrets', singular: 'secret', kind: 'Secret', namespaced: true },
  { group: '', version: 'v1', resource: 'serviceaccounts', singular: 'serviceaccount', kind: 'ServiceAccount', namespaced: true, shortNames: ['sa'] },
  {
    group: '',
    version: 'v1',
    resource: 'services',
    singular: 'service',
    kind: 'Service',
    namespaced: true,
    shortNames: ['svc'],
    categories: ['all'],
    subresources: ['status'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    nameRule: 'dns1035',
  },
  {
    group: 'apiregistration.k8s.io',
    version: 'v1',
    resource: 'apiservices',
    singular: 'apiservice',
    kind: 'APIService',
    namespaced: false,
    categories: ['api-extensions'],
    subresources: ['status'],
    // Named version.group ("v1.apps"), and "v1." for the core group: not a DNS subdomain.
    nameRule: 'path-segment',
  },
  {
    group: 'apps',
    version: 'v1',
    resource: 'daemonsets',
    singular: 'daemonset',
    kind: 'DaemonSet',
    namespaced: true,
    shortNames: ['ds'],
    categories: ['all'],
    subresources: ['status'],
  },
  {
    group: 'apps',
    version: 'v1',
    resource: 'deployments',
    singular: 'deployment',
    kind: 'Deployment',
    namespaced: true,
    shortNames: ['deploy'],
    categories: ['all'],
    subresources: ['scale', 'status'],
  },
  {
    group: 'apps',
    version: 'v1',
    resource: 'replicasets',
    singular: 'replicaset',
    kind: 'ReplicaSet',
    namespaced: true,
    shortNames: ['rs'],
    categories: ['all'],
    subresources: ['scale', 'status'],
  },
  {
    group: 'autoscaling',
    version: 'v2',
    resource: 'horizontalpodautoscalers',
    singular: 'horizontalpodautoscaler',
    kind: 'HorizontalPodAutoscaler',
    namespaced: true,
    shortNames: ['hpa'],
    categories: ['all'],
    subresources: ['status'],
  },
  {
    group: 'certificates.k8s.io',
    version: 'v1',
    resource: 'certificatesigningrequests',
    singular: 'certificatesigningrequest',
    kind: 'CertificateSigningRequest',
    namespaced: false,
    shortNames: ['csr'],
    subresources: ['approval', 'status'],
  },
  {
    group: 'batch',
    version: 'v1',
    resource: 'cronjobs',
    singular: 'cronjob',
    kind: 'CronJob',
    namespaced: true,
    shortNames: ['cj'],
    categories: ['all'],
    subresources: ['status'],
  },
  { group: 'batch', version: 'v1', resource: 'jobs', singular: 'job', kind: 'Job', namespaced: true, categories: ['all'], subresources: ['status'] },
  { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', singular: 'lease', kind: 'Lease', namespaced: true },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    resource: 'clusterrolebindings',
    singular: 'clusterrolebinding',
    kind: 'ClusterRoleBinding',
    namespaced: false,
    nameRule: 'path-segment',
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    resource: 'clusterroles',
    singular: 'clusterrole',
    kind: 'ClusterRole',
    namespaced: false,
    nameRule: 'path-segment',
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    resource: 'rolebindings',
    singular: 'rolebinding',
    kind: 'RoleBinding',
    namespaced: true,
    nameRule: 'path-segment',
  },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', singular: 'role', kind: 'Role', namespaced: true, nameRule: 'path-segment' },
  {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    resource: 'customresourcedefinitions',
    singular: 'customresourcedefinition',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    subresources: ['status'],
  },
  { group: 'networking.k8s.io', version: 'v1', resource: 'ingressclasses', singular: 'ingressclass', kind: 'IngressClass', namespaced: false },
  {
    group: 'networking.k8s.io',
    version: 'v1',
    resource: 'ingresses',
    singular: 'ingress',
    kind: 'Ingress',
    namespaced: true,
    shortNames: ['ing'],
    subresources: ['status'],
  },
  {
    group: 'networking.k8s.io',
    version: 'v1',
    resource: 'networkpolicies',
    singular: 'networkpolicy',
    kind: 'NetworkPolicy',
    namespaced: true,
    shortNames: ['netpol'],
  },
  {
    group: 'policy',
    version: 'v1',
    resource: 'poddisruptionbudgets',
    singular: 'poddisruptionbudget',
    kind: 'PodDisruptionBudget',
    namespaced: true,
    shortNames: ['pdb'],
    subresources: ['status'],
  },
  { group: 'storage.k8s.io', version: 'v1', resource: 'csidrivers', singular: 'csidriver', kind: 'CSIDriver', namespaced: false },
  { group: 'storage.k8s.io', version: 'v1', resource: 'csinodes', singular: 'csinode', kind: 'CSINode', namespaced: false },
  { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses', singular: 'storageclass', kind: 'StorageClass', namespaced: false, shortNames: ['sc'] },
  {
    group: 'storage.k8s.io',
    version: 'v1',
    resource: 'volumeattachments',
    singular: 'volumeattachment',
    kind: 'VolumeAttachment',
    namespaced: false,
    subresources: ['status'],
  },
  {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource: 'mutatingwebhookconfigurations',
    singular: 'mutatingwebhookconfiguration',
    kind: 'MutatingWebhookConfiguration',
    namespaced: false,
    categories: ['api-extensions'],
  },
  {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource: 'validatingwebhookconfigurations',
    singular: 'validatingwebhookconfiguration',
    kind: 'ValidatingWebhookConfiguration',
    namespaced: false,
    categories: ['api-extensions'],
  },
  {
    group: 'scheduling.k8s.io',
    version: 'v1',
    resource: 'priorityclasses',
    singular: 'priorityclass',
    kind: 'PriorityClass',
    namespaced: false,
    shortNames: ['pc'],
  },
  { group: 'node.k8s.io', version: 'v1', resource: 'runtimeclasses', singular: 'runtimeclass', kind: 'RuntimeClass', namespaced: false },
  { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', singular: 'endpointslice', kind: 'EndpointSlice', namespaced: true },
];

export function verbsOf(r: ResourceType): string[] {
  return r.verbs ?? ALL_VERBS;
}

/** How the object store and its change stream name a resource: `group/resource`. */
/** Each resource's key made once: every change in the watch history holds one (docs/performance.md §7). */
const RESOURCE_KEYS_MAX = 10_000;
const resourceKeys = new Map<string, Map<string, string>>();
let resourceKeyCount = 0;

export function resourceKey(r: Pick<ResourceType, 'group' | 'resource'>): string {
  let ofGroup = resourceKeys.get(r.group);
  if (!ofGroup) resourceKeys.set(r.group, (ofGroup = new Map()));
  let key = ofGroup.get(r.resource);
  if (key === undefined) {
    if (++resourceKeyCount > RESOURCE_KEYS_MAX) {
      resourceKeys.clear();
      resourceKeyCount = 1;
      resourceKeys.set(r.group, ofGroup);
      ofGroup.clear();
    }
    ofGroup.set(r.resource, (key = `${r.group}/${r.resource}`));
  }
  return key;
}

export function groupVersion(r: Pick<ResourceType, 'group' | 'version'>): string {
  return r.group === '' ? r.version : `${r.group}/${r.version}`;
}

/** The groups in the order the apiserver lists them (core first, then by priority; ours: table order). */
export function groupVersions(): Array<{ group: string; version: string; resources: ResourceType[] }> {
  const out: Array<{ group: string; version: string; resources: ResourceType[] }> = [];
  for (const r of RESOURCES) {
    let gv = out.find((g) => g.group === r.group && g.version === r.version);
    if (!gv) out.push((gv = { group: r.group, version: r.version, resources: [] }));
    gv.resources.push(r);
  }
  return out;
}

export function findResource(group: string, version: string, resource: string): ResourceType | undefined {
  return RESOURCES.find((r) => r.group === group && r.version === version && r.resource === resource);
}

function served(group: string, resource: string, version = 'v1'): ResourceType {
  const r = findResource(group, version, resource);
  if (!r) throw new Error(`resource ${group}/${resource} is not served`);
  return r;
}

// The entries the code names: the control plane's own kinds, and what the controllers read and write.
export const CONFIGMAPS = served('', 'configmaps');
export const ENDPOINTS = served('', 'endpoints');
export const EVENTS = served('', 'events');
export const NAMESPACES = served('', 'namespaces');
export const NODES = served('', 'nodes');
export const PODS = served('', 'pods');
export const SECRETS = served('', 'secrets');
export const SERVICEACCOUNTS = served('', 'serviceaccounts');
export const SERVICES = served('', 'services');
export const DAEMONSETS = served('apps', 'daemonsets');
export const DEPLOYMENTS = served('apps', 'deployments');
export const REPLICASETS = served('apps', 'replicasets');
export const LEASES = served('coordination.k8s.io', 'leases');
export const LIMITRANGES = served('', 'limitranges');
export const PERSISTENTVOLUMECLAIMS = served('', 'persistentvolumeclaims');
export const PERSISTENTVOLUMES = served('', 'persistentvolumes');
export const PODTEMPLATES = served('', 'podtemplates');
export const RESOURCEQUOTAS = served('', 'resourcequotas');
export const APISERVICES = served('apiregistration.k8s.io', 'apiservices');
export const HPAS = served('autoscaling', 'horizontalpodautoscalers', 'v2');
export const CSRS = served('certificates.k8s.io', 'certificatesigningrequests');
export const INGRESSCLASSES = served('networking.k8s.io', 'ingressclasses');
export const INGRESSES = served('networking.k8s.io', 'ingresses');
export const NETWORKPOLICIES = served('networking.k8s.io', 'networkpolicies');
export const PDBS = served('policy', 'poddisruptionbudgets');
export const CSIDRIVERS = served('storage.k8s.io', 'csidrivers');
export const CSINODES = served('storage.k8s.io', 'csinodes');
export const STORAGECLASSES = served('storage.k8s.io', 'storageclasses');
export const VOLUMEATTACHMENTS = served('storage.k8s.io', 'volumeattachments');
export const MUTATINGWEBHOOKS = served('admissionregistration.k8s.io', 'mutatingwebhookconfigurations');
export const VALIDATINGWEBHOOKS = served('admissionregistration.k8s.io', 'validatingwebhookconfigurations');
export const PRIORITYCLASSES = served('scheduling.k8s.io', 'priorityclasses');
export const RUNTIMECLASSES = served('node.k8s.io', 'runtimeclasses');
export const ENDPOINTSLICES = served('discovery.k8s.io', 'endpointslices');
export const JOBS = served('batch', 'jobs');
export const CRONJOBS = served('batch', 'cronjobs');
