// calico/cni and calico/node's programs (src/cluster/images/calico-*.ts) on one node, driven as the container
// runtime drives them (a ProgramContext), against an in-memory API that answers as the apiserver does for what
// they use (404, 409 on a taken name or a stale resourceVersion, merge patches) and container files in memory:
// install-cni installs the image's plugins and writes the conflist and the kubeconfig with the pod's token;
// calico-node creates default-ipv4-ippool from the manifest's env, ClusterInformation datastoreReady, the node's
// annotations and tunnel address, NetworkUnavailable False; with a data plane and a VXLAN pool it programs
// vxlan.calico (VNI 4096, port 4789) with a peer per other node routing that node's affine blocks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CALICO_IMAGES } from '../../src/cluster/images/calico.js';
import { imageSpecOf, programOf } from '../../src/cluster/images/catalogue.js';
import type { AgentClient } from '../../src/cluster/client/agent-client.js';
import type { ContainerFiles, NodeNetwork, ProgramContext, VxlanOverlay } from '../../src/cluster/images/program.js';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';

type Obj = any;

/** The apiserver's answers for plain CRUD on paths (a collection is the path without its last segment). */
function memoryApi(): AgentClient & { objects: Map<string, Obj> } {
  const objects = new Map<string, Obj>();
  let rv = 1;
  const status = (code: number, reason: string) => ({ status: code, body: { kind: 'Status', status: 'Failure', reason, code, message: reason } });
  const request = (method: string, full: string, body?: unknown) => {
    const [path, query = ''] = full.split('?');
    const selector = new URLSearchParams(query).get('labelSelector');
    if (method === 'GET') {
      if (objects.has(path!)) return { status: 200, body: objects.get(path!) };
      const items = [...objects.entries()]
        .filter(([k]) => k.slice(0, k.lastIndexOf('/')) === path)
        .map(([, v]) => v)
        .filter((o) => !selector || selector.split(',').every((kv) => o.metadata.labels?.[kv.split('=')[0]!] === kv.split('=')[1]));
      return items.length || /s$/.test(path!) ? { status: 200, body: { items } } : status(404, 'NotFound');
    }
    if (method === 'POST') {
      // This stand-in API answers no TokenRequest: install-cni falls back to the pod's token.
      if (path!.endsWith('/token')) return status(404, 'NotFound');
      const o = structuredClone(body) as Obj;
      const key = `${path}/${o.metadata.name}`;
      if (objects.has(key)) return status(409, 'AlreadyExists');
      o.metadata.resourceVersion = String(rv++);
      objects.set(key, o);
      return { status: 201, body: o };
    }
    if (method === 'PUT') {
      const o = structuredClone(body) as Obj;
      const cur = objects.get(path!);
      if (!cur) return status(404, 'NotFound');
      if (o.metadata.resourceVersion && o.metadata.resourceVersion !== cur.metadata.resourceVersion) return status(409, 'Conflict');
      o.metadata.resourceVersion = String(rv++);
      objects.set(path!, o);
      return { status: 200, body: o };
    }
    if (method === 'PATCH') {
      const target = path!.replace(/\/status$/, '');
      const cur = objects.get(target);
      if (!cur) return status(404, 'NotFound');
      const p = body as Obj;
      cur.metadata.annotations = { ...(cur.metadata.annotations ?? {}), ...(p.metadata?.annotations ?? {}) };
      if (p.status?.conditions) cur.status = { ...(cur.status ?? {}), conditions: [...(cur.status?.conditions ?? []), ...p.status.conditions] };
      return { status: 200, body: cur };
    }
    if (method === 'DELETE') return objects.delete(path!) ? { status: 200, body: {} } : status(404, 'NotFound');
    return status(405, 'MethodNotAllowed');
  };
  const outcome = (r: { status: number; body: unknown }) =>
    r.status < 300 ? { object: r.body as KubeObject, status: r.status } : { status: r.status, error: r.body };
  return {
    objects,
    request,
    get: (p) => {
      const r = request('GET', p);
      return r.status === 200 && !(r.body as Obj).items ? (r.body as KubeObject) : undefined;
    },
    list: (p) => ((request('GET', p).body as Obj).items ?? []) as KubeObject[],
    create: (p, o) => outcome(request('POST', p, o)),
    update: (p, o) => outcome(request('PUT', p, o)),
    patch: (p, o) => outcome(request('PATCH', p, o)),
    delete: (p) => request('DELETE', p).status,
    watch: () => () => undefined,
  };
}

