// eTags of clusters and pools (docs/aks-rules.md §3.7, AKSDOCS use-etags): an opaque value that changes on every
// write (a cluster write changes its pools' too, a pool write only the pool's), and the If-Match / If-None-Match
// preconditions a write or delete must meet, in the api-versions that have eTags.
import { randomUUID } from 'node:crypto';
import type { ApiVersionProfile } from '../../aks/api-versions.js';
import { preconditionFailed } from '../../arm/errors.js';
import type { RequestContext } from '../../arm/provider.js';

export const newETag = (): string => randomUUID();

/** An entity tag as clients send it: quoted, perhaps weak (W/"…"). */
function bare(tag: string): string {
  return tag
    .trim()
    .replace(/^W\//, '')
    .replace(/^"(.*)"$/, '$1');
}

/** Throws 412 PreconditionFailed when the request's conditions do not hold for the resource (eTag undefined: absent). */
export function checkConditions(ctx: RequestContext, api: ApiVersionProfile, exists: boolean, eTag: string | undefined): void {
  const { ifMatch, ifNoneMatch } = ctx.conditions ?? {};
  if (!api.hasETag) return;
  if (ifMatch !== undefined && ifMatch.trim() !== '') {
    const wanted = bare(ifMatch);
    if (!exists || (wanted !== '*' && wanted !== eTag)) throw preconditionFailed('If-Match', ifMatch, exists ? eTag : undefined);
  }
  if (ifNoneMatch !== undefined && ifNoneMatch.trim() !== '' && exists) {
    const unwanted = bare(ifNoneMatch);
    if (unwanted === '*' || unwanted === eTag) throw preconditionFailed('If-None-Match', ifNoneMatch, eTag);
  }
}
