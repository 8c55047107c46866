// The container runtime's own memory of the sandboxes it runs, per node, on disk under the node's directory
// (nodes/<node>/run/sandboxes/<pod uid>.json), as containerd keeps its sandbox metadata: after a restart the
// kubelet finds each running pod's sandbox id again (so its address can be restored and later released), and
// sandboxes whose pod is gone can be torn down. A restart reads them node by node after serving (pod-lifecycle.ts).
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodesDir } from '../nodefs/paths.js';

export interface SandboxRecord {
  uid: string;
  namespace: string;
  name: string;
  sandboxId: string;
  hostNetwork: boolean;
  ip: string;
}

export class SandboxRecords {
  /** Nodes whose sandboxes directory this process made or wrote to: their next records are one write each. */
  private readonly made = new Set<string>();

  constructor(private readonly root: () => string) {}

  static forCluster(home: string, cluster: () => { resourceGroup: string; name: string }): SandboxRecords {
    return new SandboxRecords(() => nodesDir(home, cluster().resourceGroup, cluster().name));
  }

  private dir(node: string): string {
    return join(this.root(), node, 'run', 'sandboxes');
  }

  save(node: string, record: SandboxRecord): void {
    const dir = this.dir(node);
    const file = join(dir, `${record.uid}.json`);
    const text = `${JSON.stringify(record)}\n`;
    if (this.made.has(node)) {
      try {
        return writeFileSync(file, text);
      } catch {
        // The node's directory went (the node was removed and came back): made again below.
      }
    }
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, text);
    this.made.add(node);
  }

  load(node: string, uid: string): SandboxRecord | undefined {
    return read(join(this.dir(node), `${uid}.json`));
  }

  remove(node: string, uid: string): void {
    rmSync(join(this.dir(node), `${uid}.json`), { force: true });
  }

  /** The nodes that have a directory here: each may hold records. */
  nodes(): string[] {
    try {
      return readdirSync(this.root());
    } catch {
      return [];
    }
  }

  /** Every record on one node (its directory is found once: a restart reads every running pod's). */
  onNode(node: string): SandboxRecord[] {
    const dir = this.dir(node);
    let files: string[];
    try {
      files = readdirSync(dir);
    } catch {
      return [];
    }
    const out: SandboxRecord[] = [];
    for (const f of files) {
      if (!f.endsWith('.json')) continue;
      const record = read(join(dir, f));
      if (record) out.push(record);
    }
    return out;
  }
}

/** One buffer for reading records (each ~200 bytes), shared: a restart reads every running pod's. */
const RECORD_BUFFER = Buffer.allocUnsafe(16 * 1024);

/**
 * A record, by an open, one read and a close: readFileSync costs a call more per file and ~20% more CPU over a
 * restart's 13,007 records (docs/performance.md §2.12). One that fills the buffer may go on: it is read whole.
 */
function read(file: string): SandboxRecord | undefined {
  try {
    const fd = openSync(file, 'r');
    let length: number;
    try {
      length = readSync(fd, RECORD_BUFFER, 0, RECORD_BUFFER.length, 0);
    } finally {
      closeSync(fd);
    }
    const text = length < RECORD_BUFFER.length ? RECORD_BUFFER.toString('utf8', 0, length) : readFileSync(file, 'utf8');
    return JSON.parse(text) as SandboxRecord;
  } catch {
    return undefined;
  }
}
