// The execution layer: iproute2 in batches (`nsenter --net=… ip -force -b -`, `bridge` likewise), one sysctl process per
// namespace, nft tables loaded atomically with `nft -f -`. nsenter rather than `ip netns exec`/`ip -n`:
// those copy the mount table on every call and get slower as namespaces accumulate (docs/dataplane.md §7.3, §8.8).
// Only `netns add|del` ever runs in the root namespace.
import { spawn } from 'node:child_process';
import { readdirSync, readlinkSync, statSync } from 'node:fs';
import { Cidr } from '../../net/ip.js';

export const NETNS_DIR = '/run/netns';
export const netnsPath = (netns: string): string => `${NETNS_DIR}/${netns}`;

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A bounded number of child processes at once: 200 concurrent attaches must not fork 600 processes. */
const MAX_CHILDREN = 16;
let running = 0;
const waiting: Array<() => void> = [];

async function slot<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= MAX_CHILDREN) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await fn();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

export function run(file: string, args: string[], input?: string, timeoutMs = 60_000): Promise<RunResult> {
  return slot(
    () =>
      new Promise((resolve, reject) => {
        const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'] });
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
        child.stdout.on('data', (b: Buffer) => out.push(b));
        child.stderr.on('data', (b: Buffer) => err.push(b));
        child.on('error', (e) => {
          clearTimeout(timer);
          reject(new Error(`cannot run ${file}: ${e.message}`));
        });
        child.on('close', (code, signal) => {
          clearTimeout(timer);
          resolve({ code: code ?? (signal ? 128 : 1), stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() });
        });
        child.stdin.on('error', () => undefined);
        child.stdin.end(input ?? '');
      }),
  );
}

/** argv prefix that runs a program inside a named namespace. */
export function inNetns(netns: string, file: string, args: string[]): [string, string[]] {
  return ['nsenter', [`--net=${netnsPath(netns)}`, file, ...args]];
}

async function runChecked(netns: string, file: string, args: string[], input?: string): Promise<RunResult> {
  const [f, a] = inNetns(netns, file, args);
  const r = await run(f, a, input);
  if (r.code !== 0) throw new Error(`${file} ${args.join(' ')} in ${netns} failed: ${(r.stderr || r.stdout).trim()}`);
  return r;
}

/** Sets sysctls of one namespace in one process (/proc/sys/net shows the caller's namespace only). */
export async function sysctl(netns: string, values: Record<string, string | number>): Promise<void> {
  const kv = Object.entries(values).map(([k, v]) => `${k}=${v}`);
  if (kv.length) await runChecked(netns, 'sysctl', ['-qw', ...kv]);
}

/** Loads nft text in one transaction (a table is declared, deleted and declared again: an atomic replace). */
export async function nftLoad(netns: string, text: string): Promise<void> {
  await runChecked(netns, 'nft', ['-f', '-'], text);
}

/** Replaces one nft table atomically; `body` undefined removes it. */
export function nftTable(family: string, name: string, body: string | undefined): string {
  return `table ${family} ${name}\ndelete table ${family} ${name}\n${body === undefined ? '' : `table ${family} ${name} {\n${body}\n}\n`}`;
}

/**
 * An nft anonymous set of IPv4 prefixes, `{ a, b }`. Prefixes inside another are dropped: nft refuses
 * overlapping intervals in one set.
 */
export function nftAddressSet(prefixes: string[]): string {
  const cidrs = [...new Set(prefixes)].map((p) => Cidr.parse(p.includes('/') ? p : `${p}/32`, { canonical: false, family: 4 }));
  const kept = cidrs.filter((c, i) => !cidrs.some((o, j) => j !== i && o.containsCidr(c) && (!c.containsCidr(o) || j < i)));
  return `{ ${kept.map((c) => c.toString()).join(', ')} }`;
}

/** An iproute2 batch line; `mayFail` lines (deletes of what may be gone) do not fail the batch. */
export type IpCmd = string | { line: string; mayFail: true };
export const mayFail = (line: string): IpCmd => ({ line, mayFail: true });

/** The iproute2 tools that take batches: `ip`, and `bridge` for FDB entries (which have no `ip` verb). */
export type BatchTool = 'ip' | 'bridge';

interface Pending {
  cmds: IpCmd[];
  resolve: () => void;
  reject: (e: Error) => void;
}

