// The pods/ephemeralcontainers subresource's write (pkg/registry/core/pod/strategy.go
// podEphemeralContainersStrategy, pkg/apis/core/validation ValidatePodEphemeralContainersUpdate): a write through
// it changes only spec.ephemeralContainers of the stored pod (dropNonEphemeralContainerUpdates), which may only
// grow: an existing ephemeral container may be neither removed nor changed; each new one has a unique DNS-label
// name (across the pod's containers, init containers and ephemeral containers), an image, a target container
// that exists, and none of the fields an ephemeral container cannot have (ports, probes, lifecycle, resources,
// resizePolicy, restartPolicy). Errors are the apiserver's 422 with field causes. docs/clients.md §5.22.
import { isDeepStrictEqual } from 'node:util';
import { isPlainObject } from '../../../http/own.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { Container, Pod } from '../../apimachinery/types.js';
import { fieldError, invalidObject, type StatusCause } from '../../apimachinery/status.js';
import { podSpecDefaults } from '../admission/defaults.js';

/** Fields of EphemeralContainerCommon an ephemeral container may not set (allowedEphemeralContainerFields: false). */
const FORBIDDEN = ['ports', 'resources', 'resizePolicy', 'restartPolicy', 'lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe'];

/** At most this many ephemeral containers on one pod (each is a process the kubelet runs; the apiserver sets no number). */
export const MAX_EPHEMERAL_CONTAINERS = 64;

/** The annotation the kubelet puts on a static pod's mirror. */
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Go's reflect zero value, as validateFieldAllowList tests it: absent, null, false, 0, '', {} and [] are unset. */
function isSet(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isPlainObject(v)) return Object.values(v).some(isSet);
  return true;
}

/** The ephemeral containers of a pod spec (as written: anything not a list is none). */
export function ephemeralContainersOf(pod: Pod): Container[] {
  const list = pod.spec?.ephemeralContainers;
  return Array.isArray(list) ? list : [];
}

/**
 * What a write through pods/NAME/ephemeralcontainers stores: the existing pod with the written
 * spec.ephemeralContainers (defaulted as the apiserver defaults containers), or the apiserver's 422.
 */
export function ephemeralContainersWrite(existing: KubeObject, written: KubeObject): KubeObject {
  // Static pods (their mirror on the API) do not support ephemeral containers (kubernetes issue 113935).
  if (Object.hasOwn(existing.metadata.annotations ?? {}, MIRROR_POD_ANNOTATION))
    throw invalidObject('Pod', '', existing.metadata.name, [fieldError.forbidden('', 'static pods do not support ephemeral containers')]);
  const before = ephemeralContainersOf(existing as Pod);
  const raw: unknown = (written as Pod).spec?.ephemeralContainers;
  const next = Array.isArray(raw) ? (raw as unknown[]) : [];
  const pod = existing as Pod;
  const causes: StatusCause[] = [];
  const path = 'spec.ephemeralContainers';
  if (raw !== undefined && raw !== null && !Array.isArray(raw)) causes.push(fieldError.invalid(path, raw, 'must be a list'));
  if (next.length > MAX_EPHEMERAL_CONTAINERS)
    causes.push({ reason: 'FieldValueTooMany', message: `Too many: ${next.length}: must have at most ${MAX_EPHEMERAL_CONTAINERS} items`, field: path });
  const spec = { ...(pod.spec ?? {}), ephemeralContainers: next.map((c) => (isPlainObject(c) ? { ...c } : c)) as Container[] };
  // Defaults first, as the apiserver decodes and defaults the body before the strategy sees it.
  podSpecDefaults(spec);
  const others = new Set([...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])].map((c) => c.name));
  const regular = new Set((pod.spec?.containers ?? []).map((c) => c.name));
  const seen = new Set<string>();
  spec.ephemeralContainers.forEach((c, i) => {
    const at = `${path}[${i}]`;
    if (!isPlainObject(c)) return void causes.push(fieldError.invalid(at, c, 'must be an object'));
    const name = c['name'];
    if (typeof name !== 'string' || name === '') causes.push(fieldError.required(`${at}.name`));
    else if (name.length > 63 || !DNS_LABEL.test(name))
      causes.push(
        fieldError.invalid(
          `${at}.name`,
          name,
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        ),
      );
    else if (others.has(name) || seen.has(name))
      causes.push({ reason: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(name)}`, field: `${at}.name` });
    if (typeof name === 'string') seen.add(name);
    if (typeof c['image'] !== 'string' || c['image'].trim() === '') causes.push(fieldError.required(`${at}.image`));
    const target = c['targetContainerName'];
    if (typeof target === 'string' && target !== '' && !regular.has(target))
      causes.push({ reason: 'FieldValueNotFound', message: `Not found: ${JSON.stringify(target)}`, field: `${at}.targetContainerName` });
    for (const f of FORBIDDEN) if (isSet(c[f])) causes.push(fieldError.forbidden(`${at}.${f}`, 'cannot be set for an Ephemeral Container'));
  });
  // Ephemeral containers may not be removed or changed.
  const byName = new Map(spec.ephemeralContainers.filter(isPlainObject).map((c) => [c['name'], c] as const));
  for (const old of before) {
    const now = byName.get(old.name);
    if (!now) causes.push(fieldError.forbidden(path, `existing ephemeral containers ${JSON.stringify(old.name)} may not be removed\n`));
    else if (!isDeepStrictEqual(now, old))
      causes.push(fieldError.forbidden(`${path}[${old.name}]`, `existing ephemeral containers ${JSON.stringify(old.name)} may not be changed\n`));
  }
  if (causes.length > 0) throw invalidObject('Pod', '', existing.metadata.name, causes);
  return { ...existing, spec } as KubeObject;
}
