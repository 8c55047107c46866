// A protobuf message → the JSON object the apiserver's Go types would marshal to, driven by the field
// tables. Unknown field numbers are skipped (newer clients may send fields these tables do not know).
// The result equals what the sending kubectl prints for --dry-run=client -o json, empty parts included:
// Kubernetes' marshallers write every non-pointer struct, so `status: {}`, `resources: {}`, `strategy: {}`
// arrive as empty messages and stay {}, and a zero metav1.Time arrives empty and reads null
// (`creationTimestamp: null`), as Go's JSON writes them. Messages nest at most MAX_NESTING deep (a
// RawExtension can hold another envelope), so no body can exhaust the stack.
import { k8sTime, microTime } from '../../apimachinery/time.js';
import { checkTextDepth } from '../validation/limits.js';
import { MAGIC, openEnvelope } from './envelope.js';
import { isScalar, type FieldSpec, type Schema } from './schema.js';
import { packedVarints, WireError, WireReader, WireType, type WireField } from './wire.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const utf8 = new TextDecoder('utf-8');

/** Messages within messages, envelopes in RawExtensions included; real objects stay under 20. */
const MAX_NESTING = 100;

export function decodeMessage(schema: Schema, message: string, bytes: Uint8Array, depth = 0): JsonObject {
  if (depth > MAX_NESTING) throw new WireError(`messages nested deeper than ${MAX_NESTING}`);
  const fields = schema.fields(message);
  const out: JsonObject = {};
  for (const wire of new WireReader(bytes).fields()) {
    const f = fields.get(wire.no);
    if (!f) continue;
    if (f.json === undefined) {
      Object.assign(out, decodeMessage(schema, f.type, bytesOf(wire, f.type), depth + 1));
    } else if (f.map) {
      const entry = mapEntry(schema, f, bytesOf(wire, 'map entry'), depth);
      const map = (out[f.json] ??= {}) as JsonObject;
      // Defined, not assigned: a key such as __proto__ is data here, as in JSON.parse.
      Object.defineProperty(map, entry.key, { value: entry.value, enumerable: true, writable: true, configurable: true });
    } else if (f.repeated) {
      const list = (out[f.json] ??= []) as Json[];
      list.push(...repeatedValues(schema, f, wire, depth));
    } else {
      const value = decodeValue(schema, f.type, wire, depth);
      // Proto's last-one-wins; a zero scalar of an omitempty field is what Go's JSON leaves out.
      if (!f.keepZero && isZeroScalar(f.type, value)) delete out[f.json];
      else out[f.json] = value;
    }
  }
  for (const f of fields.values()) {
    if (f.json !== undefined && f.keepZero && !isScalar(f.type) && !(f.json in out)) out[f.json] = null;
  }
  return out;
}

function isZeroScalar(type: string, value: Json): boolean {
  return isScalar(type) && (value === '' || value === 0 || value === false);
}

function repeatedValues(schema: Schema, f: FieldSpec, wire: WireField, depth: number): Json[] {
  // Packed runs of varints (proto3 style) are accepted as well as one element per field.
  if (wire.wire === WireType.Bytes && (f.type === 'int32' || f.type === 'int64' || f.type === 'bool')) {
    return packedVarints(wire.value).map((v) => varintAs(f.type, v));
  }
  return [decodeValue(schema, f.type, wire, depth)];
}

function mapEntry(schema: Schema, f: FieldSpec, bytes: Uint8Array, depth: number): { key: string; value: Json } {
  let key = '';
  let value: Json = zeroOf(schema, f.type);
  for (const wire of new WireReader(bytes).fields()) {
    if (wire.no === 1) key = utf8.decode(bytesOf(wire, 'map key'));
    else if (wire.no === 2) value = decodeValue(schema, f.type, wire, depth);
  }
  return { key, value };
}

/** A map entry without a value holds the value type's zero, as Go's map[string]T would. */
function zeroOf(schema: Schema, type: string): Json {
  switch (type) {
    case 'string':
    case 'bytes':
      return '';
    case 'Quantity':
      return '0';
    case 'bool':
      return false;
    case 'int32':
    case 'int64':
      return 0;
    case 'Time':
    case 'MicroTime':
    case 'FieldsV1':
    case 'RawExtension':
    case 'JSON':
    case 'IntOrString':
      return type === 'IntOrString' ? 0 : null;
    default:
      // A nil named slice is null; a struct's zero value is its (empty) JSON object.
      return schema.isList(type) ? null : {};
  }
}