/**
 * Runs iproute2 batches, one `ip -force -b -` process at a time per namespace. Requests that arrive while
 * one is running are coalesced into the next process, so many concurrent pod attaches on one node cost a
 * few processes, not one each. `Command failed -:N` on stderr is mapped back to the request owning line N.
 */
export class IpBatcher {
  private readonly queues = new Map<string, Pending[]>();
  private readonly busy = new Set<string>();

  /** `netns` null: the root namespace, which only ever gets `ip netns add|del` lines. */
  batch(netns: string | null, cmds: IpCmd[], tool: BatchTool = 'ip'): Promise<void> {
    if (cmds.length === 0) return Promise.resolve();
    if (netns === null && (tool !== 'ip' || cmds.some((c) => !/^netns (add|del) \S+$/.test(typeof c === 'string' ? c : c.line)))) {
      return Promise.reject(new Error('only netns add|del may run in the root namespace'));
    }
    const key = `${tool} ${netns ?? ''}`;
    return new Promise((resolve, reject) => {
      const q = this.queues.get(key) ?? [];
      q.push({ cmds, resolve, reject });
      this.queues.set(key, q);
      if (!this.busy.has(key)) void this.drain(key, netns, tool);
    });
  }

  private async drain(key: string, netns: string | null, tool: BatchTool): Promise<void> {
    this.busy.add(key);
    try {
      for (let q = this.queues.get(key); q && q.length; q = this.queues.get(key)) {
        this.queues.delete(key);
        await this.runBatch(netns, q, tool);
      }
    } finally {
      this.busy.delete(key);
    }
  }

  private async runBatch(netns: string | null, reqs: Pending[], tool: BatchTool): Promise<void> {
    const lines: string[] = [];
    const owner: Array<{ req: number; mayFail: boolean }> = [];
    reqs.forEach((r, i) => {
      for (const c of r.cmds) {
        lines.push(typeof c === 'string' ? c : c.line);
        owner.push({ req: i, mayFail: typeof c !== 'string' });
      }
    });
    const [file, args] = netns === null ? [tool, ['-force', '-b', '-']] : inNetns(netns, tool, ['-force', '-b', '-']);
    let result: RunResult;
    try {
      result = await run(file, args as string[], `${lines.join('\n')}\n`);
    } catch (e) {
      for (const r of reqs) r.reject(e as Error);
      return;
    }
    const failures = new Map<number, string[]>();
    let message: string[] = [];
    let mapped = 0;
    for (const l of result.stderr.split('\n')) {
      const m = /^Command failed -:(\d+)$/.exec(l.trim());
      if (!m) {
        if (l.trim()) message.push(l.trim());
        continue;
      }
      const n = Number(m[1]) - 1;
      mapped++;
      const o = owner[n];
      if (o && !o.mayFail) {
        const list = failures.get(o.req) ?? [];
        list.push(`${lines[n]}: ${message.join(' ') || 'failed'}`);
        failures.set(o.req, list);
      }
      message = [];
    }
    const where = netns ?? 'the root namespace';
    // Exit status 1 with every failure accounted for is -force's normal report; anything else (a parse
    // error aborts the whole batch with 255) fails every request of the batch.
    const unexplained = result.code !== 0 && (mapped === 0 || result.code !== 1);
    reqs.forEach((r, i) => {
      const f = failures.get(i);
      if (unexplained) r.reject(new Error(`${tool} -b in ${where} failed (exit ${result.code}): ${result.stderr.trim().slice(0, 500)}`));
      else if (f) r.reject(new Error(`${tool} in ${where}: ${f.join('; ')}`));
      else r.resolve();
    });
  }
}

/** This instance's namespaces that exist now (names with the prefix). */
export function listNetns(owns: (name: string) => boolean): string[] {
  try {
    return readdirSync(NETNS_DIR).filter(owns);
  } catch {
    return [];
  }
}

/**
 * Kills every process inside the given namespaces (a process keeps a deleted namespace alive, invisibly:
 * pitfall 10). One pass over /proc: a namespace's inode is the `net:[INODE]` its processes link to.
 */
export function killNetnsProcesses(names: string[]): void {
  const inodes = new Set<string>();
  for (const n of names) {
    try {
      inodes.add(`net:[${statSync(netnsPath(n)).ino}]`);
    } catch {
      // already gone
    }
  }
  if (inodes.size === 0) return;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      if (inodes.has(readlinkSync(`/proc/${pid}/ns/net`))) process.kill(Number(pid), 'SIGKILL');
    } catch {
      // exited meanwhile
    }
  }
}
