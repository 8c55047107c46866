// flannel's catalogue programs (src/cluster/images/flannel*.ts) driven directly with a ProgramContext of
// plain objects: flanneld's path through its subnet manager and vxlan backend — the crash without a podCIDR, the
// lease, subnet.env, the node's annotations through nodes/status, its readiness, the overlay and its peers as nodes
// come and go — and install-conf's copy and failures. kube-flannel.yml's own run is flannel.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { imageSpecOf, programOf } from '../../src/cluster/images/catalogue.js';
import type { AgentClient } from '../../src/cluster/client/agent-client.js';
import type { ContainerFiles, ProgramContext, VxlanOverlay } from '../../src/cluster/images/program.js';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';

const FLANNEL = 'ghcr.io/flannel-io/flannel:v0.28.9';
const NET_CONF = '{\n  "Network": "10.244.0.0/16",\n  "EnableNFTables": false,\n  "Backend": {\n    "Type": "vxlan"\n  }\n}\n';

function node(name: string, ip: string, podCidr?: string, annotations: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, annotations },
    spec: podCidr ? { podCIDR: podCidr, podCIDRs: [podCidr] } : {},
    status: { addresses: [{ type: 'InternalIP', address: ip }], conditions: [] },
  };
}

/** An in-memory API holding nodes and one pod, recording patches and calling watchers on changes. */
function fakeApi(nodes: KubeObject[]) {
  const byName = new Map(nodes.map((n) => [n.metadata.name, n]));
  const watchers = new Set<(type: string, o: KubeObject) => void>();
  const patches: Array<{ path: string; body: any; contentType?: string }> = [];
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'kube-flannel-ds-x', namespace: 'kube-flannel' }, spec: { nodeName: 'n0' } };
  const nodeOf = (path: string) => byName.get(decodeURIComponent(path.split('/')[4] ?? ''));
  const api: AgentClient = {
    request(method, path) {
      if (method === 'GET' && path === '/api/v1/namespaces/kube-flannel/pods/kube-flannel-ds-x') return { status: 200, body: pod };
      return { status: 404, body: { kind: 'Status', message: 'pods "nope" not found' } };
    },
    get: (path) => nodeOf(path),
    list: () => [...byName.values()],
    create: () => ({ status: 405 }),
    update: () => ({ status: 405 }),
    patch(path, body: any, contentType) {
      patches.push({ path, body, ...(contentType ? { contentType } : {}) });
      const n = nodeOf(path);
      if (!n) return { status: 404 };
      if (body.metadata?.annotations) n.metadata.annotations = { ...n.metadata.annotations, ...body.metadata.annotations };
      if (body.status?.conditions) (n['status'] as any).conditions = body.status.conditions;
      for (const w of watchers) w('MODIFIED', n);
      return { status: 200, object: n };
    },
    delete: () => 405,
    watch(_path, onEvent) {
      watchers.add(onEvent);
      return () => watchers.delete(onEvent);
    },
  };
  const change = (n: KubeObject, type = 'ADDED') => {
    if (type === 'DELETED') byName.delete(n.metadata.name);
    else byName.set(n.metadata.name, n);
    for (const w of watchers) w(type, n);
  };
  return { api, patches, change, watchers };
}

function fakeFiles(initial: Record<string, string>) {
  const files = new Map(Object.entries(initial));
  const written: Array<{ path: string; mode?: number }> = [];
  const impl: ContainerFiles = {
    read: (p) => files.get(p),
    write(p, content, mode) {
      if (p.startsWith('/readonly/')) throw new Error(`open ${p}: read-only file system`);
      files.set(p, content);
      written.push({ path: p, ...(mode !== undefined ? { mode } : {}) });
    },
    remove: (p) => void files.delete(p),
    list: () => [],
    host: () => undefined,
    installImageFile: () => undefined,
  };
  return { impl, files, written };
}

