// The CustomResourceDefinitions cilium-operator registers at start (Cilium's pkg/k8s/apis/cilium.io/client
// registers its CRDs from the operator; the agent waits for them). Written here as data, not copied: names,
// kinds, scopes, short names, versions and the printer columns `kubectl get` shows are Cilium's; the schemas are
// structural and keep unknown fields where aksemu does not model them (spec and status), which the API server
// accepts as a real Cilium object would be accepted.
import type { KubeObject } from '../apimachinery/object.js';

export const CILIUM_GROUP = 'cilium.io';

interface Column {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
}

interface CrdSpec {
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  scope: 'Cluster' | 'Namespaced';
  version: 'v2' | 'v2alpha1';
  /** Top-level fields besides apiVersion, kind and metadata (spec and status unless told). */
  fields?: Record<string, unknown>;
  columns?: Column[];
  /** Whether status is a subresource (policies report status through it). */
  statusSubresource?: boolean;
}

const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
const age: Column = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

/** A policy kind: rules in spec (or specs), validity reported in status through its subresource. */
function policy(kind: string, plural: string, singular: string, shortNames: string[], scope: CrdSpec['scope']): CrdSpec {
  return {
    kind,
    plural,
    singular,
    shortNames,
    scope,
    version: 'v2',
    fields: { spec: open, specs: { type: 'array', items: open }, status: open },
    statusSubresource: true,
    columns: [age, { name: 'Valid', type: 'string', jsonPath: '.status.conditions[?(@.type=="Valid")].status' }],
  };
}

