// The cluster API's pieces on their own: HumanDuration, selectors, discovery negotiation, node printing,
// watch translation, CNI config loading, patches, and the object store's resource versions.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseNetworkConfig } from '../../src/cni/confdir.js';
import { catalogOf } from '../../src/cluster/apiserver/catalog.js';
import { aggregatedDiscovery, aggregatedVersion, apiResourceList } from '../../src/cluster/apiserver/discovery.js';
import { ObjectStore } from '../../src/cluster/apiserver/storage/store.js';
import { strategicMergePatch } from '../../src/cluster/apiserver/patch.js';
import { nodePrinter } from '../../src/cluster/apiserver/printers.js';
import { findResource } from '../../src/cluster/apimachinery/resources.js';
import { matchFields, matchLabels, parseFieldSelector, parseLabelSelector } from '../../src/cluster/apimachinery/selectors.js';
import { table } from '../../src/cluster/apiserver/tables.js';
import { humanDuration, k8sTime, microTime } from '../../src/cluster/apimachinery/time.js';
import { openWatch, type WatchEvent } from '../../src/cluster/apiserver/watch.js';

const NODES = findResource('', 'v1', 'nodes')!;
const PODS = findResource('', 'v1', 'pods')!;

describe('cluster API units', () => {
  test('HumanDuration boundaries (docs/clients.md §5.4.3)', () => {
    const cases: Array<[number, string]> = [
      [0, '0s'],
      [119, '119s'],
      [120, '2m'],
      [369, '6m9s'],
      [601, '10m'],
      [10860, '3h1m'],
      [86400, '24h'],
      [176400, '2d1h'],
      [8 * 86400, '8d'],
      [730 * 86400, '2y'],
      [731 * 86400, '2y1d'],
    ];
    for (const [s, want] of cases) assert.equal(humanDuration(s * 1000), want, `${s}s`);
    assert.equal(humanDuration(-5000), '<invalid>');
    assert.match(microTime(Date.parse('2026-12-02T10:19:38.123Z')), /^2026-12-02T10:19:38\.123000Z$/);
  });

  test('metav1.Time in whole seconds, whichever second was formatted before', () => {
    const t = Date.parse('2026-12-02T10:19:38.123Z');
    assert.equal(k8sTime(t), '2026-12-02T10:19:38Z');
    assert.equal(k8sTime(t + 876), '2026-12-02T10:19:38Z');
    assert.equal(k8sTime(t + 877), '2026-12-02T10:19:39Z');
    assert.equal(k8sTime(t - 124), '2026-12-02T10:19:37Z');
    assert.equal(k8sTime(new Date(t)), '2026-12-02T10:19:38Z');
    assert.equal(k8sTime('2026-12-02T10:19:38.999Z'), '2026-12-02T10:19:38Z');
    assert.equal(k8sTime(-1), '1969-12-31T23:59:59Z');
    assert.equal(k8sTime(-1000), '1969-12-31T23:59:59Z');
    assert.equal(k8sTime(-1001), '1969-12-31T23:59:58Z');
    assert.throws(() => k8sTime(Number.NaN), RangeError);
    assert.throws(() => k8sTime(8.64e15 + 1), RangeError);
  });

  test('label and field selectors, including !=, in/notin, existence and empty values', () => {
    const labels = { app: 'web', tier: 'front' };
    assert.ok(matchLabels(parseLabelSelector('app=web,tier!=back'), labels));
    assert.ok(matchLabels(parseLabelSelector('app in (web,api),!missing,tier'), labels));
    assert.ok(!matchLabels(parseLabelSelector('app notin (web)'), labels));
    assert.ok(!matchLabels(parseLabelSelector('missing='), labels));
    const event = { involvedObject: { name: 'n1', kind: 'Node' } };
    assert.ok(matchFields(parseFieldSelector('involvedObject.name=n1,involvedObject.namespace=,involvedObject.kind=Node'), event));
    const pod = { spec: { nodeName: 'n1' }, status: { phase: 'Running' } };
    assert.ok(matchFields(parseFieldSelector('spec.nodeName=n1,status.phase!=Succeeded,status.phase!=Failed'), pod));
    assert.throws(() => parseFieldSelector('nonsense'), /invalid selector/);
  });

  test('discovery: aggregated v2 or v2beta1 by Accept, legacy otherwise; short names and categories', () => {
    const kubectl132 =
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
    assert.equal(aggregatedVersion(kubectl132), 'v2');
    assert.equal(aggregatedVersion('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json'), 'v2beta1');
    assert.equal(aggregatedVersion('application/json, */*'), undefined);
    const catalog = catalogOf(new ObjectStore());
    const core = aggregatedDiscovery(catalog, true, 'v2') as any;
    const nodes = core.items[0].versions[0].resources.find((r: any) => r.resource === 'nodes');
    assert.deepEqual(nodes.shortNames, ['no']);
    assert.equal(nodes.scope, 'Cluster');
    const apps = (aggregatedDiscovery(catalog, false, 'v2') as any).items.find((i: any) => i.metadata.name === 'apps');
    assert.deepEqual(apps.versions[0].resources.find((r: any) => r.resource === 'daemonsets').categories, ['all']);
    const legacy = apiResourceList(catalog, '', 'v1') as any;
    assert.ok(legacy.resources.some((r: any) => r.name === 'nodes/status'));
  });

  test('node Table: status, roles from both role labels, wide columns, PartialObjectMetadata rows', () => {
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: 'n',
        creationTimestamp: new Date(Date.now() - 369_000).toISOString(),
        labels: { 'kubernetes.io/role': 'agent', 'node-role.kubernetes.io/agent': '' },
      },
      spec: { unschedulable: true },
      status: {
        conditions: [{ type: 'Ready', status: 'False' }],
        addresses: [{ type: 'InternalIP', address: '10.224.0.4' }],
        nodeInfo: { kubeletVersion: 'v1.32.9' },
      },
    };
    const t = table(nodePrinter, [node], 'Metadata', { resourceVersion: '5' }) as any;
    assert.deepEqual(t.rows[0].cells, [
      'n',
      'NotReady,SchedulingDisabled',
      'agent',
      '6m9s',
      'v1.32.9',
      '10.224.0.4',
      '<none>',
      '<unknown>',
      '<unknown>',
      '<unknown>',
    ]);
    assert.equal(t.rows[0].object.kind, 'PartialObjectMetadata');
    assert.deepEqual(
      t.columnDefinitions.filter((c: any) => c.priority === 0).map((c: any) => c.name),
      ['Name', 'Status', 'Roles', 'Age', 'Version'],
    );
  });

  test('watch: no replay from a resourceVersion, ADDED/DELETED as objects enter and leave a selector, 410 when too old', () => {
    const store = new ObjectStore(100);
    store.put(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', namespace: 'default', labels: { x: '1' } } });
    const rv = String(store.resourceVersion);
    const events: WatchEvent[] = [];
    const w = openWatch(
      store,
      PODS,
      'default',
      { labels: parseLabelSelector('x=1'), fields: [] },
      { resourceVersion: rv },
      { send: (e) => events.push(e), close: () => {} },
    );
    store.put(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', namespace: 'default', labels: { x: '2' } } });
    store.put(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'b', namespace: 'other', labels: { x: '1' } } });
    store.put(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', namespace: 'default', labels: { x: '1' } } });
    store.delete(PODS, 'default', 'a');
    w.stop();
    assert.deepEqual(
      events.map((e) => [e.type, (e.object as any).metadata.name]),
      [
        ['DELETED', 'a'],
        ['ADDED', 'a'],
        ['DELETED', 'a'],
      ],
    );
    const replay: WatchEvent[] = [];
    openWatch(store, PODS, undefined, { labels: [], fields: [] }, { resourceVersion: rv }, { send: (e) => replay.push(e), close: () => {} }).stop();
    assert.equal(replay.length, 4);
    const old: WatchEvent[] = [];
    openWatch(store, NODES, undefined, { labels: [], fields: [] }, { resourceVersion: '3' }, { send: (e) => old.push(e), close: () => {} });
    assert.equal(old[0]?.type, 'ERROR');
    assert.equal((old[0]?.object as any).code, 410);
  });

  /** Pod a, Pending, in a store whose controller (subscribed first, as the cluster's are) answers Running with Ready. */
  const storeWithController = () => {
    const store = new ObjectStore(1);
    const pod = (phase: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', namespace: 'default' }, status: { phase } });
    store.put(PODS, pod('Pending'));
    store.subscribe((c) => {
      if ((c.object as any).status?.phase === 'Running') store.put(PODS, pod('Ready'));
    });
    return { store, pod };
  };

  test('a watch sends changes in resourceVersion order when a listener writes while the store tells it of one', () => {
    const { store, pod } = storeWithController();
    const events: WatchEvent[] = [];
    const w = openWatch(store, PODS, 'default', { labels: [], fields: [] }, {}, { send: (e) => events.push(e), close: () => {} });
    store.put(PODS, pod('Running'));
    w.stop();
    const seen = events.map((e) => [e.type, (e.object as any).status.phase, Number((e.object as any).metadata.resourceVersion)] as const);
    assert.deepEqual(
      seen.map(([type, phase]) => [type, phase]),
      [
        ['ADDED', 'Pending'],
        ['MODIFIED', 'Running'],
        ['MODIFIED', 'Ready'],
      ],
      'the newest state last, each change once',
    );
    assert.ok(seen[1]![2] < seen[2]![2]);
  });

  test("a watch's line reuses the store's JSON of the change it is told, and only that change's", () => {
    // The controller's write is told first (nested); the listener after it still gets the outer change's JSON.
    const { store, pod } = storeWithController();
    const told: string[] = [];
    store.subscribe((c) => told.push(`${(c.object as any).status.phase} ${store.jsonOf(c.object) === JSON.stringify(c.object)}`));
    const sent: [string, string | undefined][] = [];
    const w = openWatch(
      store,
      PODS,
      'default',
      { labels: [], fields: [] },
      {},
      {
        send: (e, json) => sent.push([(e.object as any).status.phase, json]),
        close: () => {},
      },
    );
    const running = store.put(PODS, pod('Running'));
    w.stop();
    assert.deepEqual(told, ['Ready true', 'Running true']);
    assert.equal(store.jsonOf(running), undefined, 'known only while its change is told');
    // Running is sent from the history while Ready is told: serialized by the stream, not given.
    assert.deepEqual(
      sent.map(([phase, json]) => [phase, json === undefined ? undefined : json === JSON.stringify(store.get(PODS, 'default', 'a'))]),
      [
        ['Pending', undefined],
        ['Running', undefined],
        ['Ready', true],
      ],
    );
  });

  test('the watches of a store share one listener: each kind is told its own changes, each watch from where it is', () => {
    const store = new ObjectStore(1);
    const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' } });
    const listeners = () => (store as unknown as { listeners: Set<unknown> }).listeners.size;
    const before = listeners();
    store.put(PODS, pod('a'));
    const rv = String(store.resourceVersion);
    store.put(PODS, pod('b'));
    const names = (events: WatchEvent[]) => events.map((e) => `${e.type} ${(e.object as any).metadata.name}`);
    const all = { labels: [], fields: [] };
    const fromNow: WatchEvent[] = [];
    const fromRv: WatchEvent[] = [];
    const nodes: WatchEvent[] = [];
    const a = openWatch(store, PODS, 'default', all, {}, { send: (e) => fromNow.push(e), close: () => {} });
    const b = openWatch(store, PODS, undefined, all, { resourceVersion: rv }, { send: (e) => fromRv.push(e), close: () => {} });
    const n = openWatch(store, NODES, undefined, all, {}, { send: (e) => nodes.push(e), close: () => {} });
    assert.equal(listeners(), before + 1);
    store.put(PODS, pod('c'));
    store.put(NODES, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    a.stop();
    store.put(PODS, pod('d'));
    assert.deepEqual(names(fromNow), ['ADDED a', 'ADDED b', 'ADDED c']);
    assert.deepEqual(names(fromRv), ['ADDED b', 'ADDED c', 'ADDED d']);
    assert.deepEqual(names(nodes), ['ADDED n1']);
    b.stop();
    n.stop();
    assert.equal(listeners(), before, 'the last watch gone, the store has no watch listener left');
  });

  test('unchanged writes keep their resourceVersion', () => {
    const store = new ObjectStore(1);
    const a = store.put(NODES, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, spec: {} });
    const b = store.put(NODES, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, spec: {} }, { onlyIfChanged: true });
    assert.equal(a.metadata.resourceVersion, b.metadata.resourceVersion);
  });

  test('CNI configs load as libcni loads them', () => {
    assert.deepEqual(parseNetworkConfig('10-x.conflist', '{"name":"x","plugins":[{"type":"bridge"},{"type":"portmap"}]}').types, ['bridge', 'portmap']);
    assert.equal(parseNetworkConfig('10-x.conf', '{"name":"x","type":"bridge"}').types[0], 'bridge');
    assert.throws(() => parseNetworkConfig('a.conflist', '{"name":"x","plugins":[]}'), /no plugins/);
    assert.throws(() => parseNetworkConfig('a.conflist', '{"plugins":[{"type":"bridge"}]}'), /no name/);
    assert.throws(() => parseNetworkConfig('a.conflist', 'not json'), /error parsing/);
  });

  test('strategic merge patch as kubectl apply sends it: containers by name, $setElementOrder dropped', () => {
    const live = {
      spec: {
        containers: [
          { name: 'a', image: 'nginx:1.25', ports: [{ containerPort: 80 }] },
          { name: 'b', image: 'x' },
        ],
      },
    };
    const patch = {
      spec: { $setElementOrder: undefined, '$setElementOrder/containers': [{ name: 'a' }, { name: 'b' }], containers: [{ name: 'a', image: 'nginx:1.26' }] },
    };
    const out = strategicMergePatch(live, patch) as any;
    assert.deepEqual(out.spec.containers, [
      { name: 'a', image: 'nginx:1.26', ports: [{ containerPort: 80 }] },
      { name: 'b', image: 'x' },
    ]);
  });
});
