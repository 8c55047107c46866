// kube-proxy's view per node (docs/dataplane.md §12): Services + EndpointSlices + Nodes → NodeServices, and the
// controller pushing a node's table only when it changed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NodeNetwork } from '../../src/cluster/images/program.js';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';
import type { Service } from '../../src/cluster/apimachinery/types.js';
import { ENDPOINTSLICES, NODES, SERVICES } from '../../src/cluster/apimachinery/resources.js';
import type { ControllerContext } from '../../src/cluster/client/context.js';
import { nodeTables, ServiceProxy } from '../../src/cluster/proxy/service-proxy.js';
import type { NodeServices } from '../../src/dataplane/services.js';
import type { ClusterRecord } from '../../src/model/cluster-records.js';

const cluster = (networkPlugin: string, extra: Record<string, unknown> = {}): ClusterRecord =>
  ({ id: '/c', resolved: { network: { networkPlugin, serviceCidr: '10.0.0.0/16', ...extra } } }) as unknown as ClusterRecord;

const svc = (name: string, spec: Record<string, unknown>): Service =>
  ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default' },
    spec: { ports: [{ name: 'http', port: 80, protocol: 'TCP' }], ...spec },
  }) as Service;

type Ep = { ip: string; node: string; ready?: boolean; serving?: boolean; terminating?: boolean };
const slice = (service: string, eps: Ep[]): KubeObject =>
  ({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: `${service}-abc`, namespace: 'default', labels: { 'kubernetes.io/service-name': service } },
    addressType: 'IPv4',
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    endpoints: eps.map((e) => ({
      addresses: [e.ip],
      nodeName: e.node,
      conditions: { ready: e.ready ?? true, serving: e.serving ?? e.ready ?? true, terminating: e.terminating ?? false },
    })),
  }) as unknown as KubeObject;

const EPS: Ep[] = [
  { ip: '10.244.0.2', node: 'n0' },
  { ip: '10.244.1.2', node: 'n1' },
  { ip: '10.244.1.3', node: 'n1', ready: false },
];

test('ClusterIP: every ready endpoint; headless and ExternalName get nothing; the cluster CIDR per model', () => {
  const services = [
    svc('web', { clusterIP: '10.0.0.20' }),
    svc('headless', { clusterIP: 'None' }),
    svc('ext', { type: 'ExternalName', externalName: 'example.com' }),
  ];
  const tables = nodeTables(cluster('kubenet', { podCidr: '10.244.0.0/16' }), ['n0', 'n1'], services, [slice('web', EPS), slice('headless', EPS)]);
  const t = tables.get('n0')!;
  assert.equal(t.clusterCidr, '10.244.0.0/16');
  assert.deepEqual(t.serviceCidrs, ['10.0.0.0/16']);
  assert.equal(t.ports.length, 1);
  assert.deepEqual(t.ports[0]!.clusterEndpoints, [
    { ip: '10.244.0.2', port: 8080 },
    { ip: '10.244.1.2', port: 8080 },
  ]);
  assert.equal(t.ports[0]!.hasEndpoints, true);
  assert.equal(nodeTables(cluster('azure'), ['n0'], services, []).get('n0')!.clusterCidr, 'node-subnet');
  assert.equal(nodeTables(cluster('none'), ['n0'], services, []).get('n0')!.clusterCidr, undefined);
});

