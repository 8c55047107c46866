// Test support for `aksemu az`: the CLI as a child process against a real server, and the same
// runner in-process against a fake ARM that records every request.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runAz } from '../../src/cli/az/run.js';
import type { Endpoint } from '../../src/cli/az/endpoint.js';
import type { HttpRequest, HttpResponse } from '../../src/cli/az/transport.js';

/** The seed's command (use-byo-cni.md), verbatim: `az aks create` of a BYO CNI cluster. */
export const SEED_AKS_CREATE: readonly string[] = [
  'aks',
  'create',
  '--location',
  'eastus',
  '--resource-group',
  'myResourceGroup',
  '--name',
  'myAKSCluster',
  '--network-plugin',
  'none',
  '--generate-ssh-keys',
];

/** `network vnet create` of a VNet with one subnet. */
export function vnetCreateArgs(group: string, name: string, space: string, subnet: string, prefix: string): string[] {
  return ['network', 'vnet', 'create', '-g', group, '-n', name, '--address-prefixes', space, '--subnet-name', subnet, '--subnet-prefixes', prefix];
}

/** `aks create` of an Azure CNI cluster with nodes on `nodeSubnet` and pods on `podSubnet` (docs/aks-rules.md §3.8). */
export function podSubnetCreateArgs(group: string, name: string, nodeSubnet: string, podSubnet: string, count: number): string[] {
  const subnets = ['--vnet-subnet-id', nodeSubnet, '--pod-subnet-id', podSubnet];
  return ['aks', 'create', '-g', group, '-n', name, '--network-plugin', 'azure', ...subnets, '-c', String(count), '--generate-ssh-keys'];
}

/** `aks nodepool add` of a pool with nodes on `nodeSubnet` and pods on `podSubnet`. */
export function podPoolAddArgs(group: string, cluster: string, name: string, count: number, nodeSubnet: string, podSubnet: string): string[] {
  const pool = ['-n', name, '-c', String(count), '--vnet-subnet-id', nodeSubnet, '--pod-subnet-id', podSubnet];
  return ['aks', 'nodepool', 'add', '-g', group, '--cluster-name', cluster, ...pool];
}

const BIN = fileURLToPath(new URL('../../../bin/aksemu.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node bin/aksemu.js …` with AKSEMU_HOME=home, as a user runs it; stdin is not a terminal. Killed after timeoutMs. */
export function aksemu(home: string, args: string[], options: { timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, AKSEMU_HOME: home },
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.on('error', reject);
    proc.on('close', (code) => resolve({ code, stdout, stderr }));
    proc.stdin.end();
  });
}

/** `node bin/aksemu.js az …` with AKSEMU_HOME=home. */
export function az(home: string, args: string[]): Promise<CliResult> {
  return aksemu(home, ['az', ...args]);
}

/** `aksemu az …` that must succeed without a word on stderr; its stdout. */
export async function azOk(home: string, args: string[]): Promise<string> {
  const r = await az(home, args);
  assert.equal(r.code, 0, `az ${args.join(' ')}\n${r.stderr}`);
  assert.equal(r.stderr, '', `az ${args.join(' ')}`);
  return r.stdout;
}

export const SUB = '00000000-0000-0000-0000-000000000001';
export const BASE = 'https://127.0.0.1:8443';

export const FAKE_ENDPOINT: Endpoint = {
  url: BASE,
  caFile: '/nonexistent/ca.pem',
  tenantId: 't',
  subscriptionId: SUB,
  clientId: 'c',
  clientSecret: 's',
  tokenEndpoint: `${BASE}/adfs/oauth2/token`,
  activeDirectoryResourceId: 'https://management.core.windows.net/',
};

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  body: any;
}

export type Handler = (req: Recorded) => { status: number; headers?: Record<string, string>; body?: unknown } | undefined;

/** Runs `az …` in-process against handlers (first one to answer wins; 404 otherwise). */
export async function fakeAz(args: string[], handlers: Handler[], options: { stdinIsTTY?: boolean } = {}) {
  const requests: Recorded[] = [];
  let stdout = '';
  let stderr = '';
  const transport = {
    async send(req: HttpRequest): Promise<HttpResponse> {
      const url = new URL(req.url);
      if (url.pathname === '/adfs/oauth2/token') return { status: 200, headers: {}, text: JSON.stringify({ access_token: 'tok', expires_in: 3599 }) };
      const rec: Recorded = {
        method: req.method,
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: req.body === undefined ? undefined : JSON.parse(req.body),
      };
      requests.push(rec);
      for (const handler of handlers) {
        const res = handler(rec);
        if (res) return { status: res.status, headers: res.headers ?? {}, text: res.body === undefined ? '' : JSON.stringify(res.body) };
      }
      return { status: 404, headers: {}, text: JSON.stringify({ error: { code: 'NotFound', message: `no fake for ${req.method} ${url.pathname}` } }) };
    },
  };
  const stdin = Object.assign(new (await import('node:stream')).PassThrough(), { isTTY: options.stdinIsTTY ?? false });
  const code = await runAz(args, {
    env: {},
    stdout: { write: (s: string) => (stdout += s) },
    stderr: Object.assign(new (await import('node:stream')).Writable({ write: (chunk, _enc, cb) => ((stderr += chunk.toString()), cb()) }), { isTTY: false }),
    stdin,
    endpoint: FAKE_ENDPOINT,
    transport: () => transport,
    sleep: async () => {},
  });
  return { code, stdout, stderr, requests };
}

/** A handler for one method + path (case-insensitive), answering `res`. */
export function on(
  method: string,
  path: string,
  res:
    | { status: number; headers?: Record<string, string>; body?: unknown }
    | ((r: Recorded) => { status: number; headers?: Record<string, string>; body?: unknown }),
): Handler {
  return (req) => (req.method === method && req.path.toLowerCase() === path.toLowerCase() ? (typeof res === 'function' ? res(req) : res) : undefined);
}
