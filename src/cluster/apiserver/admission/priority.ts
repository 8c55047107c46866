// The Priority admission plugin (kubernetes plugin/pkg/admission/priority/admission.go): a new pod's
// priorityClassName resolves to spec.priority and spec.preemptionPolicy from its PriorityClass; without one,
// the global default class (if any) fills them, else priority 0 and PreemptLowerPriority. An unknown class, or a
// priority / preemption policy the pod gives that differs from its class's, is Forbidden.
import type { KubeObject } from '../../apimachinery/object.js';
import type { ObjectStore } from '../storage/store.js';
import { PODS, PRIORITYCLASSES } from '../../apimachinery/resources.js';
import { forbidden } from '../../apimachinery/status.js';

interface Resolved {
  name: string;
  value: number;
  preemptionPolicy: string;
}

function classOf(pc: KubeObject): Resolved {
  const value = pc['value'];
  const policy = pc['preemptionPolicy'];
  return {
    name: pc.metadata.name,
    value: typeof value === 'number' ? value : 0,
    preemptionPolicy: typeof policy === 'string' ? policy : 'PreemptLowerPriority',
  };
}

/** getDefaultPriority: the global default class with the lowest value, or none (priority 0). */
function defaultPriority(objects: ObjectStore): Resolved {
  const defaults = objects
    .list(PRIORITYCLASSES)
    .filter((pc) => pc['globalDefault'] === true)
    .map(classOf);
  defaults.sort((a, b) => a.value - b.value);
  return defaults[0] ?? { name: '', value: 0, preemptionPolicy: 'PreemptLowerPriority' };
}

/** Fills a new pod's priority from its class, or throws the plugin's Forbidden. */
export function admitPriority(objects: ObjectStore, pod: KubeObject): void {
  const spec = (pod['spec'] ??= {}) as Record<string, unknown>;
  const name = spec['priorityClassName'];
  let resolved: Resolved;
  if (typeof name !== 'string' || name === '') {
    resolved = defaultPriority(objects);
    if (resolved.name) spec['priorityClassName'] = resolved.name;
  } else {
    const pc = objects.get(PRIORITYCLASSES, undefined, name);
    if (!pc) throw forbidden(PODS.resource, '', pod.metadata.name, `no PriorityClass with name ${name} was found`);
    resolved = classOf(pc);
  }
  // A value the pod gives must be the one its class computes.
  const settle = (field: string, computed: number | string, what: string) => {
    const given = spec[field];
    if (given !== undefined && given !== null && given !== computed)
      throw forbidden(
        PODS.resource,
        '',
        pod.metadata.name,
        `the ${what} (${String(given)}) must not be provided in pod spec; priority admission controller computed ${computed} from the given PriorityClass name`,
      );
    spec[field] = computed;
  };
  settle('priority', resolved.value, 'integer value of priority');
  settle('preemptionPolicy', resolved.preemptionPolicy, 'string value of PreemptionPolicy');
}
