// OpenAPI v2, which kubectl 1.27 and 1.28 download before `apply` (newer builds use v3, openapi.ts). They ask
// only for gnostic's protobuf form (application/com.github.proto-openapi.spec.v2@v1.0+protobuf) and fail the
// command when it is missing. The document is deliberately empty — no paths, no definitions: kubectl then
// finds no schema for a kind and skips client-side validation, and builds strategic-merge patches from its
// compiled-in types, as it does for kinds a server does not describe.

/** What the apiserver answers with: the requested type's '@' is not valid in a media type (Go's mime rejects it). */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

/** One length-delimited field (wire type 2): a string or an embedded message. */
function field(num: number, payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from([...varint((num << 3) | 2), ...varint(payload.length)]), payload]);
}

/** openapi.v2.Document {swagger: "2.0", info: {title, version}, paths: {}, definitions: {}} (OpenAPIv2.proto). */
export function openApiV2Document(serverVersion: string): Buffer {
  const info = Buffer.concat([field(1, Buffer.from('Kubernetes')), field(2, Buffer.from(`v${serverVersion}`))]);
  return Buffer.concat([field(1, Buffer.from('2.0')), field(2, info), field(8, Buffer.alloc(0)), field(9, Buffer.alloc(0))]);
}
