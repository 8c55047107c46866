// Watches and big lists, measured in one run (issue 32):
// (a) WATCHERS real HTTPS watches on pods (in a process of their own, as clients are) while WATCH_PODS pods are
//     created through the cluster API as a ReplicaSet would: how far behind the slowest watcher is (from a pod's
//     create to the last watcher's ADDED), whether any watcher was cut off, and the server's heap growth after a
//     full GC (the pods themselves included).
// (b) the real `kubectl get pods -A` on LIST_PODS pods (kubectl pages 500 at a time), its wall time, and the
//     server's side of it: every page kubectl asks for (a Table of 500 rows) built and serialized in process.
// The pods of (b) are written straight into the store, bound to a node that does not exist so that no scheduler
// or kubelet works on them; the cluster's object ceiling is raised for them (it is 50,000 per cluster).
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { discard } from './trash.js';
import { ServerResponse } from 'node:http';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { ClusterApi } from '../src/cluster/apiserver/api.js';
import { PODS } from '../src/cluster/apimachinery/resources.js';
import type { KubeObject } from '../src/cluster/apimachinery/object.js';
import { clusterId } from '../src/model/cluster-records.js';
import { startServer, type RunningServer } from '../src/server/server.js';
import { az } from './az-create.js';
import { deploymentPod } from './cluster-api.js';

const KUBECTL = '/usr/bin/kubectl';
const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const WATCHERS = Number(process.env['AKSEMU_BENCH_WATCHERS'] ?? 100);
const WATCH_PODS = Number(process.env['AKSEMU_BENCH_WATCH_PODS'] ?? 10_000);
const LIST_PODS = Number(process.env['AKSEMU_BENCH_LIST_PODS'] ?? 250_000);
const SELF = fileURLToPath(import.meta.url);

export interface WatchFigures {
  watchers: number;
  pods: number;
  maxLagMs: number;
  p99LagMs: number;
  /** The most behind in each tenth of the pods, in the order they were made (a lag that grows is a reader falling behind). */
  maxLagByTenthMs: number[];
  cutOff: number;
  createMs: number;
  /** The server process's CPU from the first create until every watcher has every pod (it makes the pods too). */
  serverCpuMs: number;
  /** The watchers' process's CPU over the whole run (TLS, HTTP, finding each pod's name in its lines). */
  clientCpuMs: number;
  /** How much of the run each process's event loop was busy (1: it never waited; the one at 1 is the bottleneck). */
  serverBusy: number;
  clientBusy: number;
  /** The TLS cipher suite the watches use (the server chooses it as Go's crypto/tls does). */
  cipher: string;
  heapGrowthBytes: number;
  /**
   * The server's share of the lag: from a pod's create until its ADDED line was handed to the last watcher's
   * response (`written`), and until that write had left Node for the kernel (`sent`; later when the watcher's
   * socket is full). The rest of maxLagMs is the bytes waiting for the watchers' process to read them.
   */
  maxWrittenMs: number;
  p99WrittenMs: number;
  maxSentMs: number;
  p99SentMs: number;
}

export interface ListFigures {
  pods: number;
  fillMs: number;
  kubectlMs: number;
  rows: number;
  pages: number;
  serverTotalMs: number;
  /** The CPU of serverTotalMs (the machine is shared: wall time there includes waiting for a core). */
  serverCpuMs: number;
  serverMaxPageMs: number;
}

interface Endpoint {
  url: string;
  ca: string;
  token: string;
}

async function cluster(home: string, name: string): Promise<{ server: RunningServer; kubeconfig: string; endpoint: Endpoint; api: ClusterApi }> {
  const server = await startServer({ home, port: 0, log: () => {} });
  await az(home, ['group', 'create', '--location', 'eastus', '--name', 'rg']);
  await az(home, ['aks', 'create', '-g', 'rg', '-n', name, '--network-plugin', 'none', '--generate-ssh-keys']);
  const kubeconfig = join(home, 'kubeconfig');
  await az(home, ['aks', 'get-credentials', '-g', 'rg', '-n', name, '--file', kubeconfig]);
  const config = parseYaml(readFileSync(kubeconfig, 'utf8'));
  const c = config.clusters[0].cluster;
  const endpoint = { url: c.server, ca: Buffer.from(c['certificate-authority-data'], 'base64').toString('utf8'), token: config.users[0].user.token };
  const id = clusterId(server.identity.subscriptionId, 'rg', name);
  // The cluster's API starts once the provider's records land (the change feed runs after the command returns).
  for (let i = 0; i < 200 && !server.clusterApis.runtimeOf(id); i++) await new Promise((r) => setTimeout(r, 50));
  return { server, kubeconfig, endpoint, api: new ClusterApi(server.clusterApis.runtimeOf(id)!) };
}

