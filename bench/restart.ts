// A restart of a loaded server, as a user meets it: an Azure CNI cluster (made with `aksemu az`: a create and pool
// adds of 1,000, the per-pool limit) running the pods of one Deployment and its add-ons, the server stopped, then
// started again on the same home. By default 1,000 nodes and 10,000 pods; the size (5,000 nodes, 50,000 pods)
// through AKSEMU_BENCH_RESTART_NODES/PODS, whose setup takes over 25 minutes on 2 cores (AKSEMU_BENCH_RESTART_HOME
// keeps it for later runs). Measured: until the
// server serves (startServer resolves: ARM and the cluster API listening, the objects loaded from SQLite, the
// nodes rebuilt from their records with what was written on them), and until every pod is Running again (its
// kubelet has restored its sandbox and started its containers again). Without the data plane (pods get their
// addresses from the nodes' NICs, no namespaces): the figure is the control plane's.
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { discard } from './trash.js';
import { request as httpsRequest } from 'node:https';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { ClusterApi } from '../src/cluster/apiserver/api.js';
import type { KubeObject } from '../src/cluster/apimachinery/object.js';
import { NODES as NODE_OBJECTS, PODS, resourceKey } from '../src/cluster/apimachinery/resources.js';
import { SqliteStore } from '../src/store/sqlite.js';
import { CLUSTER_API_PREFIX } from '../src/store/keys.js';

const PODS_KEY = resourceKey(PODS);
import { clusterId } from '../src/model/cluster-records.js';
import { startServer, type RunningServer } from '../src/server/server.js';
import { az, azOutput, bigVnet, createBigCluster } from './az-create.js';

const NODES = Number(process.env['AKSEMU_BENCH_RESTART_NODES'] ?? 1000);
const PODS_WANTED = Number(process.env['AKSEMU_BENCH_RESTART_PODS'] ?? 10_000);
/** The per-pool node limit: a bigger cluster is a create and pool adds. */
const POOL_MAX = 1000;
/** Azure CNI's addresses per node (maxPods 30 + the node's own). */
const ADDRESSES_PER_NODE = 31;

/** The smallest 10.240.0.0/n (at least a /16) that holds every node's addresses, with room to spare. */
function subnetPrefix(nodes: number): string {
  let bits = 16;
  while (bits > 12 && 2 ** (32 - bits) < nodes * ADDRESSES_PER_NODE * 1.1) bits--;
  return `10.240.0.0/${bits}`;
}

export interface RestartTiming {
  nodes: number;
  pods: number;
  /** Making the cluster and its pods (not part of the figure). */
  setupMs: number;
  /** How many restarts were measured; each figure is the best of them. */
  restarts: number;
  servingMs: number;
  /** CPU time (user + system, all threads) the process spent until serving: what a loaded machine changes least. */
  servingCpuMs: number;
  runningMs: number;
  /** CPU time until every pod is Running: the kubelets' resumption on top of servingCpuMs. */
  runningCpuMs: number;
  /** Until ARM first answers a request (GET /metadata/endpoints), asked from the start on. */
  armMs: number;
  /**
   * Until the cluster's API answers, over HTTPS with its credential, a first page of nodes (`kubectl get nodes
   * --chunk-size=500`) and of every pod (`kubectl get pods -A --chunk-size=500`), asked from the start on. Each page
   * is checked to count every node or pod in its remainingItemCount: a page is a real answer from the full store.
   */
  nodesPageMs: number;
  podsPageMs: number;
}

// A single restart's wall time moves by a second with what else the machine runs: the best of a few is reported.
const RESTARTS = Math.max(1, Number(process.env['AKSEMU_BENCH_RESTART_REPEAT'] ?? 3));

type OneRestart = Pick<RestartTiming, 'pods' | 'servingMs' | 'servingCpuMs' | 'runningMs' | 'runningCpuMs' | 'armMs' | 'nodesPageMs' | 'podsPageMs'>;

function bestOf(runs: OneRestart[]): OneRestart {
  const best = (figure: Exclude<keyof OneRestart, 'pods'>) => Math.min(...runs.map((r) => r[figure]));
  return {
    pods: runs[0]!.pods,
    servingMs: best('servingMs'),
    servingCpuMs: best('servingCpuMs'),
    runningMs: best('runningMs'),
    runningCpuMs: best('runningCpuMs'),
    armMs: best('armMs'),
    nodesPageMs: best('nodesPageMs'),
    podsPageMs: best('podsPageMs'),
  };
}

