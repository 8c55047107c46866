// Running one CNI plugin binary the way a container runtime does (the CNI specification's "Execution" section; docs/dataplane.md §6.1): the command and
// context go in CNI_* environment variables, the network configuration on stdin, the result or an error
// object on stdout. The environment is scrubbed to PATH + CNI_*, so nothing of ours leaks into a plugin.
import { spawn } from 'node:child_process';
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PLUGIN_MAIN, pluginWrapper } from './plugins/install.js';

export type CniCommand = 'ADD' | 'DEL' | 'CHECK' | 'VERSION' | 'STATUS' | 'GC';

interface PluginCall {
  command: CniCommand;
  /** The plugin's type: the binary looked up in `path`. */
  type: string;
  /** Directories searched in order (CNI_PATH). */
  path: string[];
  /** The JSON written to the plugin's stdin. */
  config: Record<string, unknown>;
  containerId?: string;
  /** Network namespace path (e.g. /run/netns/NAME); required by ADD/CHECK. */
  netns?: string;
  ifName?: string;
  /** CNI_ARGS as key=value pairs (IgnoreUnknown=1 is added first). */
  args?: Record<string, string>;
  /** Runs the plugin inside this network namespace (nsenter --net=PATH), e.g. the node's. */
  hostNetns?: string;
  timeoutMs?: number;
  /** The binary when the caller already resolved it (findPlugin); skips the search. */
  binary?: string;
}

/** A plugin's error object (spec "Error"), or one we make when the plugin could not run. */
interface CniErrorObject {
  cniVersion?: string;
  code: number;
  msg: string;
  details?: string;
}

/** Which plugin of a list failed and on what command, as libcni words it: `plugin type="bridge" failed (add)`. */
export interface CniErrorContext {
  type: string;
  command: CniCommand;
  name?: string;
}

export class CniError extends Error {
  constructor(
    readonly error: CniErrorObject,
    readonly context?: CniErrorContext,
  ) {
    const text = error.details ? `${error.msg}: ${error.details}` : error.msg;
    const where = context ? `plugin type="${context.type}"${context.name ? ` name="${context.name}"` : ''} failed (${context.command.toLowerCase()}): ` : '';
    super(where + text);
    this.name = 'CniError';
  }

  /** The same error, said to come from a plugin of a list (keeps the plugin's error object intact). */
  inPlugin(context: CniErrorContext): CniError {
    return this.context ? this : new CniError(this.error, context);
  }
}

/** Well-known error codes (spec "Error codes"); 999 is what many plugins use for anything else. */
export const CNI_CODES = {
  incompatibleVersion: 1,
  unsupportedField: 2,
  unknownContainer: 3,
  invalidEnv: 4,
  ioFailure: 5,
  decodeFailure: 6,
  invalidConfig: 7,
  tryLater: 11,
  /** STATUS (1.1.0): the plugin cannot service ADD. */
  pluginNotAvailable: 50,
  /** STATUS (1.1.0): not available, and existing attachments may have limited connectivity. */
  pluginNotAvailableLimitedConnectivity: 51,
} as const;

/** The commands that act on one attachment and so carry CNI_CONTAINERID, CNI_NETNS, CNI_IFNAME and CNI_ARGS. */
const ATTACHMENT_COMMANDS: ReadonlySet<CniCommand> = new Set(['ADD', 'DEL', 'CHECK']);