function createPod(api: ClusterApi, pod: Record<string, unknown>): void {
  const res = api.handle({
    method: 'POST',
    path: '/api/v1/namespaces/default/pods',
    query: new URLSearchParams(),
    contentType: 'application/json',
    body: JSON.stringify(pod),
  });
  if (!('status' in res) || res.status !== 201) throw new Error(`pod create failed: ${JSON.stringify('body' in res ? res.body : res)}`);
}

interface Written {
  names: string[];
  written: number;
  sent: number;
}

/**
 * Watches the server's watch responses write (ServerResponse.write with one buffer, as watch-stream.ts writes a
 * watcher's lines of a tick): for each buffer, the pods whose ADDED lines it holds, when it was last written and
 * when that write left Node. The watchers of a tick share one buffer, so its lines are read once.
 */
function watchWrites(): { finish(created: Map<string, number>): Pick<WatchFigures, 'maxWrittenMs' | 'p99WrittenMs' | 'maxSentMs' | 'p99SentMs'> } {
  const write = ServerResponse.prototype.write as (this: ServerResponse, chunk: unknown, ...rest: unknown[]) => boolean;
  const seen = new WeakMap<Buffer, Written>();
  let all: Written[] = [];
  const now = () => performance.timeOrigin + performance.now();
  ServerResponse.prototype.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    if (rest.length > 0 || !Buffer.isBuffer(chunk) || chunk.length < 16 || chunk[0] !== 0x7b) return write.call(this, chunk, ...rest);
    let w = seen.get(chunk);
    if (w === undefined) {
      const names: string[] = [];
      for (let start = 0, nl = chunk.indexOf(0x0a); nl >= 0; start = nl + 1, nl = chunk.indexOf(0x0a, start)) {
        const head = chunk.toString('latin1', start, Math.min(nl, start + 512));
        if (!head.startsWith('{"type":"ADDED"')) continue;
        const at = head.indexOf('"name":"') + 8;
        names.push(head.slice(at, head.indexOf('"', at)));
      }
      w = { names, written: 0, sent: 0 };
      seen.set(chunk, w);
      all.push(w);
    }
    const mine = w;
    mine.written = now();
    return write.call(this, chunk, () => (mine.sent = now()));
  } as typeof ServerResponse.prototype.write;
  return {
    // What it kept goes with the figures (the heap is measured after).
    finish: (created) => {
      ServerResponse.prototype.write = write as typeof ServerResponse.prototype.write;
      const byPod = new Map<string, { written: number; sent: number }>();
      for (const w of all) {
        for (const name of w.names) {
          const o = byPod.get(name);
          byPod.set(name, { written: Math.max(o?.written ?? 0, w.written), sent: Math.max(o?.sent ?? 0, w.sent) });
        }
      }
      all = [];
      const [maxWrittenMs, p99WrittenMs] = maxAndP99([...created].map(([name, t]) => (byPod.get(name)?.written ?? Number.POSITIVE_INFINITY) - t));
      const [maxSentMs, p99SentMs] = maxAndP99([...created].map(([name, t]) => (byPod.get(name)?.sent ?? Number.POSITIVE_INFINITY) - t));
      return { maxWrittenMs, p99WrittenMs, maxSentMs, p99SentMs };
    },
  };
}

/** The largest and the 99th percentile of ms (unsorted). */
function maxAndP99(ms: number[]): [number, number] {
  const sorted = [...ms].sort((a, b) => a - b);
  return [sorted[sorted.length - 1]!, sorted[Math.floor(sorted.length * 0.99)]!];
}