function context(argv: string[], api: AgentClient, files: ContainerFiles, overlays: VxlanOverlay[] | undefined, env: Record<string, string> = {}) {
  const out: string[] = [];
  const ready: boolean[] = [];
  const abort = new AbortController();
  const ctx: ProgramContext = {
    pod: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'kube-flannel-ds-x', namespace: 'kube-flannel' } },
    node: 'n0',
    nodeIp: '10.224.0.4',
    container: 'kube-flannel',
    image: FLANNEL,
    argv,
    env: { POD_NAME: 'kube-flannel-ds-x', POD_NAMESPACE: 'kube-flannel', ...env },
    files,
    nodeRoot: '/nonexistent',
    api,
    ...(overlays
      ? {
          network: {
            applyOverlay: async (_node: string, o: VxlanOverlay) => void overlays.push(structuredClone(o)),
            removeOverlay: async () => undefined,
          },
        }
      : {}),
    write: (_s, text) => void out.push(text),
    signal: abort.signal,
    setReady: (r) => void ready.push(r),
  };
  return { ctx, out, ready, abort };
}

const FLANNELD_ARGV = ['/opt/bin/flanneld', '--ip-masq', '--kube-subnet-mgr', '--healthz-port=8081'];

describe("flannel's programs", () => {
  test('the catalogue finds them by image and argv, wherever the image is mirrored from', () => {
    for (const image of [FLANNEL, 'docker.io/flannel/flannel:v0.25.6', 'docker.io/rancher/mirrored-flannelcni-flannel:v0.22.0']) {
      const spec = imageSpecOf(image);
      assert.ok(spec && programOf(spec, '/opt/bin/flanneld') && programOf(spec, '/opt/bin/install-conf'), image);
    }
    const plugin = imageSpecOf('ghcr.io/flannel-io/flannel-cni-plugin:v1.9.1-flannel3');
    assert.deepEqual(plugin?.files, { '/flannel': { plugin: 'flannel' } });
    assert.equal(imageSpecOf('ghcr.io/flannel-io/flannelx'), undefined);
  });

  test('flanneld on a node without podCIDR: creates flannel.1, then exits 1 with the lease error as on AKS', async () => {
    const { api, patches } = fakeApi([node('n0', '10.224.0.4')]);
    const overlays: VxlanOverlay[] = [];
    const { ctx, out, ready } = context(FLANNELD_ARGV, api, fakeFiles({ '/etc/kube-flannel/net-conf.json': NET_CONF }).impl, overlays);
    const code = await programOf(imageSpecOf(FLANNEL)!, '/opt/bin/flanneld')!(ctx);
    assert.equal(code, 1);
    const log = out.join('');
    assert.match(
      log,
      /^I\d{4} \d\d:\d\d:\d\d\.\d{6}       1 main\.go:229\] CLI flags config: \{etcdEndpoints:http:\/\/127\.0\.0\.1:4001,http:\/\/127\.0\.0\.1:2379 /,
    );
    assert.match(log, /kubeSubnetMgr:true .* ipMasq:true .* healthzPort:8081 .* setNodeNetworkUnavailable:true\}\n/);
    assert.match(log, /\] Created subnet manager: Kubernetes Subnet Manager - n0\n/);
    assert.match(log, /\nE\d{4} [\d:.]+       1 main\.go:384\] Error registering network: failed to acquire lease: node "n0" pod cidr not assigned\n/);
    assert.match(log, /main\.go:520\] Stopping shutdownHandler\.\.\.\n$/);
    assert.deepEqual(ready, [false]);
    assert.equal(patches.length, 0, 'no annotation without a lease');
    assert.equal(overlays.length, 1);
    assert.deepEqual(
      { ...overlays[0], mac: '' },
      { device: 'flannel.1', vni: 1, port: 8472, mtu: 1450, mac: '', localIp: '10.224.0.4', addresses: [], peers: [] },
    );
  });

  test('flanneld with a podCIDR: annotations, subnet.env, ready, the overlay and its peers until stopped', async () => {
    const peer = node('n1', '10.224.0.5', '10.244.1.0/24', {
      'flannel.alpha.coreos.com/backend-type': 'vxlan',
      'flannel.alpha.coreos.com/backend-data': '{"VNI":1,"VtepMAC":"aa:bb:cc:dd:ee:01"}',
      'flannel.alpha.coreos.com/kube-subnet-manager': 'true',
      'flannel.alpha.coreos.com/public-ip': '10.224.0.5',
    });
    const fake = fakeApi([node('n0', '10.224.0.4', '10.244.0.0/24'), peer, node('n2', '10.224.0.6')]);
    const files = fakeFiles({ '/etc/kube-flannel/net-conf.json': NET_CONF });
    const overlays: VxlanOverlay[] = [];
    const { ctx, out, ready, abort } = context(FLANNELD_ARGV, fake.api, files.impl, overlays);
    const running = programOf(imageSpecOf(FLANNEL)!, 'flanneld')!(ctx);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(
      files.files.get('/run/flannel/subnet.env'),
      'FLANNEL_NETWORK=10.244.0.0/16\nFLANNEL_SUBNET=10.244.0.1/24\nFLANNEL_MTU=1450\nFLANNEL_IPMASQ=true\n',
    );
    assert.deepEqual(ready, [false, true]);
    const [annotate, condition] = fake.patches;
    assert.equal(annotate!.path, '/api/v1/nodes/n0/status');
    assert.equal(annotate!.contentType, 'application/strategic-merge-patch+json');
    const mac = /"VtepMAC":"([^"]+)"/.exec(annotate!.body.metadata.annotations['flannel.alpha.coreos.com/backend-data'])![1]!;
    assert.deepEqual(annotate!.body.metadata.annotations, {
      'flannel.alpha.coreos.com/backend-type': 'vxlan',
      'flannel.alpha.coreos.com/backend-data': `{"VNI":1,"VtepMAC":"${mac}"}`,
      'flannel.alpha.coreos.com/kube-subnet-manager': 'true',
      'flannel.alpha.coreos.com/public-ip': '10.224.0.4',
    });
    assert.match(mac, /^[0-9a-f][26ae](:[0-9a-f]{2}){5}$/, 'locally administered, unicast');
    assert.deepEqual(
      { ...condition!.body.status.conditions[0], lastTransitionTime: '', lastHeartbeatTime: '' },
      {
        type: 'NetworkUnavailable',
        status: 'False',
        reason: 'FlannelIsUp',
        message: 'Flannel is running on this node',
        lastTransitionTime: '',
        lastHeartbeatTime: '',
      },
    );
    const last = () => overlays[overlays.length - 1]!;
    assert.equal(last().mac, mac);
    assert.deepEqual(last().addresses, ['10.244.0.0/32']);
    assert.deepEqual(last().peers, [{ nodeIp: '10.224.0.5', mac: 'aa:bb:cc:dd:ee:01', tunnelIp: '10.244.1.0', cidrs: ['10.244.1.0/24'] }]);
    assert.match(
      out.join(''),
      /Received Subnet Event with VxLan: BackendType: vxlan, PublicIP: 10\.224\.0\.5, PublicIPv6: \(nil\), BackendData: \{"VNI":1,"VtepMAC":"aa:bb:cc:dd:ee:01"\}, BackendV6Data: \(nil\)/,
    );

    // A third node's flanneld comes up: it joins the overlay; a node going away leaves it.
    fake.change(
      node('n2', '10.224.0.6', '10.244.2.0/24', {
        'flannel.alpha.coreos.com/backend-type': 'vxlan',
        'flannel.alpha.coreos.com/backend-data': '{"VNI":1,"VtepMAC":"aa:bb:cc:dd:ee:02"}',
        'flannel.alpha.coreos.com/kube-subnet-manager': 'true',
        'flannel.alpha.coreos.com/public-ip': '10.224.0.6',
      }),
      'MODIFIED',
    );
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(
      last().peers.map((p) => p.cidrs[0]),
      ['10.244.1.0/24', '10.244.2.0/24'],
    );
    fake.change(peer, 'DELETED');
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(
      last().peers.map((p) => p.cidrs[0]),
      ['10.244.2.0/24'],
    );
    abort.abort();
    assert.equal(await running, 0);
    assert.match(out.join(''), /Exiting cleanly\.\.\.\n$/);
    assert.equal(fake.watchers.size, 0, 'the watch is closed');

    // Restarted, it keeps its VTEP MAC (GetStoredMacAddresses) and patches nothing that is already right.
    const again = context(FLANNELD_ARGV, fake.api, files.impl, overlays);
    const before = fake.patches.length;
    const rerun = programOf(imageSpecOf(FLANNEL)!, 'flanneld')!(again.ctx);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(last().mac, mac);
    assert.match(again.out.join(''), new RegExp(`Interface flannel\\.1 mac address set to: ${mac}`));
    assert.equal(fake.patches.slice(before).filter((p) => p.body.metadata).length, 0);
    again.abort.abort();
    assert.equal(await rerun, 0);
  });

  test('flanneld without a data plane, outside the network, and with a bad command line', async () => {
    const fake = fakeApi([node('n0', '10.224.0.4', '10.245.0.0/24')]);
    const outside = context(FLANNELD_ARGV, fake.api, fakeFiles({ '/etc/kube-flannel/net-conf.json': NET_CONF }).impl, undefined);
    assert.equal(await programOf(imageSpecOf(FLANNEL)!, 'flanneld')!(outside.ctx), 1);
    assert.match(
      outside.out.join(''),
      /Error registering network: failed to acquire lease: subnet "10\.244\.0\.0\/16" specified in the flannel net config doesn't contain "10\.245\.0\.0\/24" PodCIDR of the "n0" node\n/,
    );
    const noConf = context(FLANNELD_ARGV, fake.api, fakeFiles({}).impl, undefined);
    assert.equal(await programOf(imageSpecOf(FLANNEL)!, 'flanneld')!(noConf.ctx), 1);
    assert.match(
      noConf.out.join(''),
      /main\.go:251\] Failed to create SubnetManager: failed to read net conf: open \/etc\/kube-flannel\/net-conf\.json: no such file or directory\n/,
    );
    const noPod = context(FLANNELD_ARGV, fake.api, fakeFiles({ '/etc/kube-flannel/net-conf.json': NET_CONF }).impl, undefined, { POD_NAME: 'nope' });
    assert.equal(await programOf(imageSpecOf(FLANNEL)!, 'flanneld')!(noPod.ctx), 1);
    assert.match(noPod.out.join(''), /Failed to create SubnetManager: error retrieving pod spec for 'kube-flannel\/nope': pods "nope" not found\n/);
    const badFlag = context(['/opt/bin/flanneld', '--no-such'], fake.api, fakeFiles({}).impl, undefined);
    assert.equal(await programOf(imageSpecOf(FLANNEL)!, 'flanneld')!(badFlag.ctx), 2);
    assert.match(badFlag.out.join(''), /^flag provided but not defined: -no-such\nUsage: \/opt\/bin\/flanneld \[OPTION\]\.\.\.\n/);
  });

  test('install-conf copies atomically, and fails as the tool does', async () => {
    const files = fakeFiles({ '/etc/kube-flannel/cni-conf.json': '{"name":"cbr0"}\n' });
    const run = async (argv: string[]) => {
      const c = context(argv, fakeApi([]).api, files.impl, undefined);
      const code = await programOf(imageSpecOf(FLANNEL)!, argv[0]!)!(c.ctx);
      return { code, err: c.out.join('') };
    };
    assert.deepEqual(await run(['/opt/bin/install-conf', '/etc/kube-flannel/cni-conf.json', '/etc/cni/net.d/10-flannel.conflist']), { code: 0, err: '' });
    assert.equal(files.files.get('/etc/cni/net.d/10-flannel.conflist'), '{"name":"cbr0"}\n');
    assert.deepEqual(files.written.at(-1), { path: '/etc/cni/net.d/10-flannel.conflist', mode: 0o644 });
    assert.deepEqual(await run(['/opt/bin/install-conf', 'a']), { code: 1, err: 'usage: /opt/bin/install-conf <src> <dest>\n' });
    assert.deepEqual(await run(['/opt/bin/install-conf', '/etc/kube-flannel/x.json', '/etc/cni/net.d/x']), {
      code: 1,
      err: 'error installing "/etc/kube-flannel/x.json": cannot open file "/etc/kube-flannel/x.json": open /etc/kube-flannel/x.json: no such file or directory\n',
    });
    const ro = await run(['/opt/bin/install-conf', '/etc/kube-flannel/cni-conf.json', '/readonly/x.conflist']);
    assert.equal(ro.code, 1);
    assert.match(ro.err, /^error installing "\/etc\/kube-flannel\/cni-conf\.json": cannot create temp file "\.x\.conflist\.tmp" in "\/readonly": /);
  });
});
