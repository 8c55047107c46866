// The sizes the cluster API accepts, and why:
// - a request body of at most 3 MiB: the apiserver's MaxRequestBodyBytes (3145728), answered 413 as it does;
// - request headers (the URL included) of at most 1 MiB: Go's http.DefaultMaxHeaderBytes, what the apiserver
//   takes; past it, 431;
// - objects nested at most 500 levels: the apiserver's JSON decoder stops at 10,000, but aksemu's own
//   recursive steps overflow the stack far sooner (structuredClone near 1,950 levels of objects, the yaml
//   package near 860 levels of flow collections); 500 leaves each of them at least 40% of its stack, and real
//   objects (CRD schemas included) stay well under 100;
// - a stored object of at most 1.5 MiB as JSON: etcd's default --max-request-bytes (1572864), which the
//   apiserver answers 413 for; patches can otherwise grow an object past what any request could carry.
import { textTooDeep, valueTooDeep } from '../../../http/json-depth.js';
import { badRequest, tooLarge } from '../../apimachinery/status.js';

export const MAX_BODY_BYTES = 3 * 1024 * 1024;
export const MAX_HEADER_BYTES = 1024 * 1024;
export const MAX_DEPTH = 500;
export const MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;

export function bodyTooLarge() {
  return tooLarge(`limit is ${MAX_BODY_BYTES}`);
}

function tooDeep() {
  return badRequest(`the object provided is unrecognized: exceeded max depth of ${MAX_DEPTH}`);
}

/** Refuses JSON text nested deeper than MAX_DEPTH, by one scan of the text (before parsing it). */
export function checkTextDepth(text: string): void {
  if (textTooDeep(text, MAX_DEPTH)) throw tooDeep();
}

/** Refuses a value nested deeper than MAX_DEPTH (any media type, and what patches make). */
export function checkDepth(value: unknown): void {
  if (valueTooDeep(value, MAX_DEPTH)) throw tooDeep();
}

/** Refuses an object too large to store (as etcd would); its size as JSON otherwise. */
export function checkObjectSize(obj: unknown): number {
  const bytes = Buffer.byteLength(JSON.stringify(obj));
  if (bytes > MAX_OBJECT_BYTES) throw tooLarge('etcdserver: request is too large');
  return bytes;
}
