// Cluster API tests: a real server with a managed cluster created through the official SDK, its kubeconfig
// from listClusterUserCredential in a temp file, and the real /usr/bin/kubectl (the gcloud dispatcher) run
// against it with a fresh discovery cache per call.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { ManagedCluster } from '@azure/arm-containerservice';
import { aksemu } from '../az/helpers.js';
import { aksClient, cluster, POLL } from '../containerservice/harness.js';
import { withServer, type Env } from '../network/harness.js';

export const KUBECTL = '/usr/bin/kubectl';
export const HAVE_KUBECTL = existsSync(KUBECTL);

export interface ClusterEnv extends Env {
  clusterId: string;
  kubeconfig: string;
  kubeconfigYaml: string;
  scratch: string;
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs fn with a fresh server and cluster c1 in rg (3 nodes unless told), its user kubeconfig written out. */
export async function withCluster(
  network: ManagedCluster['networkProfile'],
  fn: (env: ClusterEnv) => Promise<void>,
  pool: Record<string, unknown> = {},
): Promise<void> {
  await withServer(async (env) => {
    const aks = aksClient(env.server);
    const created = await aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', cluster(network, pool), POLL);
    const creds = await aks.managedClusters.listClusterUserCredentials('rg', 'c1');
    const yaml = Buffer.from(creds.kubeconfigs![0]!.value!).toString('utf8');
    const scratch = mkdtempSync(join(tmpdir(), 'aksemu-kubectl-'));
    const kubeconfig = join(scratch, 'kubeconfig');
    writeFileSync(kubeconfig, yaml, { mode: 0o600 });
    try {
      // The same object withServer closes: restart(env) replaces env.server on it.
      await fn(Object.assign(env, { clusterId: created.id!, kubeconfig, kubeconfigYaml: yaml, scratch }));
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
}

let calls = 0;

/** The real kubectl with KUBECONFIG=env.kubeconfig and a discovery cache of its own. */
export function kubectl(env: Pick<ClusterEnv, 'kubeconfig' | 'scratch'>, args: string[], timeoutMs = 90_000): Promise<KubectlResult> {
  const cache = join(env.scratch, `cache-${++calls}`);
  return runTool(KUBECTL, [`--cache-dir=${cache}`, ...args], { KUBECONFIG: env.kubeconfig, HOME: env.scratch }, timeoutMs);
}

/** A client binary run with extra environment (and `input` on its stdin), killed after timeoutMs; resolves with its exit code and output. */
export function runTool(file: string, args: string[], extraEnv: Record<string, string>, timeoutMs: number, input = ''): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile(file, args, { env: { ...process.env, ...extraEnv }, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as NodeJS.ErrnoException).code === 'number' ? Number((err as NodeJS.ErrnoException).code) : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
    // kubectl prompts for a username on stdin when a kubeconfig user has no credentials: give it EOF.
    child.stdin?.end(input);
  });
}

/** Creates a pod in `default` through the API and waits until it is Running. */
export async function runningPod(env: Pick<ClusterEnv, 'kubeconfigYaml'>, pod: { metadata: { name: string } } & Record<string, unknown>): Promise<void> {
  const created = await api(env, 'POST', '/api/v1/namespaces/default/pods', { body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', ...pod }) });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const path = `/api/v1/namespaces/default/pods/${pod.metadata.name}`;
  await eventually(async () => (await api(env, 'GET', path)).json.status?.phase === 'Running', 20_000, `${pod.metadata.name} running`);
}

/** Resolves when check() holds, polling; rejects after timeoutMs. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `aksemu cni install` for cluster c1 in rg, as a user runs it, in its own process. */
export async function cniInstall(env: Pick<ClusterEnv, 'home'>, conflist: string, extra: string[] = []): Promise<KubectlResult> {
  const r = await aksemu(env.home, ['cni', 'install', '-g', 'rg', '-n', 'c1', '--conflist', conflist, '--home', env.home, ...extra]);
  return { ...r, code: r.code ?? 1 };
}

export interface ApiResult {
  status: number;
  text: string;
  json: any;
  ms: number;
}

/** The cluster API's URL, CA and bearer token, read from the kubeconfig ARM handed out. */
export function apiEndpoint(env: Pick<ClusterEnv, 'kubeconfigYaml'>): { url: string; caPem: string; token: string } {
  const config = parseYaml(env.kubeconfigYaml);
  const cluster = config.clusters[0].cluster;
  return { url: cluster.server, caPem: Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8'), token: config.users[0].user.token };
}

/**
 * One raw HTTPS request to the cluster API (for bodies kubectl cannot send), with the cluster's token unless
 * `token` says otherwise (null: no Authorization header). Resolves with what came back; rejects on a reset.
 */
export function api(
  env: Pick<ClusterEnv, 'kubeconfigYaml'>,
  method: string,
  path: string,
  options: { body?: string | Buffer; contentType?: string; token?: string | null; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<ApiResult> {
  const endpoint = apiEndpoint(env);
  const headers: Record<string, string> = { accept: 'application/json', ...(options.headers ?? {}) };
  const token = options.token === undefined ? endpoint.token : options.token;
  if (token !== null) headers['authorization'] = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const req = httpsRequest(`${endpoint.url}${path}`, { method, headers, ca: endpoint.caPem, timeout: options.timeoutMs ?? 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, text, json, ms: Date.now() - t0 });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in ${options.timeoutMs ?? 30_000} ms`)));
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}
