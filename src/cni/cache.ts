// The result cache, in libcni's on-disk format: <cacheDir>/results/<network>-<containerId>-<ifName> holding
// {kind:"cniCacheV1", containerId, config, ifName, networkName, netns, cniArgs, capabilityArgs, result}.
// `config` is base64 because libcni marshals it from a Go []byte; keeping the format means the files can be read
// by libcni-based tools (cnitool, containerd) and vice versa. The cache is what CHECK and DEL use as prevResult and
// what GC compares with the valid attachments.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CACHE_KIND = 'cniCacheV1';

export interface CachedAttachment {
  kind: typeof CACHE_KIND;
  containerId: string;
  /** The network config list, base64 (libcni: []byte). */
  config: string;
  ifName: string;
  networkName: string;
  netns?: string;
  /** CNI_ARGS as [key, value] pairs, IgnoreUnknown first. */
  cniArgs?: Array<[string, string]>;
  capabilityArgs?: Record<string, unknown>;
  result?: Record<string, unknown>;
}

interface AttachmentKey {
  networkName: string;
  containerId: string;
  ifName: string;
}

export class ResultCache {
  constructor(readonly dir: string) {}

  private get resultsDir(): string {
    return join(this.dir, 'results');
  }

  path(key: AttachmentKey): string {
    return join(this.resultsDir, `${key.networkName}-${key.containerId}-${key.ifName}`);
  }

  write(entry: CachedAttachment): void {
    mkdirSync(this.resultsDir, { recursive: true, mode: 0o700 });
    const file = this.path(entry);
    // Write then rename: a crash never leaves a half-written entry that DEL would then discard.
    const tmp = `${file}.tmp-${process.pid}`;
    writeFileSync(tmp, JSON.stringify(entry), { mode: 0o600 });
    renameSync(tmp, file);
  }

  /** The entry, or undefined when there is none; `corrupt` when the file exists but is not a v1 entry. */
  read(key: AttachmentKey): CachedAttachment | 'corrupt' | undefined {
    let text: string;
    try {
      text = readFileSync(this.path(key), 'utf8');
    } catch {
      return undefined;
    }
    try {
      const parsed = JSON.parse(text) as Partial<CachedAttachment>;
      return parsed && parsed.kind === CACHE_KIND ? (parsed as CachedAttachment) : 'corrupt';
    } catch {
      return 'corrupt';
    }
  }

  remove(key: AttachmentKey): void {
    rmSync(this.path(key), { force: true });
  }

  /** Every valid v1 entry (optionally of one network), in file name order as libcni's GetCachedAttachments. */
  list(networkName?: string): CachedAttachment[] {
    let names: string[];
    try {
      names = readdirSync(this.resultsDir)
        .filter((n) => !n.includes('.tmp-'))
        .sort();
    } catch {
      return [];
    }
    const out: CachedAttachment[] = [];
    for (const name of names) {
      try {
        const entry = JSON.parse(readFileSync(join(this.resultsDir, name), 'utf8')) as Partial<CachedAttachment>;
        if (entry?.kind !== CACHE_KIND || !entry.ifName || !entry.networkName || !entry.containerId) continue;
        if (networkName !== undefined && entry.networkName !== networkName) continue;
        out.push(entry as CachedAttachment);
      } catch {
        // unreadable entries are skipped, as libcni does
      }
    }
    return out;
  }
}