/** (a), in a child run with --expose-gc: the server here, the watchers in a grandchild. */
async function measureWatchers(): Promise<WatchFigures> {
  const gc = (globalThis as { gc?: () => void }).gc!;
  const settle = async () => {
    await new Promise((r) => setTimeout(r, 300));
    gc();
    return process.memoryUsage().heapUsed;
  };
  const home = mkdtempSync(join(tmpdir(), 'aksemu-bench-watch-'));
  const { server, endpoint, api } = await cluster(home, 'watch');
  const clients = spawn(process.execPath, [SELF, '--watch-clients', JSON.stringify(endpoint)], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const lines = createInterface({ input: clients.stdout! });
    const next = () => new Promise<string>((resolve) => lines.once('line', resolve));
    const ready = await next();
    if (ready !== 'ready') throw new Error(`watch clients: ${ready}`);
    const before = await settle();
    const created = new Map<string, number>();
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const elu0 = performance.eventLoopUtilization();
    const writes = watchWrites();
    for (let i = 0; i < WATCH_PODS; i++) {
      const pod = deploymentPod(i);
      created.set((pod['metadata'] as { name: string }).name, performance.timeOrigin + performance.now());
      createPod(api, pod);
      // Between requests the server serves its connections, as it does between a client's requests.
      if (i % 50 === 49) await new Promise((r) => setImmediate(r));
    }
    const createMs = performance.now() - t0;
    const seen = JSON.parse(await next()) as { last: Record<string, number>; cutOff: number; cpuMs: number; busy: number; cipher: string };
    const cpu = process.cpuUsage(cpu0);
    const serverBusy = performance.eventLoopUtilization(elu0).utilization;
    const serverShare = writes.finish(created);
    const inOrder = [...created].map(([name, t]) => (seen.last[name] ?? Number.POSITIVE_INFINITY) - t);
    const lags = [...inOrder].sort((a, b) => a - b);
    const tenth = Math.ceil(inOrder.length / 10);
    const byTenth = Array.from({ length: 10 }, (_, k) => Math.round(Math.max(...inOrder.slice(k * tenth, (k + 1) * tenth))));
    const after = await settle();
    const metrics = api.handle({ method: 'GET', path: '/metrics', query: new URLSearchParams() });
    const text = 'text' in metrics && metrics.text ? metrics.text : '';
    const serverCut = Number(/apiserver_terminated_watchers_total\{group="",resource="pods"\} (\d+)/.exec(text)?.[1] ?? 0);
    return {
      watchers: WATCHERS,
      pods: WATCH_PODS,
      maxLagMs: lags[lags.length - 1]!,
      p99LagMs: lags[Math.floor(lags.length * 0.99)]!,
      maxLagByTenthMs: byTenth,
      cutOff: Math.max(serverCut, seen.cutOff),
      createMs,
      serverCpuMs: (cpu.user + cpu.system) / 1000,
      clientCpuMs: seen.cpuMs,
      serverBusy,
      clientBusy: seen.busy,
      cipher: seen.cipher,
      heapGrowthBytes: after - before,
      ...serverShare,
    };
  } finally {
    clients.kill();
    await server.close();
    discard(home);
  }
}

/** The watchers' process: WATCHERS watches on pods; prints `ready`, then when every watcher has every pod, when the last saw each. */
async function watchClients(endpoint: Endpoint): Promise<void> {
  const last: Record<string, number> = {};
  const counts = new Array<number>(WATCHERS).fill(0);
  let done = 0;
  let cutOff = 0;
  let opened = 0;
  let elu0 = performance.eventLoopUtilization();
  let cipher = '';
  const finished = () => {
    if (++done < WATCHERS) return;
    // A pipe is written asynchronously: leave once the line is out.
    const cpu = process.cpuUsage();
    const busy = performance.eventLoopUtilization(elu0).utilization;
    process.stdout.write(`${JSON.stringify({ last, cutOff, cpuMs: (cpu.user + cpu.system) / 1000, busy, cipher })}\n`, () => process.exit(0));
  };
  const url = new URL('/api/v1/namespaces/default/pods?watch=true&allowWatchBookmarks=true', endpoint.url);
  for (let w = 0; w < WATCHERS; w++) {
    const req = request(url, { ca: endpoint.ca, headers: { authorization: `Bearer ${endpoint.token}`, accept: 'application/json' }, agent: false }, (res) => {
      cipher ||= (res.socket as TLSSocket).getCipher().standardName;
      if (++opened === WATCHERS) {
        elu0 = performance.eventLoopUtilization();
        process.stdout.write('ready\n');
      }
      let buffered = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const now = performance.timeOrigin + performance.now();
        const text = buffered + chunk;
        let start = 0;
        for (let nl = text.indexOf('\n'); nl >= 0; start = nl + 1, nl = text.indexOf('\n', start)) {
          // Only ADDED events of the pods made here count; no need to parse the rest of the object.
          if (!text.startsWith('{"type":"ADDED"', start)) continue;
          const at = text.indexOf('"name":"', start) + 8;
          const name = text.slice(at, text.indexOf('"', at));
          if (!name.startsWith('web-')) continue;
          if ((last[name] ?? 0) < now) last[name] = now;
          if (++counts[w]! === WATCH_PODS) finished();
        }
        buffered = text.slice(start);
      });
      // A watcher cut off for falling behind (the server's 410 path) sees no more: the run ends without it (it
      // used to wait for it forever), its pods' lags count where other watchers saw them, and cutOff says so.
      res.on('end', () => {
        cutOff++;
        if (counts[w]! < WATCH_PODS) finished();
      });
    });
    req.end();
  }
}

