// Shrinks a failing request that was made as "valid body + edits": drops the edits that are not needed,
// then deletes the valid body's members that play no part, re-sending each candidate and keeping it while
// it still shows the same failure. Bounded by a request budget.
import { paths, pathText, type Mutation, type PathStep } from './mutate.js';
import type { Sent } from './oracle.js';

export type Rebuild = (sent: Sent, mutations: Mutation[]) => Sent;

function isPrefix(a: PathStep[], b: PathStep[]): boolean {
  return a.length <= b.length && a.every((s, i) => s === b[i]);
}

export async function shrink(sent: Sent, reproduces: (s: Sent) => Promise<boolean>, rebuild: Rebuild, budget = 30): Promise<Sent | undefined> {
  if (!sent.base || !sent.mutations) return (await reproduces(sent)) ? sent : undefined;
  let left = budget;
  const tryIt = async (muts: Mutation[]) => left-- > 0 && reproduces(rebuild(sent, muts));
  let muts = [...sent.mutations];
  if (!(await tryIt(muts))) return undefined;
  for (let i = muts.length - 1; i >= 0 && muts.length > 1; i--) {
    const without = muts.filter((_, k) => k !== i);
    if (await tryIt(without)) muts = without;
  }
  // Deletions of body members no edit touches, outermost first: a deleted parent takes its children along.
  const touched = muts.map((m) => m.path);
  const deleted: PathStep[][] = [];
  const candidates = paths(sent.base)
    .filter((p) => p.length > 0 && p.length <= 4 && !touched.some((t) => isPrefix(p, t)))
    .sort((a, b) => a.length - b.length);
  for (const p of candidates) {
    if (left <= 0) break;
    if (deleted.some((d) => isPrefix(d, p))) continue;
    // Array elements are deleted last-first so earlier indexes stay put; skip them for simplicity.
    if (typeof p[p.length - 1] === 'number') continue;
    const del: Mutation = { path: p, op: 'delete', label: `delete ${pathText(p)}` };
    const candidate = [...deleted.map((d) => ({ path: d, op: 'delete' as const, label: `delete ${pathText(d)}` })), del, ...muts];
    if (await tryIt(candidate)) deleted.push(p);
  }
  const final = [...deleted.map((d) => ({ path: d, op: 'delete' as const, label: `delete ${pathText(d)}` })), ...muts];
  const out = rebuild(sent, final);
  // The deletions only shrink the body; the report lists the edits that matter.
  return { ...out, labels: muts.map((m) => m.label) };
}
