// Running one CNI plugin binary the way a container runtime does (the CNI specification's "Execution" section; docs/dataplane.md §6.1): the command and
// context go in CNI_* environment variables, the network configuration on stdin, the result or an error
// object on stdout. The environment is scrubbed to PATH + CNI_*, so nothing of ours leaks into a plugin.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';

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
  const [file, argv] = call.hostNetns ? ['nsenter', [`--net=${call.hostNetns}`, binary]] : [binary, []];
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv as string[], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const timeoutMs = call.timeoutMs ?? 60_000;
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
      const stdout = Buffer.concat(out).toString('utf8').trim();
      let parsed: Record<string, unknown> | undefined;
      try {
        parsed = stdout === '' ? undefined : (JSON.parse(stdout) as Record<string, unknown>);
      } catch {
        parsed = undefined;
      }
      if (code === 0) {
        if (stdout !== '' && parsed === undefined) {
          reject(new CniError({ code: CNI_CODES.decodeFailure, msg: `plugin "${call.type}" printed invalid JSON`, details: stdout.slice(0, 200) }));
        } else resolve(parsed);
        return;
      }
      // Spec: non-zero exit with an error object on stdout. Plugins often omit cniVersion (parse loosely).
      if (parsed && typeof parsed['msg'] === 'string') {
        const e: CniErrorObject = { code: Number(parsed['code'] ?? 999), msg: parsed['msg'] };
        if (typeof parsed['details'] === 'string' && parsed['details'] !== '') e.details = parsed['details'];
        if (typeof parsed['cniVersion'] === 'string') e.cniVersion = parsed['cniVersion'];
        reject(new CniError(e));
        return;
      }
      const why = timedOut ? `timed out after ${timeoutMs} ms` : signal ? `killed by ${signal}` : `exit status ${code}`;
      const stderr = Buffer.concat(err).toString('utf8').trim();
      reject(
        new CniError({ code: 999, msg: `plugin "${call.type}" failed (${why})`, ...(stderr || stdout ? { details: (stderr || stdout).slice(0, 500) } : {}) }),
      );
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(call.config));
  });
}
