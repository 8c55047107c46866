// The container runtime's own memory of the sandboxes it runs, per node, on disk under the node's directory, as
// containerd keeps its sandbox metadata: after a restart the kubelet finds each running pod's sandbox id again (so its
// address can be restored and later released), and sandboxes whose pod is gone can be torn down. A restart reads them
// node by node after serving (pod-lifecycle.ts).
//
// A node's records are one file, nodes/<node>/run/sandboxes.jsonl: a line per record saved and a line per record
// removed ({"removed": <uid>}), the last line of a uid winning, so a restart reads a node in one read where it read a
// file per running pod (docs/performance.md §2.19). Each line is one write of the whole line, so a kill -9 leaves
// every line written before it; a line cut short (a full disk) is skipped and the file rewritten at the next read.
// The file is rewritten whole (to a temporary file, then renamed over it) when it holds twice the lines it needs.
// Earlier builds kept a file per record (nodes/<node>/run/sandboxes/<pod uid>.json): a node's are still read, under
// the newer lines, and moved into the node's file by its first read; their dir is then moved aside (one rename) and
// removed off the event loop once a restart has read every node (sweep): removing them is most of the move's cost.
import { appendFileSync, closeSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { nodesDir } from '../nodefs/paths.js';

export interface SandboxRecord {
  uid: string;
  namespace: string;
  name: string;
  sandboxId: string;
  hostNetwork: boolean;
  ip: string;
}

/** A node's file as read: its records by uid, and whether it should be written again (what it holds is not all needed). */
interface NodeRead {
  records: Map<string, SandboxRecord>;
  /** Lines of the node's file (records and removals). */
  lines: number;
  /** Something to rewrite: a line that did not parse, lines no longer needed, or files of the earlier layout. */
  untidy: boolean;
  /** The earlier layout's dir was there. */
  perFile: boolean;
}

/** A file's lines are rewritten once they are more than twice the records they hold, and this many more. */
const SLACK_LINES = 32;

export class SandboxRecords {
  /** Per node written to, the lines its file has and the records it held when it was last read or rewritten. */
  private readonly sizes = new Map<string, { lines: number; records: number }>();
  /** Nodes whose records from before this process were read (onNode): load answers for them from `left`. */
  private readonly read = new Set<string>();
  /** Records from before this process that the reader of their node left (leave): a sandbox to release. */
  private readonly left = new Map<string, Map<string, SandboxRecord>>();
  /** Earlier layout's dirs moved aside by this process (moveAside), not swept yet. */
  private movedCount = 0;

  constructor(private readonly root: () => string) {}

  static forCluster(home: string, cluster: () => { resourceGroup: string; name: string }): SandboxRecords {
    return new SandboxRecords(() => nodesDir(home, cluster().resourceGroup, cluster().name));
  }

  private runDir(node: string): string {
    return join(this.root(), node, 'run');
  }

  /** The node's records file. */
  private file(node: string): string {
    return join(this.runDir(node), 'sandboxes.jsonl');
  }

  /** Where the earlier layout's dirs are moved once their records are in their node's file, until swept. */
  private moved(): string {
    return join(dirname(this.root()), 'sandboxes-moved');
  }

  /** The earlier layout's dir: a file per record. */
  private perFileDir(node: string): string {
    return join(this.runDir(node), 'sandboxes');
  }

  save(node: string, record: SandboxRecord): void {
    this.append(node, `${JSON.stringify(record)}\n`, true);
  }

  remove(node: string, uid: string): void {
    this.left.get(node)?.delete(uid);
    this.append(node, `${JSON.stringify({ removed: uid })}\n`, false);
  }

  /**
   * One line at the end of the node's file (one write), the file rewritten when most of it is no longer needed. A
   * removal on a node whose directory is gone (the node was deleted) writes nothing: there is nothing to remove.
   */
  private append(node: string, line: string, create: boolean): void {
    const file = this.file(node);
    try {
      appendFileSync(file, line);
    } catch (e) {
      // No run directory yet, or the node's directory went (the node was removed and came back).
      this.left.delete(node);
      this.sizes.delete(node);
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      if (!create) return;
      mkdirSync(this.runDir(node), { recursive: true });
      appendFileSync(file, line);
    }
    const size = this.sizes.get(node);
    if (!size) return void this.sizes.set(node, { lines: 1, records: 0 });
    size.lines++;
    if (size.lines > 2 * size.records + SLACK_LINES) this.tidy(node, this.readNode(node));
  }

  /**
   * The record of a sandbox from before this process, if any: one the reader of its node left (leave) and not removed
   * since. A node no restart read (one made in this process, or whose dir came later) is read at its first ask, its
   * records kept as a reader leaves them, so each new sandbox asks memory, not the node's file
   * (docs/performance.md §2.22). A record this process saves is not one to release: its worker removes it when the
   * sandbox goes.
   */
  load(node: string, uid: string): SandboxRecord | undefined {
    if (!this.read.has(node)) {
      const records = this.recordsOn(node);
      if (records.size > 0) this.left.set(node, records);
    }
    return this.left.get(node)?.get(uid);
  }

  /** A record read by onNode that its reader did not restore: load answers it until it is removed. */
  leave(node: string, record: SandboxRecord): void {
    let on = this.left.get(node);
    if (!on) this.left.set(node, (on = new Map()));
    on.set(record.uid, record);
  }

  /** The nodes that have a directory here: each may hold records. */
  nodes(): string[] {
    try {
      return readdirSync(this.root());
    } catch {
      return [];
    }
  }

  /**
   * Every record on one node, read once after a restart: one read of the node's file (and the earlier layout's files,
   * which are then moved into it). A file with lines no longer needed is written again with its records only.
   */
  onNode(node: string): SandboxRecord[] {
    return [...this.recordsOn(node).values()];
  }

  /** onNode's records by uid: the caller's to keep or change (a restart reads every node's once). */
  recordsOn(node: string): Map<string, SandboxRecord> {
    const found = this.readNode(node);
    this.read.add(node);
    if (found.untidy) this.tidy(node, found);
    else if (found.lines > 0) this.sizes.set(node, { lines: found.lines, records: found.records.size });
    return found.records;
  }

  /** The node's records as its files have them: the earlier layout's first, then the node's file's lines in order. */
  private readNode(node: string): NodeRead {
    const records = new Map<string, SandboxRecord>();
    const dir = this.perFileDir(node);
    const perFile = isThere(dir);
    if (perFile) {
      let files: string[] = [];
      try {
        files = readdirSync(dir);
      } catch {
        // not readable: nothing of it
      }
      for (const f of files) {
        if (!f.endsWith('.json')) continue;
        const record = parseRecord(readText(join(dir, f)));
        if (record) records.set(record.uid, record);
      }
    }
    const text = readText(this.file(node)) ?? '';
    let lines = 0;
    let damaged = false;
    for (const line of text.split('\n')) {
      if (line === '') continue;
      lines++;
      const parsed = parseLine(line);
      if (!parsed) damaged = true;
      else if ('removed' in parsed) records.delete(parsed.removed);
      else records.set(parsed.uid, parsed);
    }
    // A last line without its end: the next line appended would be joined to it.
    if (text !== '' && !text.endsWith('\n')) damaged = true;
    return { records, lines, untidy: perFile || damaged || lines > records.size, perFile };
  }

  /** Writes the node's records as its file (a temporary file renamed over it), then removes the earlier layout's files. */
  private tidy(node: string, found: NodeRead): void {
    const file = this.file(node);
    if (found.records.size === 0) rmSync(file, { force: true });
    else {
      let text = '';
      for (const record of found.records.values()) text += `${JSON.stringify(record)}\n`;
      const tmp = `${file}.aksemu-${process.pid}`;
      mkdirSync(this.runDir(node), { recursive: true });
      writeFileSync(tmp, text);
      renameSync(tmp, file);
    }
    this.sizes.set(node, { lines: found.records.size, records: found.records.size });
    // Only once the file holds them: a kill -9 before this leaves both, read as the same records.
    if (found.perFile) this.moveAside(node);
  }

  private moveAside(node: string): void {
    const moved = this.moved();
    try {
      mkdirSync(moved, { recursive: true });
      renameSync(this.perFileDir(node), join(moved, `${node}.${process.pid}.${++this.movedCount}`));
    } catch {
      rmSync(this.perFileDir(node), { recursive: true, force: true });
    }
  }

  /**
   * Removes the earlier layout's dirs moved aside (by this process, or by one killed before it swept), off the event
   * loop: called once a restart has read every node's records.
   */
  async sweep(): Promise<void> {
    const moved = this.moved();
    if (this.movedCount === 0 && !isThere(moved)) return;
    this.movedCount = 0;
    await rm(moved, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Whether a path is there (no exception for one that is not: most nodes have no dir of the earlier layout). */
function isThere(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/** One line of a node's file: a record, or a record removed; undefined when it does not parse. */
function parseLine(line: string): SandboxRecord | { removed: string } | undefined {
  try {
    const value = JSON.parse(line) as Partial<SandboxRecord> & { removed?: unknown };
    if (typeof value.removed === 'string') return { removed: value.removed };
    return typeof value.uid === 'string' ? (value as SandboxRecord) : undefined;
  } catch {
    return undefined;
  }
}

/** A record of the earlier layout's file, or undefined (missing, damaged). */
function parseRecord(text: string | undefined): SandboxRecord | undefined {
  if (text === undefined) return undefined;
  try {
    const record = JSON.parse(text) as SandboxRecord;
    return typeof record?.uid === 'string' ? record : undefined;
  } catch {
    return undefined;
  }
}

/** One buffer for reading records (a node's file is a few KB), shared: a restart reads every node's. */
const RECORD_BUFFER = Buffer.allocUnsafe(64 * 1024);

/**
 * A file's text by an open, one read and a close (readFileSync costs a call more per file and ~20% more CPU over a
 * restart's files, docs/performance.md §2.12), or undefined when it cannot be read. One that fills the buffer is read
 * whole.
 */
function readText(file: string): string | undefined {
  try {
    const fd = openSync(file, 'r');
    let length: number;
    try {
      length = readSync(fd, RECORD_BUFFER, 0, RECORD_BUFFER.length, 0);
    } finally {
      closeSync(fd);
    }
    return length < RECORD_BUFFER.length ? RECORD_BUFFER.toString('utf8', 0, length) : readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
