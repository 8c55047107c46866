// The CNI protocol driver of aksemu's plugins (the CNI specification, "Execution" and "Error"; what
// containernetworking/cni pkg/skel does for a Go plugin). A node's /opt/cni/bin/<type> is a wrapper script
// (install.ts) that runs `node main.js <type>` with AKSEMU_NODE_ROOT set: this module reads the CNI_* environment
// and the config on stdin, runs the plugin registered for <type> (registry.ts), and prints the result, or the
// error object with exit status 1. A plugin module only does its command.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CNI_CODES } from '../exec.js';
import { CURRENT_CNI_VERSION } from '../version.js';
import { type Plugin, type PluginCommand, PluginError, type PluginRequest } from './plugin.js';
import { PLUGINS } from './registry.js';

/** What one invocation sees: the process's argv, environment and stdin. */
export interface Invocation {
  argv: string[];
  env: Record<string, string | undefined>;
  stdin: string;
  /** PluginRequest.hostNetns: set when the runtime runs the plugin in its own process (exec.ts). */
  hostNetns?: string;
}

interface Outcome {
  stdout: string;
  code: number;
}

const COMMANDS: ReadonlySet<string> = new Set<PluginCommand>(['ADD', 'DEL', 'CHECK', 'VERSION', 'STATUS', 'GC']);

/** The environment each command needs, as skel's getCmdArgsFromEnv (CNI_NETNS is optional on DEL). */
const REQUIRED_ENV: Record<string, readonly string[]> = {
  ADD: ['CNI_CONTAINERID', 'CNI_NETNS', 'CNI_IFNAME', 'CNI_PATH'],
  CHECK: ['CNI_CONTAINERID', 'CNI_NETNS', 'CNI_IFNAME', 'CNI_PATH'],
  DEL: ['CNI_CONTAINERID', 'CNI_IFNAME', 'CNI_PATH'],
  STATUS: ['CNI_PATH'],
  GC: ['CNI_PATH'],
};

/** CNI_ARGS `K=V;K=V` (skel hands them to the plugin; keys the plugin does not know are its business). */
export function parseCniArgs(text: string | undefined): Record<string, string> {
  const args = Object.create(null) as Record<string, string>;
  for (const pair of (text ?? '').split(';')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new PluginError(CNI_CODES.invalidEnv, 'ARGS: invalid pair', pair);
    args[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return args;
}

function errorOutput(cniVersion: string, code: number, msg: string, details?: string): Outcome {
  return { stdout: `${JSON.stringify({ cniVersion, code, msg, ...(details ? { details } : {}) })}\n`, code: 1 };
}

function parseConfig(stdin: string): Record<string, unknown> {
  let config: unknown;
  try {
    config = JSON.parse(stdin);
  } catch (e) {
    throw new PluginError(CNI_CODES.decodeFailure, 'error reading network config', (e as Error).message);
  }
  if (config === null || typeof config !== 'object' || Array.isArray(config))
    throw new PluginError(CNI_CODES.decodeFailure, 'network config is not a JSON object');
  return config as Record<string, unknown>;
}

/** One invocation of a plugin, as a pure function of what the process got (tests call it directly). */
export async function invoke(call: Invocation, plugins: Record<string, Plugin> = PLUGINS): Promise<Outcome> {
  const type = call.argv[2] ?? '';
  const plugin = Object.hasOwn(plugins, type) ? plugins[type] : undefined;
  let cniVersion = CURRENT_CNI_VERSION;
  try {
    if (!plugin) throw new PluginError(CNI_CODES.invalidConfig, `aksemu has no CNI plugin "${type}"`);
    const command = call.env['CNI_COMMAND'] ?? '';
    if (command === '') throw new PluginError(CNI_CODES.invalidEnv, 'required env variables [CNI_COMMAND] missing');
    if (!COMMANDS.has(command)) throw new PluginError(CNI_CODES.invalidEnv, `unknown CNI_COMMAND: ${command}`);
    // VERSION answers whatever the config says (skel encodes the plugin's version info with the current spec).
    if (command === 'VERSION') return { stdout: `${JSON.stringify({ cniVersion, supportedVersions: plugin.supportedVersions })}\n`, code: 0 };
    const config = parseConfig(call.stdin);
    if (typeof config['cniVersion'] === 'string' && config['cniVersion'] !== '') cniVersion = config['cniVersion'];
    const args = parseCniArgs(call.env['CNI_ARGS']);
    const addressOnly = args['AKSEMU_ADDRESS_ONLY'] === 'true';
    // Without a data plane there is no namespace to wire: an address-only ADD or CHECK needs no CNI_NETNS.
    const missing = (REQUIRED_ENV[command] ?? []).filter((k) => !call.env[k] && !(k === 'CNI_NETNS' && addressOnly));
    if (missing.length > 0) throw new PluginError(CNI_CODES.invalidEnv, `required env variables [${missing.join(' ')}] missing`);
    if (!plugin.supportedVersions.includes(cniVersion)) {
      throw new PluginError(
        CNI_CODES.incompatibleVersion,
        'incompatible CNI versions',
        `config is "${cniVersion}", plugin supports [${plugin.supportedVersions.map((v) => `"${v}"`).join(' ')}]`,
      );
    }
    const nodeRoot = call.env['AKSEMU_NODE_ROOT'] ?? '';
    if (nodeRoot === '') throw new PluginError(CNI_CODES.invalidEnv, 'AKSEMU_NODE_ROOT is not set (run the plugin through its node wrapper)');
    const req: PluginRequest = {
      command: command as PluginRequest['command'],
      containerId: call.env['CNI_CONTAINERID'] ?? '',
      netns: call.env['CNI_NETNS'] ?? '',
      ifName: call.env['CNI_IFNAME'] ?? '',
      args,
      path: (call.env['CNI_PATH'] ?? '').split(':').filter((d) => d !== ''),
      config,
      nodeRoot,
      addressOnly,
      ...(call.hostNetns ? { hostNetns: call.hostNetns } : {}),
    };
    const result = await plugin.run(req);
    return { stdout: result === undefined ? '' : `${JSON.stringify({ ...result, cniVersion })}\n`, code: 0 };
  } catch (e) {
    if (e instanceof PluginError) return errorOutput(cniVersion, e.code, e.message, e.details);
    return errorOutput(cniVersion, 999, (e as Error)?.message ?? String(e));
  }
}

function readStdin(): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    process.stdin.on('data', (b: Buffer) => chunks.push(b));
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** The process entry: reads stdin, runs, writes stdout, sets the exit status. */
export async function pluginMain(plugins: Record<string, Plugin> = PLUGINS): Promise<void> {
  const out = await invoke({ argv: process.argv, env: process.env, stdin: await readStdin() }, plugins);
  process.stdout.write(out.stdout, () => {
    process.exitCode = out.code;
  });
}

function isEntry(): boolean {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntry()) void pluginMain();
