// uniqueString() and guid() as ARM computes them, so names derived from them match Azure's:
// uniqueString is a MurmurHash64 variant (ARM's own constants) of the '-'-joined arguments' UTF-8
// bytes, written as 13 characters of base-32; guid is a version-5 (SHA-1, name-based) UUID of the
// same text in ARM's namespace 11fb06fb-712d-4ddd-98c7-e71bbd588830.
import { createHash } from 'node:crypto';
import { fail, str, type FunctionTable } from './types.js';

const M = 0xffffffff;
const mul = (a: number, b: number) => Math.imul(a, b) >>> 0;
const rotl = (x: number, r: number) => ((x << r) | (x >>> (32 - r))) >>> 0;
const le32 = (b: Uint8Array, i: number, n = 4) => {
  let v = 0;
  for (let k = n - 1; k >= 0; k--) v = (v << 8) | b[i + k]!;
  return v >>> 0;
};

/** ARM's 64-bit hash of bytes: [high 32 bits, low 32 bits]. */
export function armHash64(data: Uint8Array): [number, number] {
  const length = data.length;
  let h1 = 0;
  let h2 = 0;
  let i = 0;
  for (; i + 7 < length; i += 8) {
    let k1 = le32(data, i);
    let k2 = le32(data, i + 4);
    k1 = mul(rotl(mul(k1, 597399067), 15), 2869860233);
    h1 = (mul((rotl((h1 ^ k1) >>> 0, 19) + h2) & M, 5) + 1444728091) >>> 0;
    k2 = mul(rotl(mul(k2, 2869860233), 17), 597399067);
    h2 = (mul((rotl((h2 ^ k2) >>> 0, 13) + h1) & M, 5) + 197830471) >>> 0;
  }
  const tail = length - i;
  if (tail > 0) {
    const k1 = le32(data, i, Math.min(tail, 4));
    h1 = (h1 ^ mul(rotl(mul(k1, 597399067), 15), 2869860233)) >>> 0;
    if (tail > 4) {
      const k2 = le32(data, i + 4, tail - 4);
      h2 = (h2 ^ mul(rotl(mul(k2, 2869860233), 17), 597399067)) >>> 0;
    }
  }
  h1 = (h1 ^ length) >>> 0;
  h2 = (h2 ^ length) >>> 0;
  h1 = (h1 + h2) >>> 0;
  h2 = (h2 + h1) >>> 0;
  const fmix = (h: number) => {
    h = mul((h ^ (h >>> 16)) >>> 0, 2246822507);
    h = mul((h ^ (h >>> 13)) >>> 0, 3266489909);
    return (h ^ (h >>> 16)) >>> 0;
  };
  h1 = fmix(h1);
  h2 = fmix(h2);
  h1 = (h1 + h2) >>> 0;
  h2 = (h2 + h1) >>> 0;
  return [h2, h1];
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

function uniqueString(parts: readonly string[]): string {
  const [high, low] = armHash64(Buffer.from(parts.join('-'), 'utf8'));
  let value = (BigInt(high) << 32n) | BigInt(low);
  let out = '';
  for (let i = 0; i < 13; i++) {
    out += BASE32[Number((value >> 59n) & 31n)];
    value = (value << 5n) & 0xffffffffffffffffn;
  }
  return out;
}

const ARM_GUID_NAMESPACE = Buffer.from('11fb06fb712d4ddd98c7e71bbd588830', 'hex');

function armGuid(parts: readonly string[]): string {
  const hash = createHash('sha1')
    .update(ARM_GUID_NAMESPACE)
    .update(Buffer.from(parts.join('-'), 'utf8'))
    .digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function strings(name: string, args: unknown[]): string[] {
  if (args.length === 0) fail(`Unable to evaluate template language function '${name}'. At least one parameter should be provided.`);
  return args.map((a) => str(name, a, 'its parameters'));
}

export const hashFunctions: FunctionTable = {
  uniquestring: { eager: (a, _e, n) => uniqueString(strings(n, a)) },
  guid: { eager: (a, _e, n) => armGuid(strings(n, a)) },
};
