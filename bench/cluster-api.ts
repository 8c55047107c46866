// The cluster API at scale, measured in one run:
// (a) the real `kubectl get nodes` (the gcloud dispatcher and the build it picks) against a 5,000-node cluster
//     built through ARM with `aksemu az` — BYO CNI (`--network-plugin none`), the model that needs one address
//     per node and no route table (kubenet stops at 400 nodes), in five pools of 1,000 (the per-pool limit) —
//     against the same command on the seed's 3-node cluster, and the server's side of it: the Table response
//     for `GET /api/v1/nodes` built and serialized in process.
// (b) pods held per GiB: a child process (--expose-gc) makes a 20,000-replica Deployment, whose pods the cluster's
//     own controllers create, and reports the heap growth after a full GC; two more children POST the pods one by
//     one, each with an env value of its own (the form of rounds one to seven), the second also reading the heap
//     half-way.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { discard } from './trash.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
import { fileURLToPath } from 'node:url';
import { ClusterApi } from '../src/cluster/apiserver/api.js';
import { compactHeap, idleCompaction } from '../src/cluster/apiserver/storage/idle-compaction.js';
import { EVENTS, PODS as POD_TYPE } from '../src/cluster/apimachinery/resources.js';
import type { KubeObject } from '../src/cluster/apimachinery/object.js';
import type { Pod } from '../src/cluster/apimachinery/types.js';
import { clusterId } from '../src/model/cluster-records.js';
import { startServer, type RunningServer } from '../src/server/server.js';
import { az, measured, type Measured } from './az-create.js';

const KUBECTL = '/usr/bin/kubectl';
const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const REPS = 5;
const PODS = Number(process.env['AKSEMU_BENCH_PODS'] ?? 20_000);
const GIB = 1024 ** 3;

