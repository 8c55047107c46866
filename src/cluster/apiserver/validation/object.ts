// What the apiserver checks of every object before it is stored, in its order: the body decodes into the
// kind's Go types (400, shape.ts), then ObjectMeta validates (422, metadata.ts). Objects restored from the
// store are held to the same checks, so one that slipped in earlier cannot take a cluster's API down.
import type { KubeObject } from '../../apimachinery/object.js';
import { isPlainObject } from '../../../http/own.js';
import type { ResourceType } from '../../apimachinery/resources.js';
import { cannotDecode, invalidObject } from '../../apimachinery/status.js';
import { checkDepth } from './limits.js';
import { validateMetadata } from './metadata.js';
import { decodeError, settleNulls } from './shape.js';

/** Throws the apiserver's decode error (400) when the object does not fit the kind's Go types. */
export function checkShape(r: Pick<ResourceType, 'kind' | 'version'>, obj: Record<string, unknown>): void {
  const e = decodeError(r.kind, obj);
  if (e) throw cannotDecode(r.kind, r.version, e);
}

/**
 * A request body decoded as the apiserver decodes it: checked, then its nulls settled as Go holds them.
 * Only requests are settled: a stored object is checked as it is, so a restart changes nothing of it (a
 * Deployment's pod-template-hash must stay the same).
 */
export function decodeBody(r: Pick<ResourceType, 'kind' | 'version'>, obj: Record<string, unknown>): void {
  checkShape(r, obj);
  settleNulls(r.kind, obj);
}

/** Throws the apiserver's 422 when the object's metadata does not validate. */
export function checkMetadata(r: ResourceType, obj: KubeObject, checked?: KubeObject['metadata']): void {
  const causes = validateMetadata(obj.metadata, r.nameRule, checked);
  if (causes.length > 0) throw invalidObject(r.kind, r.group, obj.metadata.name, causes);
}

/** Whether a stored value is an object with a metadata.name: what anything may read of it before storedProblem. */
export function namedObject(value: unknown): value is KubeObject {
  return isPlainObject(value) && isPlainObject(value['metadata']) && typeof value['metadata']['name'] === 'string';
}

/**
 * Why a stored object cannot be served (the API would have refused to store it), or undefined. `walked`: its depth and
 * decode were found good already (a restore's walk, sharing.ts layOverChecked); its metadata is checked here, but for
 * the members that are the very parts of `checked` (the metadata of the neighbour it was laid over, found valid).
 */
export function storedProblem(r: ResourceType, value: unknown, walked = false, checked?: KubeObject['metadata']): string | undefined {
  if (!namedObject(value)) return 'not an object with a metadata.name';
  try {
    if (!walked) {
      checkDepth(value);
      checkShape(r, value);
    }
    checkMetadata(r, value as KubeObject, checked);
  } catch (e) {
    return (e as Error).message;
  }
  return undefined;
}
