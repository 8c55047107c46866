// Choosing the data plane for `aksemu start --dataplane none|netns`. netns is checked up front (root,
// a working `ip netns`, nft) and its driver is loaded by a dynamic import, so the server builds and runs
// without it; anything missing is one clear sentence for the user, never a stack trace.
import { spawnSync } from 'node:child_process';
import { NullDataplane, type Dataplane, type DataplaneMode } from './dataplane.js';

export const DATAPLANE_MODES: readonly DataplaneMode[] = ['none', 'netns'];

/** Why this process cannot run the netns data plane, or undefined when it can. */
export function netnsPrerequisiteProblem(): string | undefined {
  if (process.platform !== 'linux') return `--dataplane netns needs Linux network namespaces (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return '--dataplane netns needs root (it creates network namespaces); run aksemu start as root, or use --dataplane none';
  const tool = (file: string, args: string[], hint: string): string | undefined => {
    const r = spawnSync(file, args, { encoding: 'utf8', timeout: 10_000 });
    if (r.error) return `--dataplane netns needs ${file}, which is not installed (${hint})`;
    if (r.status !== 0) return `--dataplane netns needs a working '${[file, ...args].join(' ')}': ${(r.stderr || r.stdout).trim() || `exit ${r.status}`}`;
    return undefined;
  };
  return tool('ip', ['netns', 'list'], 'Debian: apt-get install iproute2') ?? tool('nft', ['--version'], 'Debian: apt-get install nftables');
}

export class DataplaneUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DataplaneUnavailableError';
  }
}

export interface DataplaneLoadOptions {
  home: string;
  log: (line: string) => void;
}

/** What the netns driver module exports (src/dataplane/netns/index.ts). */
interface NetnsModule {
  NetnsDataplane?: new (options: DataplaneLoadOptions) => Dataplane;
}

// A variable, so TypeScript does not resolve (and require) the module at build time.
const NETNS_MODULE = './netns/index.js';

export async function loadDataplane(mode: DataplaneMode, options: DataplaneLoadOptions): Promise<Dataplane> {
  if (mode === 'none') return new NullDataplane();
  const problem = netnsPrerequisiteProblem();
  if (problem) throw new DataplaneUnavailableError(problem);
  let mod: NetnsModule;
  try {
    mod = (await import(NETNS_MODULE)) as NetnsModule;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND')
      throw new DataplaneUnavailableError('--dataplane netns is not available in this build: the netns driver (dataplane/netns) is missing');
    throw new DataplaneUnavailableError(`the netns driver could not be loaded: ${(err as Error).message}`);
  }
  if (typeof mod.NetnsDataplane !== 'function') throw new DataplaneUnavailableError('the netns driver module does not export NetnsDataplane');
  return new mod.NetnsDataplane(options);
}