test('terminating fallback, eTP Local, iTP Local and ClientIP affinity', () => {
  const services = [
    svc('term', { clusterIP: '10.0.0.21' }),
    svc('np', {
      clusterIP: '10.0.0.22',
      type: 'NodePort',
      externalTrafficPolicy: 'Local',
      ports: [{ name: 'http', port: 80, protocol: 'TCP', nodePort: 30080 }],
    }),
    svc('itp', { clusterIP: '10.0.0.23', internalTrafficPolicy: 'Local', sessionAffinity: 'ClientIP' }),
  ];
  const slices = [
    slice('term', [
      { ip: '10.244.0.9', node: 'n0', ready: false, serving: true, terminating: true },
      { ip: '10.244.0.8', node: 'n0', ready: false, serving: false, terminating: true },
    ]),
    slice('np', EPS),
    slice('itp', EPS),
  ];
  const tables = nodeTables(cluster('kubenet', { podCidr: '10.244.0.0/16' }), ['n0', 'n1'], services, slices);
  const [term, np, itp] = tables.get('n0')!.ports;
  assert.deepEqual(term!.clusterEndpoints, [{ ip: '10.244.0.9', port: 8080 }], 'only serving terminating endpoints when none is ready');
  assert.equal(np!.nodePort, 30080);
  assert.equal(np!.externalLocal, true);
  assert.deepEqual(np!.localEndpoints, [{ ip: '10.244.0.2', port: 8080 }]);
  assert.equal(np!.clusterEndpoints.length, 2, 'ClusterIP traffic still uses every endpoint');
  assert.deepEqual(itp!.clusterEndpoints, [], 'iTP Local alone uses no cluster endpoints');
  assert.deepEqual(itp!.localEndpoints, [{ ip: '10.244.0.2', port: 8080 }]);
  assert.equal(itp!.affinitySeconds, 10800);
  assert.deepEqual(tables.get('n1')!.ports[2]!.localEndpoints, [{ ip: '10.244.1.2', port: 8080 }]);
});

test('hostile objects are left out, not rendered', () => {
  const services = [svc('bad', { clusterIP: '10.0.0.30', ports: [{ name: 'x; flush', port: 80, protocol: 'TCP' }] }), svc('ok', { clusterIP: '10.0.0.31' })];
  assert.deepEqual(
    nodeTables(cluster('kubenet'), ['n0'], services, [])
      .get('n0')!
      .ports.map((p) => p.name),
    ['ok'],
  );
  const slices = [
    slice('ok', [
      { ip: '10.244.0.2', node: 'n0' },
      { ip: '10.244.0.3 } ; flush ruleset', node: 'n0' },
      { ip: '::1', node: 'n0' },
    ]),
  ];
  assert.deepEqual(
    nodeTables(cluster('kubenet'), ['n0'], services, slices).get('n0')!.ports[0]!.clusterEndpoints,
    [{ ip: '10.244.0.2', port: 8080 }],
    'a bad endpoint is left out, not its Service',
  );
});

test('the controller debounces and pushes a node only when its table changed', async () => {
  const objects: Record<string, KubeObject[]> = {
    [NODES.resource]: [{ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n0' } }],
    [SERVICES.resource]: [svc('web', { clusterIP: '10.0.0.20' })],
    [ENDPOINTSLICES.resource]: [slice('web', EPS)],
  };
  const ctx = { objects: { list: (r: { resource: string }) => objects[r.resource] ?? [] }, log: () => undefined } as unknown as ControllerContext;
  const pushes: Array<[string, NodeServices]> = [];
  const network = {
    applyOverlay: async () => undefined,
    removeOverlay: async () => undefined,
    applyServices: async (n: string, t: NodeServices) => void pushes.push([n, t]),
  } as NodeNetwork;
  const proxy = new ServiceProxy(
    ctx,
    () => network,
    () => cluster('kubenet', { podCidr: '10.244.0.0/16' }),
  );
  const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 300));
  proxy.resync();
  await settle();
  assert.equal(pushes.length, 1);
  const change = (resource: string, type = 'MODIFIED') => ({ rv: 1, type, resource, object: objects[SERVICES.resource]![0]! }) as never;
  proxy.observe(change('/services'));
  proxy.observe(change('/services'));
  await settle();
  assert.equal(pushes.length, 1, 'the same table is not pushed again');
  proxy.observe(change('/nodes'));
  objects[ENDPOINTSLICES.resource] = [slice('web', EPS.slice(1))];
  await settle();
  assert.equal(pushes.length, 1, 'a node heartbeat recomputes nothing');
  proxy.observe(change('discovery.k8s.io/endpointslices'));
  await settle();
  assert.equal(pushes.length, 2);
  assert.deepEqual(pushes[1]![1].ports[0]!.clusterEndpoints, [{ ip: '10.244.1.2', port: 8080 }]);
  proxy.close();
});