/** (b): LIST_PODS pods, `kubectl get pods -A`, and the server's side of each page kubectl asks for. */
export async function benchBigList(): Promise<ListFigures> {
  const home = mkdtempSync(join(tmpdir(), 'aksemu-bench-list-'));
  const { server, kubeconfig, api } = await cluster(home, 'list');
  try {
    const objects = api.runtime.objects;
    objects.ceiling.limits.objects = Math.max(objects.ceiling.limits.objects, LIST_PODS + 10_000);
    objects.ceiling.budget.limits.objects = Math.max(objects.ceiling.budget.limits.objects, LIST_PODS + 10_000);
    const t0 = performance.now();
    const namespaces = ['default', 'team-a', 'team-b', 'team-c', 'team-d'];
    for (let i = 0; i < LIST_PODS; i++) {
      const pod = deploymentPod(i) as unknown as KubeObject;
      pod.metadata.namespace = namespaces[i % namespaces.length]!;
      (pod['spec'] as Record<string, unknown>)['nodeName'] = 'bench-absent-node';
      objects.put(PODS, pod);
      if (i % 5000 === 4999) await new Promise((r) => setImmediate(r));
    }
    const fillMs = performance.now() - t0;
    const scratch = mkdtempSync(join(tmpdir(), 'aksemu-bench-kubectl-'));
    let kubectlMs = 0;
    let rows = 0;
    try {
      const t1 = performance.now();
      const out = await new Promise<string>((resolve, reject) =>
        execFile(
          KUBECTL,
          [`--cache-dir=${join(scratch, 'cache')}`, 'get', 'pods', '-A', '--no-headers'],
          { env: { ...process.env, KUBECONFIG: kubeconfig, HOME: scratch }, maxBuffer: 1 << 30 },
          (err, stdout, stderr) => (err ? reject(new Error(`kubectl get pods -A: ${stderr}`)) : resolve(stdout)),
        ),
      );
      kubectlMs = performance.now() - t1;
      rows = out.split('\n').filter((l) => l.includes('web-')).length;
    } finally {
      discard(scratch);
    }
    // The server's side: the pages kubectl asks for (limit=500, a Table), each built and serialized.
    let serverTotalMs = 0;
    let serverMaxPageMs = 0;
    let pages = 0;
    let cont = '';
    const pagesCpu0 = process.cpuUsage();
    for (;;) {
      const query = new URLSearchParams(`limit=500${cont ? `&continue=${cont}` : ''}`);
      const t = performance.now();
      const res = api.handle({ method: 'GET', path: '/api/v1/pods', query, accept: TABLE_ACCEPT });
      const body = 'body' in res ? (res.body as { metadata?: { continue?: string } }) : undefined;
      JSON.stringify(body);
      const ms = performance.now() - t;
      serverTotalMs += ms;
      serverMaxPageMs = Math.max(serverMaxPageMs, ms);
      pages++;
      cont = body?.metadata?.continue ?? '';
      if (!cont) break;
    }
    const pagesCpu = process.cpuUsage(pagesCpu0);
    return { pods: LIST_PODS, fillMs, kubectlMs, rows, pages, serverTotalMs, serverCpuMs: (pagesCpu.user + pagesCpu.system) / 1000, serverMaxPageMs };
  } finally {
    await server.close();
    discard(home);
  }
}

export async function benchWatchers(): Promise<WatchFigures> {
  const out = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ['--expose-gc', SELF, '--measure-watchers'], { maxBuffer: 1 << 26 }, (err, stdout, stderr) =>
      err ? reject(new Error(`watchers bench failed: ${stderr}`)) : resolve(stdout),
    ),
  );
  return JSON.parse(out) as WatchFigures;
}

if (process.argv[1] === SELF && process.argv[2] === '--measure-watchers') {
  process.stdout.write(JSON.stringify(await measureWatchers()));
  process.exit(0);
}
if (process.argv[1] === SELF && process.argv[2] === '--watch-clients') {
  await watchClients(JSON.parse(process.argv[3]!) as Endpoint);
}
if (process.argv[1] === SELF && process.argv[2] === '--list') {
  writeFileSync(1, `${JSON.stringify(await benchBigList())}\n`);
  process.exit(0);
}