const SPECS: CrdSpec[] = [
  {
    kind: 'CiliumNode',
    plural: 'ciliumnodes',
    singular: 'ciliumnode',
    shortNames: ['cn', 'ciliumn'],
    scope: 'Cluster',
    version: 'v2',
    fields: {
      spec: {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
        properties: {
          addresses: { type: 'array', items: { type: 'object', properties: { ip: { type: 'string' }, type: { type: 'string' } } } },
          ipam: {
            type: 'object',
            'x-kubernetes-preserve-unknown-fields': true,
            properties: { podCIDRs: { type: 'array', items: { type: 'string' } } },
          },
        },
      },
      status: open,
    },
    columns: [
      {
        name: 'CiliumInternalIP',
        type: 'string',
        jsonPath: '.spec.addresses[?(@.type=="CiliumInternalIP")].ip',
        description: 'Cilium internal IP for this node',
      },
      { name: 'InternalIP', type: 'string', jsonPath: '.spec.addresses[?(@.type=="InternalIP")].ip', description: 'IP of the node' },
      age,
    ],
  },
  {
    kind: 'CiliumEndpoint',
    plural: 'ciliumendpoints',
    singular: 'ciliumendpoint',
    shortNames: ['cep', 'ciliumep'],
    scope: 'Namespaced',
    version: 'v2',
    fields: { status: open },
    columns: [
      { name: 'Security Identity', type: 'integer', jsonPath: '.status.identity.id', description: 'Security Identity' },
      { name: 'Endpoint State', type: 'string', jsonPath: '.status.state', description: 'Endpoint current state' },
      { name: 'IPv4', type: 'string', jsonPath: '.status.networking.addressing[0].ipv4', description: 'Endpoint IPv4 address' },
      { name: 'IPv6', type: 'string', jsonPath: '.status.networking.addressing[0].ipv6', description: 'Endpoint IPv6 address' },
    ],
  },
  {
    kind: 'CiliumIdentity',
    plural: 'ciliumidentities',
    singular: 'ciliumidentity',
    shortNames: ['ciliumid'],
    scope: 'Cluster',
    version: 'v2',
    fields: { 'security-labels': { type: 'object', additionalProperties: { type: 'string' } } },
    columns: [
      { name: 'Namespace', type: 'string', jsonPath: '.metadata.labels.io\\.kubernetes\\.pod\\.namespace', description: 'The namespace of the entity' },
      age,
    ],
  },
  policy('CiliumNetworkPolicy', 'ciliumnetworkpolicies', 'ciliumnetworkpolicy', ['cnp', 'ciliumnp'], 'Namespaced'),
  policy('CiliumClusterwideNetworkPolicy', 'ciliumclusterwidenetworkpolicies', 'ciliumclusterwidenetworkpolicy', ['ccnp'], 'Cluster'),
  { kind: 'CiliumNodeConfig', plural: 'ciliumnodeconfigs', singular: 'ciliumnodeconfig', shortNames: [], scope: 'Namespaced', version: 'v2' },
  { kind: 'CiliumCIDRGroup', plural: 'ciliumcidrgroups', singular: 'ciliumcidrgroup', shortNames: ['ccg'], scope: 'Cluster', version: 'v2', columns: [age] },
  {
    kind: 'CiliumLoadBalancerIPPool',
    plural: 'ciliumloadbalancerippools',
    singular: 'ciliumloadbalancerippool',
    shortNames: ['ippools', 'ippool', 'lbippool', 'lbippools'],
    scope: 'Cluster',
    version: 'v2',
    statusSubresource: true,
  },
  {
    kind: 'CiliumEnvoyConfig',
    plural: 'ciliumenvoyconfigs',
    singular: 'ciliumenvoyconfig',
    shortNames: ['cec'],
    scope: 'Namespaced',
    version: 'v2',
    columns: [age],
  },
  {
    kind: 'CiliumClusterwideEnvoyConfig',
    plural: 'ciliumclusterwideenvoyconfigs',
    singular: 'ciliumclusterwideenvoyconfig',
    shortNames: ['ccec'],
    scope: 'Cluster',
    version: 'v2',
    columns: [age],
  },
  {
    kind: 'CiliumEgressGatewayPolicy',
    plural: 'ciliumegressgatewaypolicies',
    singular: 'ciliumegressgatewaypolicy',
    shortNames: [],
    scope: 'Cluster',
    version: 'v2',
    columns: [age],
  },
  {
    kind: 'CiliumL2AnnouncementPolicy',
    plural: 'ciliuml2announcementpolicies',
    singular: 'ciliuml2announcementpolicy',
    shortNames: ['l2announcement'],
    scope: 'Cluster',
    version: 'v2alpha1',
    statusSubresource: true,
    columns: [age],
  },
  { kind: 'CiliumPodIPPool', plural: 'ciliumpodippools', singular: 'ciliumpodippool', shortNames: ['cpip'], scope: 'Cluster', version: 'v2alpha1' },
];

/** The CustomResourceDefinition objects, as `kubectl get crd <name> -o yaml` would show their spec. */
export function ciliumCrds(): KubeObject[] {
  return SPECS.map((s) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${s.plural}.${CILIUM_GROUP}`, labels: { 'io.cilium.k8s.crd.schema.version': '1.32.1' } },
    spec: {
      group: CILIUM_GROUP,
      names: {
        kind: s.kind,
        listKind: `${s.kind}List`,
        plural: s.plural,
        singular: s.singular,
        ...(s.shortNames.length ? { shortNames: s.shortNames } : {}),
        categories: ['cilium'],
      },
      scope: s.scope,
      versions: [
        {
          name: s.version,
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              required: ['metadata'],
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                ...(s.fields ?? { spec: open, status: open }),
              },
            },
          },
          ...(s.columns ? { additionalPrinterColumns: s.columns } : {}),
          ...(s.statusSubresource ? { subresources: { status: {} } } : {}),
        },
      ],
    },
  }));
}

/** The API path of a Cilium kind's collection (cluster scope, or in `namespace`). */
export function ciliumPath(plural: string, namespace?: string, name?: string): string {
  const base = namespace === undefined ? `/apis/${CILIUM_GROUP}/v2/${plural}` : `/apis/${CILIUM_GROUP}/v2/namespaces/${namespace}/${plural}`;
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
}
