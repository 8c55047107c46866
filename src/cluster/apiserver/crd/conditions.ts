// The status the apiextensions controllers write on a CRD: the naming controller's acceptedNames and
// NamesAccepted condition (a name another CRD of the group already holds is a conflict: PluralConflict,
// SingularConflict, ShortNamesConflict, KindConflict, ListKindConflict, `"x" is already in use`), then the
// establishing controller's Established (InitialNamesAccepted); and the finalizer's Terminating conditions.
// Sources: staging/src/k8s.io/apiextensions-apiserver/pkg/controller/status/naming_controller.go,
// .../controller/establish/establishing_controller.go, .../controller/finalizer/crd_finalizer.go.
import { isPlainObject } from '../../../http/own.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { k8sTime } from '../../apimachinery/time.js';
import { namesOf, type CrdNames } from './definition.js';

export interface CrdCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason: string;
  message: string;
}

type Obj = Record<string, unknown>;
const objectAt = (v: unknown): Obj => (isPlainObject(v) ? v : {});

export function conditionsOf(crd: KubeObject): CrdCondition[] {
  const c = objectAt(crd['status'])['conditions'];
  return Array.isArray(c) ? (c.filter(isPlainObject) as unknown as CrdCondition[]) : [];
}

/** The conditions with `next` set; its transition time kept when its status did not change (SetCRDCondition). */
export function withCondition(conditions: CrdCondition[], next: Omit<CrdCondition, 'lastTransitionTime'>, now = Date.now()): CrdCondition[] {
  const old = conditions.find((c) => c.type === next.type);
  const time = old && old.status === next.status && old.lastTransitionTime ? old.lastTransitionTime : k8sTime(now);
  const updated: CrdCondition = { type: next.type, status: next.status, lastTransitionTime: time, reason: next.reason, message: next.message };
  return old ? conditions.map((c) => (c === old ? updated : c)) : [...conditions, updated];
}

function acceptedOf(crd: KubeObject): Partial<CrdNames> {
  return objectAt(objectAt(crd['status'])['acceptedNames']) as Partial<CrdNames>;
}

/** The names the other CRDs of a group hold (their accepted names). */
function claimed(crd: KubeObject, all: KubeObject[], group: string): { resources: Set<string>; kinds: Set<string> } {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const other of all) {
    if (other.metadata.name === crd.metadata.name || objectAt(other['spec'])['group'] !== group) continue;
    const a = acceptedOf(other);
    for (const r of [a.plural, a.singular, ...(Array.isArray(a.shortNames) ? a.shortNames : [])]) if (typeof r === 'string' && r) resources.add(r);
    for (const k of [a.kind, a.listKind]) if (typeof k === 'string' && k) kinds.add(k);
  }
  return { resources, kinds };
}

/**
 * The CRD's status once the naming and establishing controllers have run: acceptedNames, NamesAccepted,
 * Established (True once its names are accepted; it stays True). Undefined when nothing changes.
 */
export function namedStatus(crd: KubeObject, all: KubeObject[], now = Date.now()): Obj | undefined {
  const spec = objectAt(crd['spec']);
  const group = typeof spec['group'] === 'string' ? spec['group'] : '';
  const requested = namesOf(spec);
  const accepted = acceptedOf(crd);
  const used = claimed(crd, all, group);
  const names: Obj = { ...accepted };
  let problem: { reason: string; message: string } | undefined;
  const take = (field: keyof CrdNames, value: string, set: Set<string>, reason: string) => {
    if (value === accepted[field] || !set.has(value)) names[field] = value;
    else problem = { reason, message: `"${value}" is already in use` };
  };
  take('plural', requested.plural, used.resources, 'PluralConflict');
  take('singular', requested.singular, used.resources, 'SingularConflict');
  const taken = requested.shortNames.filter((s) => used.resources.has(s) && !(accepted.shortNames ?? []).includes(s));
  if (taken.length > 0) problem = { reason: 'ShortNamesConflict', message: taken.map((s) => `"${s}" is already in use`).join(', ') };
  else if (requested.shortNames.length > 0) names['shortNames'] = requested.shortNames;
  else delete names['shortNames'];
  take('kind', requested.kind, used.kinds, 'KindConflict');
  take('listKind', requested.listKind, used.kinds, 'ListKindConflict');
  if (requested.categories.length > 0) names['categories'] = requested.categories;
  else delete names['categories'];
  const namesAccepted = problem
    ? { type: 'NamesAccepted', status: 'False' as const, ...problem }
    : { type: 'NamesAccepted', status: 'True' as const, reason: 'NoConflicts', message: 'no conflicts found' };
  let conditions = withCondition(conditionsOf(crd), namesAccepted, now);
  const established = conditions.find((c) => c.type === 'Established');
  if (established?.status !== 'True') {
    conditions = withCondition(
      conditions,
      namesAccepted.status === 'True'
        ? { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }
        : { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' },
      now,
    );
  }
  const status = { ...objectAt(crd['status']), acceptedNames: names, conditions };
  return JSON.stringify(status) === JSON.stringify(crd['status']) ? undefined : status;
}