function memoryFiles(initial: Record<string, string>): ContainerFiles & { files: Map<string, { content: string; mode?: number }>; installed: string[] } {
  const files = new Map(Object.entries(initial).map(([k, v]) => [k, { content: v }]));
  const installed: string[] = [];
  return {
    files,
    installed,
    read: (p) => files.get(p)?.content,
    write: (p, content, mode) => void files.set(p, { content, ...(mode !== undefined ? { mode } : {}) }),
    remove: (p) => void files.delete(p),
    list: (p) => [...files.keys()].filter((k) => k.startsWith(`${p}/`)),
    host: () => undefined,
    installImageFile: (from, to) => void installed.push(`${from} -> ${to}`),
  };
}

function node(name: string, ip: string): Obj {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, annotations: {} }, status: { addresses: [{ type: 'InternalIP', address: ip }], conditions: [] } };
}

function context(
  api: AgentClient,
  files: ContainerFiles,
  name: string,
  ip: string,
  env: Record<string, string>,
  extra: Partial<ProgramContext> = {},
): ProgramContext & { log: string[]; ready: boolean[]; stop: () => void } {
  const log: string[] = [];
  const ready: boolean[] = [];
  const abort = new AbortController();
  return {
    pod: { apiVersion: 'v1', kind: 'Pod', metadata: { name: `calico-node-${name}`, namespace: 'kube-system', uid: 'u' } } as KubeObject,
    node: name,
    nodeIp: ip,
    container: 'calico-node',
    image: 'quay.io/calico/node:v3.32.1',
    argv: [],
    env,
    files,
    nodeRoot: '/nonexistent',
    api,
    write: (_s, t) => void log.push(t),
    signal: abort.signal,
    setReady: (r) => void ready.push(r),
    log,
    ready,
    stop: () => abort.abort(),
    ...extra,
  };
}

/** Nodes n1 and n2 in the API, and a data plane that records the overlays applied. */
function twoNodes() {
  const api = memoryApi();
  api.objects.set('/api/v1/nodes/n1', node('n1', '10.224.0.4'));
  api.objects.set('/api/v1/nodes/n2', node('n2', '10.224.0.5'));
  const applied: VxlanOverlay[] = [];
  const network: NodeNetwork = { applyOverlay: async (_n, o) => void applied.push(o), removeOverlay: async () => undefined };
  return { api, applied, network };
}

const CALICO_NODE_ENV = {
  DATASTORE_TYPE: 'kubernetes',
  WAIT_FOR_DATASTORE: 'true',
  CLUSTER_TYPE: 'k8s,bgp',
  IP: 'autodetect',
  CALICO_IPV4POOL_IPIP: 'Always',
  CALICO_IPV4POOL_VXLAN: 'Never',
  FELIX_IPV6SUPPORT: 'false',
};

test('catalogue: calico.yaml images and argv find their programs', () => {
  assert.ok(CALICO_IMAGES.length >= 3);
  const cni = imageSpecOf('quay.io/calico/cni:v3.32.1')!;
  assert.ok(programOf(cni, '/opt/cni/bin/install'));
  assert.ok(programOf(cni, '/opt/cni/bin/calico-ipam'));
  const nodeSpec = imageSpecOf('docker.io/calico/node:v3.32.1@sha256:00')!;
  assert.ok(programOf(nodeSpec, 'start_runit'));
  assert.ok(programOf(nodeSpec, 'calico-node'));
  assert.ok(programOf(imageSpecOf('quay.io/calico/kube-controllers:v3.32.1')!, '/usr/bin/kube-controllers'));
});

