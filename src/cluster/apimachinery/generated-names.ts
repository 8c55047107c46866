// Names and ids the controllers and the runtime make up, in Kubernetes' alphabets: pod-template-hash
// (fnv32a of the template, encoded with rand.SafeEncodeString), the 5-character pod suffixes of
// generateName, containerd's 64-hex ids, and the stable uids of objects rebuilt on every start.
import { hash, randomBytes, randomInt } from 'node:crypto';

/** apimachinery's util/rand alphabet: no vowels, no look-alikes. */
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

export function randomSuffix(length = 5): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHANUMS[randomInt(ALPHANUMS.length)];
  return out;
}

/** rand.SafeEncodeString: every byte mapped into the alphabet. */
export function safeEncode(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) out += ALPHANUMS[text.charCodeAt(i) % ALPHANUMS.length];
  return out;
}

export function fnv32a(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** JSON with object keys sorted, so equal templates hash equal whatever order their keys came in. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** controller.ComputeHash: the template (and the collision count, when set) → `7c5ddbdf54`-style text. */
export function templateHash(template: unknown, collisionCount?: number): string {
  const text = canonicalJson(template) + (collisionCount ? String(collisionCount) : '');
  return safeEncode(String(fnv32a(text)));
}

/** containerd's sandbox and container ids. */
export function runtimeId(): string {
  return randomBytes(32).toString('hex');
}

/** A stable uuid-shaped id from text (node uids survive restarts). */
export function stableUid(text: string): string {
  // The one-shot hash: a Hash object per call cost more than the digest (a restart makes 4 per node).
  const h = hash('sha1', text, 'hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