/** A port free now, for the server's ARM listener: the bench asks it before the server says which it took. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** One GET over HTTPS: its status and body, or undefined when nothing answers there (yet). */
function httpsGet(url: string, ca: string, token?: string): Promise<{ status: number; body: string } | undefined> {
  return new Promise((resolve) => {
    const req = httpsRequest(
      url,
      { ca, agent: false, headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', () => resolve(undefined));
      },
    );
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

/** The time from t0 until url first answers 200 (asked every 10 ms until then), and that answer's body. */
async function firstAnswer(t0: number, url: string, ca: string, token?: string): Promise<{ ms: number; body: string }> {
  for (;;) {
    const answer = await httpsGet(url, ca, token);
    if (answer?.status === 200) return { ms: performance.now() - t0, body: answer.body };
    if (answer && answer.status !== 503) throw new Error(`restart bench: ${url} answered ${answer.status}: ${answer.body.slice(0, 200)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A first page of a list: it must hold `limit` items and count the rest of `total`. */
function checkPage(what: string, body: string, total: number): void {
  const page = JSON.parse(body) as { items: unknown[]; metadata: { remainingItemCount?: number } };
  const rest = page.metadata.remainingItemCount ?? 0;
  if (page.items.length + rest !== total) throw new Error(`restart bench: the first page of ${what} counts ${page.items.length} + ${rest}, not ${total}`);
}

function runtimeOf(server: RunningServer) {
  const runtime = server.clusterApis.runtimeOf(clusterId(server.identity.subscriptionId, 'myResourceGroup', 'big'));
  if (!runtime) throw new Error('cluster big has no API');
  return runtime;
}

type PodStatus = { phase?: string; podIP?: string } | undefined;

/** The uids of the cluster's Running pods (with an address), kept from the object store's changes: no polling lists. */
function runningPods(server: RunningServer): Set<string> {
  const objects = runtimeOf(server).objects;
  const running = new Set<string>();
  const note = (pod: KubeObject, deleted: boolean) => {
    const status = pod['status'] as PodStatus;
    if (!deleted && status?.phase === 'Running' && status.podIP) running.add(String(pod.metadata.uid));
    else running.delete(String(pod.metadata.uid));
  };
  for (const pod of objects.list(PODS)) note(pod, false);
  objects.subscribe((c) => {
    if (c.resource === PODS_KEY) note(c.object, c.type === 'DELETED');
  });
  return running;
}

async function until(check: () => boolean, timeoutMs: number, what: string, everyMs = 250): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > end) throw new Error(`restart bench: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Profiles the restart alone (AKSEMU_BENCH_PROFILE=<file>): returns what writes the .cpuprofile. */
async function startProfile(): Promise<(file: string) => Promise<void>> {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async (file) => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

/** Starts a server on a copy of the stopped home `saved` (made at `home`) and measures it until every pod is Running. */
async function restartCopy(saved: string, home: string): Promise<OneRestart> {
  discard(home);
  cpSync(saved, home, { recursive: true });
  // The cluster's port and credential, as its kubeconfig holds them, read before the start.
  const records = new SqliteStore(join(home, 'state.db'));
  const api = records.list<{ port: number; credential: { token: string } }>(CLUSTER_API_PREFIX)[0]?.value;
  records.close();
  if (!api) throw new Error('restart bench: the home holds no cluster API');
  const ca = readFileSync(join(home, 'ca.pem'), 'utf8');
  const armPort = await freePort();
  const profile = process.env['AKSEMU_BENCH_PROFILE'] ? await startProfile() : undefined;
  const cpu0 = process.cpuUsage();
  const t1 = performance.now();
  // Asked from the start on, as a client that retries would: each waits for its first answer.
  const arm = firstAnswer(t1, `https://127.0.0.1:${armPort}/metadata/endpoints?api-version=2022-09-01`, ca);
  const nodesPage = firstAnswer(t1, `https://127.0.0.1:${api.port}/api/v1/nodes?limit=500`, ca, api.credential.token);
  const podsPage = firstAnswer(t1, `https://127.0.0.1:${api.port}/api/v1/pods?limit=500`, ca, api.credential.token);
  const server = await startServer({ home, port: armPort, log: () => {} });
  try {
    const servingMs = performance.now() - t1;
    const cpu = process.cpuUsage(cpu0);
    const runtime = runtimeOf(server);
    const [armAnswer, nodesAnswer, podsAnswer] = await Promise.all([arm, nodesPage, podsPage]);
    checkPage('nodes', nodesAnswer.body, runtime.objects.count(NODE_OBJECTS));
    checkPage('pods', podsAnswer.body, runtime.objects.count(PODS));
    const wanted = runtime.objects.list(PODS).map((p) => String(p.metadata.uid));
    const after = runningPods(server);
    await until(
      () => runtime.workloads.restoring === 0 && wanted.every((uid) => after.has(uid)),
      Math.max(60_000, wanted.length * 2),
      'every pod Running again',
      10,
    );
    const runningMs = performance.now() - t1;
    const runningCpu = process.cpuUsage(cpu0);
    if (profile) await profile(process.env['AKSEMU_BENCH_PROFILE']!);
    return {
      pods: wanted.length,
      servingMs,
      servingCpuMs: (cpu.user + cpu.system) / 1000,
      runningMs,
      runningCpuMs: (runningCpu.user + runningCpu.system) / 1000,
      armMs: armAnswer.ms,
      nodesPageMs: nodesAnswer.ms,
      podsPageMs: podsAnswer.ms,
    };
  } finally {
    await server.close();
    discard(home);
  }
}

async function restarts(saved: string, home: string): Promise<OneRestart> {
  const runs: OneRestart[] = [];
  for (let i = 0; i < RESTARTS; i++) runs.push(await restartCopy(saved, home));
  return bestOf(runs);
}

/**
 * AKSEMU_BENCH_RESTART_HOME=<dir>: the setup is slow (minutes at full size), so it is done once: when <dir> holds no
 * home yet, the stopped server's home is copied there; when it does, copies of it are restarted and measured (the pods
 * it holds are those that were Running when it was saved), without the setup.
 */
async function restartSaved(saved: string): Promise<RestartTiming> {
  // At the path it was made at: the nodes' links to the cluster's socket are absolute, as after a real restart.
  const home = readFileSync(`${saved}.path`, 'utf8');
  return { nodes: NODES, setupMs: 0, restarts: RESTARTS, ...(await restarts(saved, home)) };
}

/** Makes the cluster and its pods on a server at `home`, and stops the server: returns how many pods were Running. */
async function setUp(home: string): Promise<{ pods: number; setupMs: number }> {
  const server = await startServer({ home, port: 0, log: () => {} });
  try {
    const t0 = performance.now();
    await az(home, ['group', 'create', '--location', 'eastus', '--name', 'myResourceGroup']);
    const subnet = await bigVnet(home, server.identity.subscriptionId, subnetPrefix(NODES));
    await createBigCluster(home, subnet, Math.min(NODES, POOL_MAX));
    if (NODES > POOL_MAX) {
      // A pool added on the user's subnet needs the cluster's identity to hold Network Contributor there, as on AKS.
      const principal = (await azOutput(home, ['aks', 'show', '-g', 'myResourceGroup', '-n', 'big', '--query', 'identity.principalId', '-o', 'tsv'])).trim();
      await az(home, ['role', 'assignment', 'create', '--assignee-object-id', principal, '--role', 'Network Contributor', '--scope', subnet]);
    }
    for (let left = NODES - POOL_MAX, i = 2; left > 0; left -= POOL_MAX, i++) {
      const count = String(Math.min(left, POOL_MAX));
      await az(home, ['aks', 'nodepool', 'add', '-g', 'myResourceGroup', '--cluster-name', 'big', '-n', `pool${i}`, '-c', count, '--vnet-subnet-id', subnet]);
    }
    if (process.env['AKSEMU_BENCH_TRACE']) console.error(`created ${performance.now() - t0}`);
    const id = clusterId(server.identity.subscriptionId, 'myResourceGroup', 'big');
    await until(() => server.clusterApis.runtimeOf(id) !== undefined, 60_000, 'the cluster API');
    const api = new ClusterApi(runtimeOf(server));
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: PODS_WANTED,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.25' }] } },
      },
    };
    const res = api.handle({
      method: 'POST',
      path: '/apis/apps/v1/namespaces/default/deployments',
      query: new URLSearchParams(),
      contentType: 'application/json',
      body: JSON.stringify(deployment),
    });
    if (!('status' in res) || res.status !== 201) throw new Error(`deployment create failed: ${JSON.stringify('body' in res ? res.body : res)}`);
    // The add-ons (CoreDNS, kube-proxy, …) run too: every pod of the cluster counts.
    const before = runningPods(server);
    // The Deployment's pods and the add-ons' (kube-proxy and the other DaemonSets): every pod of the cluster Running.
    const objects = runtimeOf(server).objects;
    await until(() => before.size >= PODS_WANTED && before.size === objects.count(PODS), Math.max(600_000, PODS_WANTED * 60), 'every pod Running', 1000);
    const pods = before.size;
    if (process.env['AKSEMU_BENCH_TRACE']) {
      const phases = new Map<string, number>();
      for (const p of runtimeOf(server).objects.list(PODS)) {
        const k = `${p.metadata.namespace}/${(p.metadata['ownerReferences'] as Array<{ kind: string }> | undefined)?.[0]?.kind} ${(p['status'] as PodStatus)?.phase}`;
        phases.set(k, (phases.get(k) ?? 0) + 1);
      }
      console.error(JSON.stringify([...phases]));
    }
    return { pods, setupMs: performance.now() - t0 };
  } finally {
    await server.close();
  }
}

export async function benchRestart(): Promise<RestartTiming> {
  const saved = process.env['AKSEMU_BENCH_RESTART_HOME'];
  if (saved && existsSync(saved)) return restartSaved(saved);
  const home = mkdtempSync(join(tmpdir(), 'aksemu-bench-restart-'));
  try {
    const { pods, setupMs } = await setUp(home);
    // Each restart starts from the same stopped home: a copy of it is kept beside it.
    const keep = saved ?? `${home}.stopped`;
    cpSync(home, keep, { recursive: true });
    if (saved) writeFileSync(`${saved}.path`, home);
    try {
      const best = await restarts(keep, home);
      if (best.pods !== pods) throw new Error(`restart bench: ${best.pods} pods after the restart, ${pods} before`);
      return { nodes: NODES, setupMs, restarts: RESTARTS, ...best };
    } finally {
      if (!saved) discard(keep);
    }
  } finally {
    discard(home);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(JSON.stringify(await benchRestart()));
