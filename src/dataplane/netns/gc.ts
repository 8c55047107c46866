// Namespaces go by name: gc deletes what carries this instance's prefix but is not wanted (the leftovers of
// a crashed run); processes inside are killed first, since they keep a deleted namespace alive (pitfall 10).
import { existsSync } from 'node:fs';
import { type IpBatcher, killNetnsProcesses, listNetns, mayFail, netnsPath } from './exec.js';
import { knownNamespaces, type NetnsState } from './state.js';

/** Every namespace with this instance's prefix that exists now. */
export function ownNamespaces(state: NetnsState): string[] {
  return listNetns((n) => state.names.owns(n));
}

/** Deletes the namespaces of this instance that it does not want; returns their names. */
export async function collectGarbage(state: NetnsState): Promise<string[]> {
  const known = knownNamespaces(state);
  const orphans = ownNamespaces(state).filter((n) => !known.has(n));
  await deleteNamespaces(state.ip, orphans);
  return orphans;
}

/** Deletes namespaces by name; whatever is still there afterwards is retried once and then reported. */
export async function deleteNamespaces(ip: IpBatcher, names: string[]): Promise<void> {
  if (names.length === 0) return;
  killNetnsProcesses(names);
  await ip.batch(
    null,
    names.map((n) => mayFail(`netns del ${n}`)),
  );
  const left = names.filter((n) => existsSync(netnsPath(n)));
  if (left.length === 0) return;
  killNetnsProcesses(left);
  await ip.batch(
    null,
    left.map((n) => `netns del ${n}`),
  );
}