function run(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { env, maxBuffer: 1 << 28 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${file} ${args.join(' ')} failed: ${stderr}`));
      else resolve(stdout);
    });
  });
}

/** Best of REPS wall times of `kubectl get nodes`, each with a fresh discovery cache; checks the row count. */
async function kubectlGetNodes(home: string, name: string, nodes: number): Promise<number> {
  const scratch = mkdtempSync(join(tmpdir(), 'aksemu-bench-kubectl-'));
  try {
    const kubeconfig = join(scratch, 'kubeconfig');
    await az(home, ['aks', 'get-credentials', '-g', 'myResourceGroup', '-n', name, '--file', kubeconfig]);
    const env = { ...process.env, KUBECONFIG: kubeconfig, HOME: scratch };
    let bestMs = Infinity;
    for (let i = 0; i < REPS; i++) {
      const t0 = performance.now();
      const out = await run(KUBECTL, [`--cache-dir=${join(scratch, `cache-${i}`)}`, 'get', 'nodes'], env);
      bestMs = Math.min(bestMs, performance.now() - t0);
      const rows = out.trim().split('\n').length - 1;
      if (rows !== nodes) throw new Error(`kubectl get nodes printed ${rows} nodes, expected ${nodes}`);
    }
    return bestMs;
  } finally {
    discard(scratch);
  }
}

/** Best of REPS in-process times of the Table list kubectl asks for, serialized as the server sends it. */
function serverSide(server: RunningServer, name: string): { ms: number; bytes: number } {
  const runtime = server.clusterApis.runtimeOf(clusterId(server.identity.subscriptionId, 'myResourceGroup', name))!;
  const api = new ClusterApi(runtime);
  let ms = Infinity;
  let bytes = 0;
  for (let i = 0; i < REPS; i++) {
    const t0 = performance.now();
    const res = api.handle({ method: 'GET', path: '/api/v1/nodes', query: new URLSearchParams('limit=500'), accept: TABLE_ACCEPT });
    const text = JSON.stringify('body' in res ? res.body : undefined);
    ms = Math.min(ms, performance.now() - t0);
    bytes = Buffer.byteLength(text);
  }
  return { ms, bytes };
}

export interface ClusterApiTiming {
  create: Measured;
  kubectlSeedMs: number;
  kubectlBigMs: number;
  serverMs: number;
  responseBytes: number;
}

export async function benchKubectlGetNodes(): Promise<ClusterApiTiming> {
  const home = mkdtempSync(join(tmpdir(), 'aksemu-bench-'));
  const server = await startServer({ home, port: 0, log: () => {} });
  try {
    await az(home, ['group', 'create', '--location', 'eastus', '--name', 'myResourceGroup']);
    await az(home, ['aks', 'create', '-g', 'myResourceGroup', '-n', 'seed', '--network-plugin', 'none', '--generate-ssh-keys']);
    const create = await measured(async () => {
      await az(home, ['aks', 'create', '-g', 'myResourceGroup', '-n', 'big', '--network-plugin', 'none', '--node-count', '1000', '--generate-ssh-keys']);
      for (const pool of ['pool2', 'pool3', 'pool4', 'pool5']) {
        await az(home, ['aks', 'nodepool', 'add', '-g', 'myResourceGroup', '--cluster-name', 'big', '-n', pool, '-c', '1000']);
      }
    });
    const kubectlSeedMs = await kubectlGetNodes(home, 'seed', 3);
    const kubectlBigMs = await kubectlGetNodes(home, 'big', 5000);
    const side = serverSide(server, 'big');
    return { create, kubectlSeedMs, kubectlBigMs, serverMs: side.ms, responseBytes: side.bytes };
  } finally {
    await server.close();
    discard(home);
  }
}

const TEMPLATE_HASH = '7d4b9c8f6d';

/**
 * The pods' spec as a Deployment's template gives it, with what the apiserver defaults written out. With `replica`,
 * an env value of the pod's own (`REPLICA=<i>`): the form the bench POSTed in rounds one to seven, where every pod's
 * spec differs from every other's, which a ReplicaSet's pods never do (docs/performance.md §7.12).
 */
function webPodSpec(replica?: number): Record<string, unknown> {
  return {
    containers: [
      {
        name: 'nginx',
        image: 'nginx:1.25',
        ports: [{ containerPort: 80, protocol: 'TCP' }],
        ...(replica === undefined ? {} : { env: [{ name: 'REPLICA', value: String(replica) }] }),
        resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        imagePullPolicy: 'IfNotPresent',
      },
    ],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    serviceAccountName: 'default',
    serviceAccount: 'default',
    securityContext: {},
    schedulerName: 'default-scheduler',
    tolerations: [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ],
    priority: 0,
    enableServiceLinks: true,
    preemptionPolicy: 'PreemptLowerPriority',
  };
}

/** A pod as a ReplicaSet would create it (what kube-controller-manager POSTs), with an env value of its own. */
export function deploymentPod(i: number): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      // The controller's generateName with 5 random characters collides within 20,000 pods (it retries):
      // name them as it would, without the collisions.
      name: `web-${TEMPLATE_HASH}-${i.toString(36).padStart(5, '0')}`,
      namespace: 'default',
      labels: { app: 'web', 'pod-template-hash': TEMPLATE_HASH },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `web-${TEMPLATE_HASH}`,
          uid: '6f1c2a4e-3b7d-4c1e-9a2f-5d8e7b6c4a3f',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: webPodSpec(i),
  };
}

/** The Deployment whose pods the cluster's own controllers make: the pods the issue's figure names. */
function webDeployment(replicas: number): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: webPodSpec() },
    },
  };
}

export interface PodMemory {
  pods: number;
  heapBytes: number;
  rssBytes: number;
  /** What else grew: V8's committed heap, and memory outside it (Buffers, SQLite's pages). */
  heapTotalBytes: number;
  externalBytes: number;
  /** What the cluster held when measured: its pods, and the Events posted for them (the scheduler's, the kubelet's). */
  held: { pods: number; events: number; scheduled?: number; waitedMs?: number };
  /** Each V8 space's growth: what it holds and what it has committed (RSS follows the committed heap: docs/performance.md §7.3). */
  spaces?: Record<string, { usedBytes: number; committedBytes: number }>;
  /**
   * With AKSEMU_BENCH_IDLE_MS=<ms>: the same growth every 5 s while the cluster idles that long after the figure, for
   * what V8 gives back by itself (its memory reducer compacts the old space and shrinks the young generation some
   * 10-30 s after the last allocations: docs/performance.md §7.3).
   */
  idle?: { ms: number; rssBytes: number; heapTotalBytes: number; oldCommittedBytes: number; newCommittedBytes: number }[];
  /**
   * The same growth once the server has settled: after its compaction at idle (storage/idle-compaction.ts), against
   * a baseline compacted the same way once the cluster's create was over (docs/performance.md §7.5); when the
   * compaction ran (ms after the figure above) and its pause.
   */
  /**
   * From a second child that also read the heap once half the pods were held and placed: what the second half added,
   * per pod. Code V8 compiles for the pods' path (and flushes again, docs/performance.md §7.9) is mostly made in the first half, so this
   * is the pods' own growth with the fixed cost left out (docs/performance.md §7.10).
   */
  marginalHeapBytes?: number;
  /**
   * The server's compactions between the baseline and the figure (storage/idle-compaction.ts: one as each burst of
   * writes ends), and the last one's pause (docs/performance.md §7.16).
   */
  burstCompactions?: { count: number; lastMs: number };
  /** The process's CPU from the first POST to the figure (the burst, the scheduler's catching up, the server's compactions). */
  burstCpuMs?: number;
  settled?: {
    heapBytes: number;
    rssBytes: number;
    heapTotalBytes: number;
    spaces: Record<string, { usedBytes: number; committedBytes: number }>;
    compactedAfterMs: number;
    compactionMs: number;
  };
}

type Sample = NodeJS.MemoryUsage & { spaces: Record<string, { used: number; committed: number }> };

function growth(after: Sample, before: Sample): Record<string, { usedBytes: number; committedBytes: number }> {
  return Object.fromEntries(
    Object.entries(after.spaces).map(([name, a]) => [
      name,
      { usedBytes: a.used - (before.spaces[name]?.used ?? 0), committedBytes: a.committed - (before.spaces[name]?.committed ?? 0) },
    ]),
  );
}

function spaceSizes(): Record<string, { used: number; committed: number }> {
  return Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, { used: s.space_used_size, committed: s.physical_space_size }]));
}

/** Waits (at most two minutes) until every pod has its PodScheduled condition: the scheduler has been through them all. */
async function caughtUp(pods: () => readonly KubeObject[]): Promise<{ scheduled: number; ms: number }> {
  const start = Date.now();
  let scheduled = 0;
  for (;;) {
    const all = pods();
    scheduled = all.filter((p) => ((p as Pod).status?.conditions ?? []).some((c) => c.type === 'PodScheduled')).length;
    if (scheduled >= all.length || Date.now() - start > 120_000) return { scheduled, ms: Date.now() - start };
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** How the child makes its pods: a Deployment the cluster's controllers scale, or POSTed one by one (each with its env). */
type PodsForm = 'deployment' | 'posted' | 'posted-half';

/** Waits (at most five minutes) until the cluster holds `count` pods. */
async function podsHeld(count: () => number, wanted: number): Promise<void> {
  const start = Date.now();
  while (count() < wanted) {
    if (Date.now() - start > 300_000) throw new Error(`the Deployment made ${count()} of ${wanted} pods in five minutes`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * In the child (--expose-gc): a server and a 3-node cluster, then PODS pods: a Deployment's, or POSTed through its
 * API. With 'posted-half', the heap is also read once the first half is held and placed, for the second half's growth
 * per pod.
 */
async function measurePods(form: PodsForm): Promise<PodMemory> {
  const half = form === 'posted-half';
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const home = mkdtempSync(join(tmpdir(), 'aksemu-bench-pods-'));
  const server = await startServer({ home, port: 0, log: () => {} });
  try {
    await az(home, ['group', 'create', '--location', 'eastus', '--name', 'myResourceGroup']);
    await az(home, ['aks', 'create', '-g', 'myResourceGroup', '-n', 'pods', '--network-plugin', 'none', '--generate-ssh-keys']);
    const id = clusterId(server.identity.subscriptionId, 'myResourceGroup', 'pods');
    // The cluster's API starts once the provider's records land (the change feed runs after the command returns).
    for (let i = 0; i < 200 && !server.clusterApis.runtimeOf(id); i++) await new Promise((r) => setTimeout(r, 50));
    const api = new ClusterApi(server.clusterApis.runtimeOf(id)!);
    const settle = async (): Promise<Sample> => {
      await new Promise((r) => setTimeout(r, 200));
      gc();
      return { ...process.memoryUsage(), spaces: spaceSizes() };
    };
    const before = await settle();
    // The settled figure's baseline: the create's writes over, the server idle as long as its compaction waits
    // (its check period and quiet time), then the heap compacted as it compacts it.
    await new Promise((r) => setTimeout(r, 7000));
    compactHeap();
    const beforeSettled = await settle();
    const objects = server.clusterApis.runtimeOf(id)!.objects;
    const compactionsBefore = idleCompaction.done.runs;
    const post = (path: string, body: Record<string, unknown>): void => {
      const res = api.handle({ method: 'POST', path, query: new URLSearchParams(), contentType: 'application/json', body: JSON.stringify(body) });
      if (!('status' in res) || res.status !== 201) throw new Error(`create failed: ${JSON.stringify('body' in res ? res.body : res)}`);
    };
    let halfway: Sample | undefined;
    const burstCpu = process.cpuUsage();
    if (form === 'deployment') {
      const addOns = objects.count(POD_TYPE);
      post('/apis/apps/v1/namespaces/default/deployments', webDeployment(PODS));
      await podsHeld(() => objects.count(POD_TYPE) - addOns, PODS);
    } else {
      for (let i = 0; i < PODS; i++) {
        if (half && i === PODS >> 1) {
          await caughtUp(() => objects.list(POD_TYPE));
          halfway = await settle();
        }
        post('/api/v1/namespaces/default/pods', deploymentPod(i));
        // Let write-behind flushes and watchers run as they would between requests.
        if (i % 500 === 499) await new Promise((r) => setImmediate(r));
      }
    }
    // Measured once the scheduler has caught up (every pod placed or marked Unschedulable, each with its Event), so
    // runs compare: before, the figure moved with how far it had got (docs/performance.md §7.1).
    const waited = await caughtUp(() => objects.list(POD_TYPE));
    const after = await settle();
    const burstCpuUsage = process.cpuUsage(burstCpu);
    if (halfway) return marginal(after, halfway, PODS - (PODS >> 1));
    // Settled: the server's compaction at idle once the writes are over (at most 30 s), then the same figure.
    // Since round eleven the server compacts as soon as a burst is over and collects once more after 6 s of quiet
    // (docs/performance.md §7.16): the settled figure follows whichever of them comes after the figure above.
    const settledFrom = Date.now();
    const done = idleCompaction.done;
    const seen = { runs: done.runs, quietRuns: done.quietRuns };
    const compactions = done.runs - compactionsBefore;
    const burstCompactionMs = compactions > 0 ? done.lastMs : Number.NaN;
    const collected = () => done.runs !== seen.runs || done.quietRuns !== seen.quietRuns;
    while (!collected() && Date.now() - settledFrom < 30_000) await new Promise((r) => setTimeout(r, 100));
    const compactedAfterMs = Date.now() - settledFrom;
    const compactionMs = done.runs !== seen.runs ? done.lastMs : done.quietRuns !== seen.quietRuns ? done.quietLastMs : Number.NaN;
    const afterSettled = await settle();
    const idle: NonNullable<PodMemory['idle']> = [];
    const idleMs = Number(process.env['AKSEMU_BENCH_IDLE_MS'] ?? 0);
    for (let ms = 5000; ms <= idleMs; ms += 5000) {
      await new Promise((r) => setTimeout(r, 5000));
      const now = process.memoryUsage();
      const spaces = spaceSizes();
      idle.push({
        ms,
        rssBytes: now.rss - before.rss,
        heapTotalBytes: now.heapTotal - before.heapTotal,
        oldCommittedBytes: spaces['old_space']!.committed - before.spaces['old_space']!.committed,
        newCommittedBytes: spaces['new_space']!.committed - before.spaces['new_space']!.committed,
      });
    }
    // AKSEMU_BENCH_HEAP_SNAPSHOT=<file>: the heap with the pods held, for where their bytes go (DevTools' Memory tab).
    const snapshot = process.env['AKSEMU_BENCH_HEAP_SNAPSHOT'];
    if (snapshot) writeHeapSnapshot(snapshot);
    return {
      pods: PODS,
      heapBytes: after.heapUsed - before.heapUsed,
      rssBytes: after.rss - before.rss,
      heapTotalBytes: after.heapTotal - before.heapTotal,
      externalBytes: after.external - before.external,
      held: { pods: objects.count(POD_TYPE), events: objects.count(EVENTS), scheduled: waited.scheduled, waitedMs: waited.ms },
      burstCompactions: { count: compactions, lastMs: burstCompactionMs },
      burstCpuMs: (burstCpuUsage.user + burstCpuUsage.system) / 1000,
      ...(idle.length > 0 ? { idle } : {}),
      spaces: growth(after, before),
      settled: {
        heapBytes: afterSettled.heapUsed - beforeSettled.heapUsed,
        rssBytes: afterSettled.rss - beforeSettled.rss,
        heapTotalBytes: afterSettled.heapTotal - beforeSettled.heapTotal,
        spaces: growth(afterSettled, beforeSettled),
        compactedAfterMs,
        compactionMs,
      },
    };
  } finally {
    await server.close();
    discard(home);
  }
}

/** The half-way child's answer: only the second half's heap growth. */
function marginal(after: Sample, halfway: Sample, pods: number): PodMemory {
  const heapBytes = after.heapUsed - halfway.heapUsed;
  return {
    pods,
    heapBytes,
    rssBytes: after.rss - halfway.rss,
    heapTotalBytes: after.heapTotal - halfway.heapTotal,
    externalBytes: after.external - halfway.external,
    held: { pods, events: 0 },
  };
}

const SELF = fileURLToPath(import.meta.url);
const CHILD_FLAG = '--measure-pods';

/**
 * Three children, one after the other: the pods of one Deployment (the issue's figure), then the pods POSTed each with
 * an env value of its own as rounds one to seven took it, then that form's second half alone.
 */
export async function benchPodsPerGiB(): Promise<PodMemory & { posted: PodMemory }> {
  const child = async (form: PodsForm) => JSON.parse(await run(process.execPath, ['--expose-gc', SELF, CHILD_FLAG, form], process.env)) as PodMemory;
  const deployment = await child('deployment');
  const posted = await child('posted');
  const second = await child('posted-half');
  return { ...deployment, posted: { ...posted, marginalHeapBytes: second.heapBytes / second.pods } };
}

export function podsPerGiB(m: { pods: number }, bytes: number): number {
  return m.pods / (bytes / GIB);
}

if (process.argv[1] === SELF && process.argv[2] === CHILD_FLAG) {
  // No form given: the pods POSTed, as every command in docs/performance.md before round eight meant.
  const form = process.argv[3] ?? 'posted';
  if (form !== 'deployment' && form !== 'posted' && form !== 'posted-half') throw new Error(`unknown form of pods: ${form}`);
  process.stdout.write(JSON.stringify(await measurePods(form)));
  process.exit(0);
}