test('install-cni: plugins into /host/opt/cni/bin, the conflist substituted (0600) and calico-kubeconfig with the pod token', async () => {
  const api = memoryApi();
  const template =
    '{"name":"k8s-pod-network","cniVersion":"0.3.1","plugins":[{"type":"calico","nodename":"__KUBERNETES_NODE_NAME__","mtu":__CNI_MTU__,"ipam":{"type":"calico-ipam"},"kubernetes":{"kubeconfig":"__KUBECONFIG_FILEPATH__"}}]}';
  const files = memoryFiles({
    '/var/run/secrets/kubernetes.io/serviceaccount/token': 'tok.en.x',
    '/var/run/secrets/kubernetes.io/serviceaccount/ca.crt': 'CA',
    '/var/run/secrets/kubernetes.io/serviceaccount/namespace': 'kube-system',
  });
  const ctx = context(api, files, 'n1', '10.224.0.4', {
    CNI_CONF_NAME: '10-calico.conflist',
    CNI_NETWORK_CONFIG: template,
    KUBERNETES_NODE_NAME: 'n1',
    CNI_MTU: '0',
    SLEEP: 'false',
    KUBERNETES_SERVICE_HOST: '10.0.0.1',
    KUBERNETES_SERVICE_PORT: '443',
  });
  const install = programOf(imageSpecOf('quay.io/calico/cni:v3.32.1')!, '/opt/cni/bin/install')!;
  assert.equal(await install(ctx), 0);
  assert.deepEqual(
    files.installed.map((l) => l.split(' -> ')[1]).sort(),
    ['calico', 'calico-ipam', 'flannel', 'host-local', 'loopback', 'portmap', 'tuning'].map((b) => `/host/opt/cni/bin/${b}`),
  );
  const conf = files.files.get('/host/etc/cni/net.d/10-calico.conflist')!;
  assert.equal(conf.mode, 0o600);
  const parsed = JSON.parse(conf.content);
  assert.equal(parsed.plugins[0].nodename, 'n1');
  assert.equal(parsed.plugins[0].mtu, 0);
  assert.equal(parsed.plugins[0].kubernetes.kubeconfig, '/etc/cni/net.d/calico-kubeconfig');
  const kubeconfig = files.files.get('/host/etc/cni/net.d/calico-kubeconfig')!;
  assert.equal(kubeconfig.mode, 0o600);
  assert.match(kubeconfig.content, /server: https:\/\/10\.0\.0\.1:443/);
  assert.match(kubeconfig.content, /token: tok\.en\.x/);
  assert.match(kubeconfig.content, new RegExp(`certificate-authority-data: ${Buffer.from('CA').toString('base64')}`));
  assert.ok(ctx.log.join('').includes('Created /host/etc/cni/net.d/10-calico.conflist'));
  assert.ok(ctx.log.join('').includes('Done configuring CNI.  Sleep= false'));
  // A template that is not JSON ends the container with install-cni's words.
  const bad = context(api, memoryFiles({}), 'n1', '10.224.0.4', { CNI_NETWORK_CONFIG: '{', SLEEP: 'false' });
  assert.equal(await install(bad), 1);
  assert.match(bad.log.join(''), /CNI config is not valid JSON/);
});

