// ValidateObjectMeta, as the apiserver runs it on every create and update: the name (and generateName) by
// the kind's rule, labels, annotations (keys, and 256 KiB in all), ownerReferences and finalizers.
import type { ObjectMeta } from '../../apimachinery/object.js';
import { own } from '../../../http/own.js';
import { fieldError, type StatusCause } from '../../apimachinery/status.js';
import { isQualifiedName, isValidLabelValue, NAME_RULES, type NameRule } from '../../apimachinery/names.js';

/** apimachinery's TotalAnnotationSizeLimitB: keys and values together. */
export const MAX_ANNOTATION_BYTES = 256 * 1024;

type Ref = { apiVersion?: string; kind?: string; name?: string; uid?: string; controller?: boolean };

/** generateName is validated as a prefix: a trailing '-' stands for the suffix to come (maskTrailingDash). */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -1)}a` : name;
}

function labels(map: Record<string, string>, causes: StatusCause[]): void {
  for (const [k, v] of Object.entries(map)) {
    for (const m of isQualifiedName(k)) causes.push(fieldError.invalid('metadata.labels', k, m));
    for (const m of isValidLabelValue(v)) causes.push(fieldError.invalid('metadata.labels', v, m));
  }
}

function annotations(map: Record<string, string>, causes: StatusCause[]): void {
  let bytes = 0;
  for (const [k, v] of Object.entries(map)) {
    // The rule is a qualified name except that case does not matter.
    for (const m of isQualifiedName(k.toLowerCase())) causes.push(fieldError.invalid('metadata.annotations', k, m));
    bytes += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (bytes > MAX_ANNOTATION_BYTES) causes.push(fieldError.tooLong('metadata.annotations', MAX_ANNOTATION_BYTES));
}

function ownerReferences(refs: Ref[], causes: StatusCause[]): void {
  const field = 'metadata.ownerReferences';
  let controller = '';
  for (const ref of refs) {
    const apiVersion = ref.apiVersion ?? '';
    if (apiVersion.slice(apiVersion.lastIndexOf('/') + 1) === '')
      causes.push(fieldError.invalid(`${field}.apiVersion`, apiVersion, 'version must not be empty'));
    if (!ref.kind) causes.push(fieldError.invalid(`${field}.kind`, ref.kind ?? '', 'kind must not be empty'));
    if (!ref.name) causes.push(fieldError.invalid(`${field}.name`, ref.name ?? '', 'name must not be empty'));
    if (!ref.uid) causes.push(fieldError.invalid(`${field}.uid`, ref.uid ?? '', 'uid must not be empty'));
    if (ref.controller === true) {
      const current = `${ref.kind ?? ''}/${ref.name ?? ''}`;
      if (controller === '') controller = current;
      else
        causes.push(
          fieldError.invalid(field, refs, `Only one reference can have Controller set to true. Found "true" in references for ${controller} and ${current}`),
        );
    }
  }
}

/** ValidateFinalizers: each a qualified name; the garbage collector's two policies exclude each other. */
function finalizers(list: string[], causes: StatusCause[]): void {
  for (const f of list) for (const m of isQualifiedName(f)) causes.push(fieldError.invalid('metadata.finalizers', f, m));
  if (list.includes('orphan') && list.includes('foregroundDeletion'))
    causes.push(fieldError.invalid('metadata.finalizers', list, 'finalizer orphan and foregroundDeletion cannot be both set'));
}

/**
 * What is wrong with an object's metadata, as the apiserver words it; empty when nothing. The metadata's
 * shape (types) was checked before (shape.ts), so maps hold strings and lists hold objects.
 */
export function validateMetadata(meta: ObjectMeta, nameRule: NameRule = 'subdomain', checked?: ObjectMeta): StatusCause[] {
  const rule = NAME_RULES[nameRule];
  // A member that is the very part of a metadata found valid (a restore's neighbour: sharing.ts) is valid: each of
  // these four is judged by its own value alone.
  const fresh = <T>(member: string): T | undefined => {
    const value = own<T>(meta, member);
    return checked !== undefined && typeof value === 'object' && value !== null && value === own<T>(checked, member) ? undefined : value;
  };
  const causes: StatusCause[] = [];
  const generateName = own<string>(meta, 'generateName');
  if (generateName) for (const m of rule(maskTrailingDash(generateName))) causes.push(fieldError.invalid('metadata.generateName', generateName, m));
  if (!meta.name) causes.push(fieldError.required('metadata.name', 'name or generateName is required'));
  else for (const m of rule(meta.name)) causes.push(fieldError.invalid('metadata.name', meta.name, m));
  labels(fresh<Record<string, string>>('labels') ?? {}, causes);
  annotations(fresh<Record<string, string>>('annotations') ?? {}, causes);
  ownerReferences(fresh<Ref[]>('ownerReferences') ?? [], causes);
  finalizers(fresh<string[]>('finalizers') ?? [], causes);
  return causes;
}
