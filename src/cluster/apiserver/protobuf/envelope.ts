// The Kubernetes protobuf envelope (apimachinery runtime/serializer/protobuf): the magic `k8s\0`, then a
// runtime.Unknown {typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2, contentEncoding = 3, contentType = 4}
// whose raw is the typed message.
import { WireError, WireReader, WireType } from './wire.js';

export const MAGIC = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

export interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

const utf8 = new TextDecoder('utf-8');

export function openEnvelope(bytes: Uint8Array): Envelope {
  if (bytes.length < MAGIC.length || MAGIC.some((b, i) => bytes[i] !== b)) {
    // The apiserver's own wording for the missing prefix.
    throw new WireError(`provided data does not appear to be a protobuf message, expected prefix [${[...MAGIC].join(' ')}]`);
  }
  const env: Envelope = { apiVersion: '', kind: '', raw: new Uint8Array(0), contentEncoding: '', contentType: '' };
  for (const f of new WireReader(bytes.subarray(MAGIC.length)).fields()) {
    if (f.wire !== WireType.Bytes) continue;
    if (f.no === 1) {
      for (const t of new WireReader(f.value).fields()) {
        if (t.wire !== WireType.Bytes) continue;
        if (t.no === 1) env.apiVersion = utf8.decode(t.value);
        else if (t.no === 2) env.kind = utf8.decode(t.value);
      }
    } else if (f.no === 2) env.raw = f.value;
    else if (f.no === 3) env.contentEncoding = utf8.decode(f.value);
    else if (f.no === 4) env.contentType = utf8.decode(f.value);
  }
  return env;
}
