// The operator's Goldmane (flow aggregator) and Whisker (observability UI) controllers, for the Goldmane and
// Whisker resources of Calico's custom-resources.yaml: each renders one Deployment in calico-system with its
// ServiceAccount and Service (tigera/operator v1.42.3 pkg/render/goldmane/component.go, pkg/render/whisker/
// component.go: names, images, ports, env) and reports TigeraStatus goldmane / whisker from it. Their TLS key
// pairs and whisker's nginx ConfigMap are not rendered: the images are not emulated (they run as processes.ts
// runs unknown programs) and read none of it.
import type { KubeObject } from '../apimachinery/object.js';
import { imageRef, type InstallationSpec } from './tigera-installation.js';
import { type Desired, NS, standardLabels } from './tigera-render.js';

/** One observability component as data: its resource, deployment and containers. */
export interface AddOn {
  /** The resource's collection under operator.tigera.io/v1 and its kind. */
  resource: 'goldmanes' | 'whiskers';
  kind: 'Goldmane' | 'Whisker';
  name: 'goldmane' | 'whisker';
  port: number;
  containers: Array<{ name: string; image: string; env: Record<string, string> }>;
}

export const ADD_ONS: AddOn[] = [
  {
    resource: 'goldmanes',
    kind: 'Goldmane',
    name: 'goldmane',
    port: 7443,
    containers: [
      {
        name: 'goldmane',
        image: 'goldmane',
        env: {
          LOG_LEVEL: 'INFO',
          PORT: '7443',
          SERVER_CERT_PATH: '/goldmane-key-pair/tls.crt',
          SERVER_KEY_PATH: '/goldmane-key-pair/tls.key',
          CA_CERT_PATH: '/etc/pki/tls/certs/tigera-ca-bundle.crt',
          PUSH_URL: 'https://guardian.calico-system.svc.cluster.local:443/api/v1/flows/bulk',
          FILE_CONFIG_PATH: '/config/config.json',
          HEALTH_ENABLED: 'true',
        },
      },
    ],
  },
  {
    resource: 'whiskers',
    kind: 'Whisker',
    name: 'whisker',
    port: 8081,
    containers: [
      { name: 'whisker', image: 'whisker', env: { LOG_LEVEL: 'INFO', CALICO_VERSION: 'v3.32.1', CLUSTER_TYPE: 'k8s,operator' } },
      {
        name: 'whisker-backend',
        image: 'whisker-backend',
        env: {
          LOG_LEVEL: 'INFO',
          PORT: '3002',
          GOLDMANE_HOST: 'goldmane.calico-system.svc.cluster.local:7443',
          TLS_CERT_PATH: '/whisker-backend-key-pair/tls.crt',
          TLS_KEY_PATH: '/whisker-backend-key-pair/tls.key',
        },
      },
    ],
  },
];

/** The Deployment, Service and ServiceAccount of one add-on, owned by its resource. */
export function renderAddOn(addOn: AddOn, owner: KubeObject, spec: InstallationSpec): Desired[] {
  const ref = {
    apiVersion: 'operator.tigera.io/v1',
    kind: addOn.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
  const labels = standardLabels(addOn.name, `${addOn.kind}.operator.tigera.io`);
  const meta = { name: addOn.name, namespace: NS, labels, ownerReferences: [ref] };
  const core = `/api/v1/namespaces/${NS}`;
  return [
    { collection: `${core}/serviceaccounts`, name: addOn.name, object: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta } },
    {
      collection: `${core}/services`,
      name: addOn.name,
      object: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: meta,
        spec: { ports: [{ port: addOn.port, protocol: 'TCP' }], selector: { 'k8s-app': addOn.name } },
      },
    },
    {
      collection: `/apis/apps/v1/namespaces/${NS}/deployments`,
      name: addOn.name,
      object: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: meta,
        spec: {
          replicas: 1,
          selector: { matchLabels: { 'k8s-app': addOn.name } },
          template: {
            metadata: { labels },
            spec: {
              serviceAccountName: addOn.name,
              nodeSelector: { 'kubernetes.io/os': 'linux' },
              tolerations: [
                { key: 'CriticalAddonsOnly', operator: 'Exists' },
                { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
              ],
              containers: addOn.containers.map((c) => ({
                name: c.name,
                image: imageRef(spec, c.image),
                imagePullPolicy: 'IfNotPresent',
                env: Object.entries(c.env).map(([name, value]) => ({ name, value })),
              })),
            },
          },
        },
      },
    },
  ];
}