/** The plugin binary for a type, first match in the search path; undefined when none is executable. */
export function findPlugin(type: string, path: string[]): string | undefined {
  if (type === '' || type.includes('/')) return undefined;
  for (const dir of path) {
    const candidate = join(dir, type);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function cniArgs(args: Record<string, string> | undefined): string {
  return ['IgnoreUnknown=1', ...Object.entries(args ?? {}).map(([k, v]) => `${k}=${v}`)].join(';');
}

/** What a plugin binary was found to be, by path, while its mtime and size stay (ownWrapper). */
const wrappers = new Map<string, { stamp: string; own: { nodeRoot: string; type: string } | undefined }>();
const WRAPPER_ROOT = /^#!\/bin\/sh\nAKSEMU_NODE_ROOT=('(?:[^']|'\\'')*') exec /;

/**
 * The node root and type when `binary` is aksemu's wrapper of one of its own plugins that would run this very
 * module tree with this very Node.js (install.ts: `exec <this node> <this main.js> <type>`); else undefined. Its
 * process would only do, ~0.3 s of CPU later, what this process can do itself.
 */
function ownWrapper(binary: string, type: string): { nodeRoot: string; type: string } | undefined {
  let stamp: string;
  try {
    const st = statSync(binary);
    if (st.size > 4096) return undefined;
    stamp = `${st.mtimeMs}:${st.size}`;
  } catch {
    return undefined;
  }
  const known = wrappers.get(binary);
  if (known?.stamp === stamp) return known.own;
  let own: { nodeRoot: string; type: string } | undefined;
  try {
    const text = readFileSync(binary, 'utf8');
    const quoted = WRAPPER_ROOT.exec(text)?.[1];
    const nodeRoot = quoted?.slice(1, -1).split("'\\''").join("'");
    if (nodeRoot !== undefined && text === pluginWrapper(nodeRoot, type, PLUGIN_MAIN)) own = { nodeRoot, type };
  } catch {
    own = undefined;
  }
  wrappers.set(binary, { stamp, own });
  return own;
}

/**
 * One of aksemu's own plugins run in this process (ownWrapper): the same protocol driver (plugins/main.ts) gets the
 * environment the wrapper would have had and the config as stdin; what it would have done where its process runs
 * (`nsenter --net=<hostNetns>`) it does in hostNetns. Its output is read back as a process's would be.
 */
async function runOwn(call: PluginCall, own: { nodeRoot: string; type: string }, env: Record<string, string>): Promise<PluginOutput> {
  const { invoke } = await import('./plugins/main.js');
  const timeoutMs = call.timeoutMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<PluginOutput>((resolve) => {
    timer = setTimeout(() => resolve({ code: null, signal: 'SIGKILL', stdout: '', stderr: '', timedOut: true }), timeoutMs);
  });
  const ran = invoke({
    argv: [process.execPath, PLUGIN_MAIN, own.type],
    env: { ...env, AKSEMU_NODE_ROOT: own.nodeRoot },
    stdin: JSON.stringify(call.config),
    ...(call.hostNetns ? { hostNetns: call.hostNetns } : {}),
  }).then((out): PluginOutput => ({ code: out.code, signal: null, stdout: out.stdout, stderr: '', timedOut: false }));
  try {
    return await Promise.race([ran, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** How a plugin ended: its exit status or signal, and what it printed. */
interface PluginOutput {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** A plugin's ending read as libcni does: the parsed result on success, else the CniError it stands for. */
function settle(call: PluginCall, out: PluginOutput, timeoutMs: number): Record<string, unknown> | undefined {
  const stdout = out.stdout.trim();
  let parsed: Record<string, unknown> | undefined;
  try {
    parsed = stdout === '' ? undefined : (JSON.parse(stdout) as Record<string, unknown>);
  } catch {
    parsed = undefined;
  }
  if (out.code === 0) {
    if (stdout !== '' && parsed === undefined) {
      throw new CniError({ code: CNI_CODES.decodeFailure, msg: `plugin "${call.type}" printed invalid JSON`, details: stdout.slice(0, 200) });
    }
    return parsed;
  }
  // Spec: non-zero exit with an error object on stdout. Plugins often omit cniVersion (parse loosely).
  if (parsed && typeof parsed['msg'] === 'string') {
    const e: CniErrorObject = { code: Number(parsed['code'] ?? 999), msg: parsed['msg'] };
    if (typeof parsed['details'] === 'string' && parsed['details'] !== '') e.details = parsed['details'];
    if (typeof parsed['cniVersion'] === 'string') e.cniVersion = parsed['cniVersion'];
    throw new CniError(e);
  }
  const why = out.timedOut ? `timed out after ${timeoutMs} ms` : out.signal ? `killed by ${out.signal}` : `exit status ${out.code}`;
  const stderr = out.stderr.trim();
  throw new CniError({ code: 999, msg: `plugin "${call.type}" failed (${why})`, ...(stderr || stdout ? { details: (stderr || stdout).slice(0, 500) } : {}) });
}

/**
 * Executes the plugin and returns its parsed stdout (undefined when it printed nothing, as DEL may).
 * Throws CniError with the plugin's error object when it exits non-zero (or ours: not found, timeout, bad JSON).
 */
export function execPlugin(call: PluginCall): Promise<Record<string, unknown> | undefined> {
  const binary = call.binary ?? findPlugin(call.type, call.path);
  if (!binary) {
    return Promise.reject(new CniError({ code: CNI_CODES.invalidConfig, msg: `failed to find plugin "${call.type}" in path [${call.path.join(' ')}]` }));
  }
  const env: Record<string, string> = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', CNI_COMMAND: call.command, CNI_PATH: call.path.join(':') };
  // VERSION, STATUS and GC concern the plugin or the network, not an attachment (libcni passes no container).
  if (ATTACHMENT_COMMANDS.has(call.command)) {
    if (call.containerId !== undefined) env['CNI_CONTAINERID'] = call.containerId;
    if (call.netns !== undefined) env['CNI_NETNS'] = call.netns;
    if (call.ifName !== undefined) env['CNI_IFNAME'] = call.ifName;
    env['CNI_ARGS'] = cniArgs(call.args);
  }
  const timeoutMs = call.timeoutMs ?? 60_000;
  const own = ownWrapper(binary, call.type);
  if (own) return runOwn(call, own, env).then((out) => settle(call, out, timeoutMs));
  const [file, argv] = call.hostNetns ? ['nsenter', [`--net=${call.hostNetns}`, binary]] : [binary, []];
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv as string[], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new CniError({ code: CNI_CODES.ioFailure, msg: `failed to run plugin "${call.type}"`, details: e.message }));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      try {
        resolve(settle(call, { code, signal, stdout, stderr, timedOut }, timeoutMs));
      } catch (e) {
        reject(e);
      }
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(call.config));
  });
}
