// Chunked lists (`limit` and `continue`), as kubectl asks for them (500 at a time): a page of the objects in
// key order, and a continue token in the apiserver's format (base64url of {"v","rv","start"}) naming the key
// to resume after. Pages are read from the current state (the apiserver reads them at the first page's
// revision); `remainingItemCount` counts what is left.
import { objectKey, type KubeObject } from '../apimachinery/object.js';
import { badRequest } from '../apimachinery/status.js';

export interface Page {
  items: KubeObject[];
  continue?: string;
  remainingItemCount?: number;
}

interface Token {
  v: string;
  rv: number;
  start: string;
}

const keyOf = (o: KubeObject) => objectKey(o.metadata.namespace, o.metadata.name);

function decodeToken(text: string): Token {
  let token: Partial<Token> | undefined;
  try {
    token = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    token = undefined;
  }
  if (!token || token.v !== 'meta.k8s.io/v1' || typeof token.start !== 'string' || typeof token.rv !== 'number') {
    throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  return token as Token;
}

/** items (in key order) from the continue token's key on, at most `limit` of them (0 or absent: all). */
export function page(items: KubeObject[], query: URLSearchParams, revision: number): Page {
  const limitText = query.get('limit');
  const limit = limitText === null || limitText === '' ? 0 : Number(limitText);
  if (!Number.isSafeInteger(limit)) throw badRequest(`limit: Invalid value: ${JSON.stringify(limitText)}: must be an integer`);
  const cont = query.get('continue');
  let from = 0;
  if (cont) {
    // The key was written with a trailing NUL: resume with the first key after it.
    const start = decodeToken(cont).start.replace(/\u0000$/, '');
    from = items.findIndex((o) => keyOf(o) > start);
    if (from < 0) from = items.length;
  }
  if (limit <= 0 || from + limit >= items.length) return { items: items.slice(from) };
  const shown = items.slice(from, from + limit);
  const token: Token = { v: 'meta.k8s.io/v1', rv: revision, start: `${keyOf(shown[shown.length - 1]!)}\u0000` };
  return { items: shown, continue: Buffer.from(JSON.stringify(token)).toString('base64url'), remainingItemCount: items.length - from - limit };
}