test('calico-node: default pool from the env, ClusterInformation ready, node annotations and IPIP tunnel address; no overlay for IPIP', async () => {
  const { api, applied, network } = twoNodes();
  const files = memoryFiles({});
  const ctx = context(api, files, 'n1', '10.224.0.4', { ...CALICO_NODE_ENV, NODENAME: 'n1' }, { network });
  const run = programOf(imageSpecOf('quay.io/calico/node:v3.32.1')!, 'start_runit')!(ctx);
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(ctx.ready, [true]);
  const pool = api.objects.get('/apis/crd.projectcalico.org/v1/ippools/default-ipv4-ippool');
  assert.deepEqual(
    { cidr: pool.spec.cidr, blockSize: pool.spec.blockSize, ipipMode: pool.spec.ipipMode, vxlanMode: pool.spec.vxlanMode, natOutgoing: pool.spec.natOutgoing },
    { cidr: '192.168.0.0/16', blockSize: 26, ipipMode: 'Always', vxlanMode: 'Never', natOutgoing: true },
  );
  assert.equal(api.objects.get('/apis/crd.projectcalico.org/v1/clusterinformations/default').spec.datastoreReady, true);
  const n1 = api.objects.get('/api/v1/nodes/n1');
  assert.equal(n1.metadata.annotations['projectcalico.org/IPv4Address'], '10.224.0.4/16');
  const tunnel = n1.metadata.annotations['projectcalico.org/IPv4IPIPTunnelAddr'];
  assert.match(tunnel, /^192\.168\.\d+\.\d+$/);
  const handle = api.objects.get('/apis/crd.projectcalico.org/v1/ipamhandles/ipip-tunnel-addr-n1');
  assert.equal(handle.spec.handleID, 'ipip-tunnel-addr-n1');
  const condition = n1.status.conditions.find((c: Obj) => c.type === 'NetworkUnavailable');
  assert.deepEqual([condition.status, condition.reason, condition.message], ['False', 'CalicoIsUp', 'Calico is running on this node']);
  assert.equal(files.files.get('/var/lib/calico/nodename')?.content, 'n1');
  assert.deepEqual(applied, [], 'IP-in-IP is not forwarded by Azure: no overlay');
  const log = ctx.log.join('');
  for (const line of [
    'Starting node n1 with version v3.32.1',
    "Selected default IP pool is '192.168.0.0/16'",
    'Created default IPv4 pool (192.168.0.0/16) with NAT outgoing true. IPIP mode: Always, VXLAN mode: Never',
    'Calico started successfully',
  ])
    assert.ok(log.includes(line), `log has: ${line}`);
  ctx.stop();
  assert.equal(await run, 0);
});

test('calico-node with a VXLAN pool: vxlan.calico VNI 4096 port 4789, a peer per other node routing its affine blocks', async () => {
  const { api, applied, network } = twoNodes();
  const env = { ...CALICO_NODE_ENV, CALICO_IPV4POOL_IPIP: 'Never', CALICO_IPV4POOL_VXLAN: 'Always', CALICO_IPV4POOL_CIDR: '10.244.0.0/16' };
  const spec = imageSpecOf('quay.io/calico/node:v3.32.1')!;
  const c2 = context(api, memoryFiles({}), 'n2', '10.224.0.5', { ...env, NODENAME: 'n2' });
  const r2 = programOf(spec, 'start_runit')!(c2);
  await new Promise((r) => setTimeout(r, 50));
  const c1 = context(api, memoryFiles({}), 'n1', '10.224.0.4', { ...env, NODENAME: 'n1' }, { network });
  const r1 = programOf(spec, 'start_runit')!(c1);
  await new Promise((r) => setTimeout(r, 100));
  const overlay = applied.at(-1)!;
  assert.equal(overlay.device, 'vxlan.calico');
  assert.equal(overlay.vni, 4096);
  assert.equal(overlay.port, 4789);
  assert.equal(overlay.localIp, '10.224.0.4');
  const n1 = api.objects.get('/api/v1/nodes/n1').metadata.annotations;
  const n2 = api.objects.get('/api/v1/nodes/n2').metadata.annotations;
  assert.deepEqual(overlay.addresses, [`${n1['projectcalico.org/IPv4VXLANTunnelAddr']}/32`]);
  assert.equal(overlay.mac, n1['projectcalico.org/VXLANTunnelMACAddr']);
  assert.equal(overlay.peers.length, 1);
  const peer = overlay.peers[0]!;
  assert.deepEqual(
    [peer.nodeIp, peer.tunnelIp, peer.mac],
    ['10.224.0.5', n2['projectcalico.org/IPv4VXLANTunnelAddr'], n2['projectcalico.org/VXLANTunnelMACAddr']],
  );
  const n2Blocks = [...api.objects.values()].filter((o) => o.kind === 'IPAMBlock' && o.spec.affinity === 'host:n2').map((o) => o.spec.cidr);
  assert.deepEqual(peer.cidrs, n2Blocks);
  assert.match(peer.cidrs[0]!, /^10\.244\.\d+\.\d+\/26$/);
  c1.stop();
  c2.stop();
  assert.deepEqual(await Promise.all([r1, r2]), [0, 0]);
});
