// ARM's bound on how deep a request body nests. ARM deserializes with Newtonsoft, whose readers stop at
// MaxDepth 64 (the default since Json.NET 13.0.1) with "The reader's MaxDepth of 64 has been exceeded.
// Path '…', line 1, position 65."; aksemu answers the same. The scanning is src/http/json-depth.ts's.
import { textTooDeep, valueTooDeep } from '../http/json-depth.js';
import { maxDepthExceeded } from './errors.js';

const MAX_JSON_DEPTH = 64;

/** Throws InvalidRequestContent when the JSON (or JSONC) text opens more than maxDepth nested objects and arrays. */
export function checkTextDepth(text: string, maxDepth = MAX_JSON_DEPTH): void {
  const deep = textTooDeep(text, maxDepth);
  if (deep) throw maxDepthExceeded(maxDepth, deep.path, deep.line, deep.column);
}

/** The same bound on a parsed value (bodies built in process). */
export function checkValueDepth(value: unknown, maxDepth = MAX_JSON_DEPTH): void {
  const deep = valueTooDeep(value, maxDepth);
  if (deep) throw maxDepthExceeded(maxDepth, deep.path);
}
