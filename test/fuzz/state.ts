// Checks of the stored state itself, read from state.db with a read-only connection beside the server
// (SQLite's WAL lets a reader in while the server writes; after a SIGKILL it replays the WAL): integrity,
// well-formed ids, operations that ended, and address allocations that belong to live owners and never
// hand one address out twice.
import Database from 'better-sqlite3';
import { join } from 'node:path';

export interface StoredEntry {
  key: string;
  value: any;
}

export function readStore(home: string): { integrity: string; entries: StoredEntry[] } {
  const db = new Database(join(home, 'state.db'), { readonly: true, fileMustExist: true });
  try {
    const integrity = (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check).join('; ');
    const rows = db.prepare('SELECT key, value FROM entries ORDER BY k').all() as Array<{ key: string; value: string }>;
    return { integrity, entries: rows.map((r) => ({ key: r.key, value: safeParse(r.value) })) };
  } finally {
    db.close();
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { unparsable: text.slice(0, 100) };
  }
}

/**
 * Why an ARM id is malformed, or undefined: one subscription (ours), no empty segments, no stringified object.
 * `undefined` and `null` are names ARM accepts (the fuzzer sends them): a stringified undefined shows up as a
 * foreign subscription or a missing segment instead.
 */
export function armIdProblem(id: string, sub: string): string | undefined {
  if (!id.startsWith('/')) return 'does not start with /';
  const segs = id.slice(1).split('/');
  if (segs.some((s) => s === '')) return 'has an empty segment';
  if (segs.some((s) => s === '[object Object]')) return 'has a stringified object segment';
  if (segs.some((s) => /[\u0000-\u001f]/.test(s))) return 'has a control character';
  if (segs[0]!.toLowerCase() === 'subscriptions' && segs[1]?.toLowerCase() !== sub.toLowerCase()) return `names subscription ${segs[1]}, not ${sub}`;
  const rg = segs.findIndex((s) => s.toLowerCase() === 'resourcegroups');
  if (rg >= 0 && rg !== 2) return 'resourceGroups at the wrong depth';
  return undefined;
}

/** The operations still InProgress. */
export function unfinishedOperations(entries: StoredEntry[]): StoredEntry[] {
  return entries.filter((e) => e.key.startsWith('aksemu:operations/') && !['Succeeded', 'Failed', 'Canceled'].includes(e.value?.status));
}

/** Allocation problems: an address held twice in a subnet, an owner or subnet that no longer exists. */
export function allocationProblems(entries: StoredEntry[]): string[] {
  const keys = new Set(entries.map((e) => e.key.toLowerCase()));
  const problems: string[] = [];
  const held = new Map<string, string>();
  for (const { key, value } of entries) {
    if (!key.startsWith('aksemu:ipam/subnet:')) continue;
    const a = value as { subnetId: string; owner: string; addresses: string[] };
    if (!keys.has(a.subnetId.toLowerCase())) problems.push(`allocation in a missing subnet: ${a.subnetId} (owner ${a.owner})`);
    if (!keys.has(a.owner.toLowerCase())) problems.push(`allocation leaked: owner ${a.owner} no longer exists (${a.addresses.join(', ')})`);
    for (const ip of a.addresses) {
      const k = `${a.subnetId.toLowerCase()}|${ip}`;
      const other = held.get(k);
      if (other !== undefined && other !== a.owner.toLowerCase()) problems.push(`address ${ip} of ${a.subnetId} held twice: ${other} and ${a.owner}`);
      held.set(k, a.owner.toLowerCase());
    }
  }
  return problems;
}

/** Node records whose NIC is gone, or two nodes with one IP in a subnet. */
export function nodeProblems(entries: StoredEntry[]): string[] {
  const keys = new Set(entries.map((e) => e.key.toLowerCase()));
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const { key, value } of entries) {
    if (!key.startsWith('aksemu:nodes')) continue;
    const n = value as { name: string; ip: string; subnetId: string; nicId: string; clusterId: string };
    if (!keys.has(n.clusterId.toLowerCase())) problems.push(`node ${n.name} of a cluster that no longer exists: ${n.clusterId}`);
    if (n.nicId && !keys.has(n.nicId.toLowerCase())) problems.push(`node ${n.name} lost its NIC ${n.nicId}`);
    const k = `${n.subnetId.toLowerCase()}|${n.ip}`;
    if (seen.has(k)) problems.push(`nodes ${seen.get(k)} and ${n.name} share ${n.ip}`);
    seen.set(k, n.name);
  }
  return problems;
}