function decodeValue(schema: Schema, type: string, wire: WireField, depth: number): Json {
  switch (type) {
    case 'string':
      return utf8.decode(bytesOf(wire, type));
    case 'bytes':
      // []byte marshals to base64 in Go's JSON (Secret.data, ConfigMap.binaryData).
      return Buffer.from(bytesOf(wire, type)).toString('base64');
    case 'bool':
    case 'int32':
    case 'int64':
      if (wire.wire !== WireType.Varint) throw new WireError(`field ${wire.no}: ${type} on wire type ${wire.wire}`);
      return varintAs(type, wire.value);
    case 'double': {
      if (wire.wire !== WireType.Fixed64) throw new WireError(`field ${wire.no}: ${type} on wire type ${wire.wire}`);
      const view = new DataView(new ArrayBuffer(8));
      view.setBigUint64(0, wire.value, true);
      const n = view.getFloat64(0, true);
      // JSON has no NaN or infinities (Go's encoder refuses them too).
      if (!Number.isFinite(n)) throw new WireError(`field ${wire.no}: ${n} is not a JSON number`);
      return n;
    }
    case 'Time':
      return time(bytesOf(wire, type), false);
    case 'MicroTime':
      return time(bytesOf(wire, type), true);
    case 'FieldsV1':
    case 'RawExtension':
    case 'JSON':
      return rawJson(schema, bytesOf(wire, type), depth, type === 'RawExtension');
    case 'Quantity':
      return quantity(bytesOf(wire, type));
    case 'IntOrString':
      return intOrString(bytesOf(wire, type));
    default: {
      const value = decodeMessage(schema, type, bytesOf(wire, type), depth + 1);
      if (schema.isList(type)) return value['*'] ?? null;
      const union = schema.union(type);
      return union ? unionValue(union, value) : value;
    }
  }
}

/** The member a union marshals as: the first present (a list only when not empty), else the scalar's zero or null. */
function unionValue(members: readonly FieldSpec[], value: JsonObject): Json {
  for (const m of members) {
    const v = value[m.json!];
    if (v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0)) return v;
  }
  const scalar = members.find((m) => isScalar(m.type) && !m.repeated);
  return scalar ? (scalar.type === 'bool' ? false : scalar.type === 'string' || scalar.type === 'bytes' ? '' : 0) : null;
}

function varintAs(type: string, v: bigint): boolean | number {
  if (type === 'bool') return v !== 0n;
  return Number(type === 'int32' ? BigInt.asIntN(32, v) : BigInt.asIntN(64, v));
}

function bytesOf(wire: WireField, type: string): Uint8Array {
  if (wire.wire !== WireType.Bytes) throw new WireError(`field ${wire.no}: ${type} on wire type ${wire.wire}`);
  return wire.value;
}

/**
 * metav1.Time and MicroTime: {seconds = 1, nanos = 2}; empty (the zero time) is JSON null. Time keeps whole
 * seconds, as the apiserver does; MicroTime microseconds (Date keeps milliseconds, the rest reads 000).
 */
function time(bytes: Uint8Array, micro: boolean): Json {
  if (bytes.length === 0) return null;
  let seconds = 0n;
  let nanos = 0;
  for (const w of new WireReader(bytes).fields()) {
    if (w.no === 1 && w.wire === WireType.Varint) seconds = BigInt.asIntN(64, w.value);
    else if (w.no === 2 && w.wire === WireType.Varint) nanos = Number(BigInt.asIntN(32, w.value));
  }
  const ms = Number(seconds) * 1000 + (micro ? Math.floor(nanos / 1e6) : 0);
  // Go's Time spans years 1 to 9999; Date covers that, and anything past it is not a time.
  if (!(Math.abs(ms) <= 8.64e15)) throw new WireError(`time ${seconds}s out of range`);
  return micro ? microTime(ms) : k8sTime(ms);
}

/**
 * runtime.RawExtension, metav1.FieldsV1 and apiextensions' JSON: {raw = 1}, the bytes of the JSON they marshal
 * to (null when empty). A RawExtension may hold an object in its own protobuf envelope, decoded as a body would be.
 */
function rawJson(schema: Schema, bytes: Uint8Array, depth: number, envelope: boolean): Json {
  let raw: Uint8Array = new Uint8Array(0);
  for (const w of new WireReader(bytes).fields()) if (w.no === 1 && w.wire === WireType.Bytes) raw = w.value;
  if (raw.length === 0) return null;
  if (envelope && raw.length >= MAGIC.length && MAGIC.every((b, i) => raw[i] === b)) {
    const env = openEnvelope(raw);
    const message = schema.messageFor(env.apiVersion, env.kind);
    if (!message || env.contentEncoding !== '') throw new WireError(`no protobuf decoding for an embedded ${env.apiVersion}, Kind=${env.kind}`);
    return { kind: env.kind, apiVersion: env.apiVersion, ...decodeMessage(schema, message, env.raw, depth + 1) };
  }
  const text = utf8.decode(raw);
  checkTextDepth(text);
  try {
    return JSON.parse(text) as Json;
  } catch (e) {
    throw new WireError(`embedded JSON: ${(e as Error).message}`);
  }
}

/** resource.Quantity: {string = 1}; the zero Quantity is "0". */
function quantity(bytes: Uint8Array): Json {
  let s = '';
  for (const w of new WireReader(bytes).fields()) if (w.no === 1 && w.wire === WireType.Bytes) s = utf8.decode(w.value);
  return s === '' ? '0' : s;
}

/** intstr.IntOrString: {type = 1 (0 Int, 1 String), intVal = 2, strVal = 3}. */
function intOrString(bytes: Uint8Array): Json {
  let type = 0n;
  let intVal = 0;
  let strVal = '';
  for (const w of new WireReader(bytes).fields()) {
    if (w.no === 1 && w.wire === WireType.Varint) type = w.value;
    else if (w.no === 2 && w.wire === WireType.Varint) intVal = Number(BigInt.asIntN(32, w.value));
    else if (w.no === 3 && w.wire === WireType.Bytes) strVal = utf8.decode(w.value);
  }
  return type === 1n ? strVal : intVal;
}
