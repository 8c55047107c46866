// The order a deployment runs its resources in: dependsOn (a name, a "type/name", a resource id or a
// copy loop's name) and the implicit dependency of reference() on a resource of the same template,
// as ARM derives it; then a topological sort that keeps template order among independent resources.
import { invalidTemplate, templateSentences } from '../arm/errors.js';
import type { DeploymentContext } from './context.js';
import { callsOf, evaluateDeep, evaluateExpr } from './expression/evaluate.js';
import { resourceError, withFrames, type ResourceInstance } from './resources.js';
import { violationAt } from './violations.js';
import { trimTrailingSlashes } from '../ids/trim.js';

const lower = (s: string) => s.toLowerCase();

/** Instances by each way a dependsOn entry may name them, lower-cased, in template order. */
interface InstanceIndex {
  bySymbol: Map<string, ResourceInstance[]>;
  byCopy: Map<string, ResourceInstance[]>;
  byId: Map<string, ResourceInstance[]>;
  byTypeAndName: Map<string, ResourceInstance[]>;
  byName: Map<string, ResourceInstance[]>;
}

const indexes = new WeakMap<readonly ResourceInstance[], InstanceIndex>();

function indexOf(instances: readonly ResourceInstance[]): InstanceIndex {
  let index = indexes.get(instances);
  if (index) return index;
  index = { bySymbol: new Map(), byCopy: new Map(), byId: new Map(), byTypeAndName: new Map(), byName: new Map() };
  const add = (map: Map<string, ResourceInstance[]>, key: string, inst: ResourceInstance) => {
    const list = map.get(key) ?? [];
    if (list[list.length - 1] !== inst) list.push(inst);
    map.set(key, list);
  };
  for (const i of instances) {
    if (i.copyName !== undefined) add(index.byCopy, lower(i.copyName), i);
    if (i.symbol !== undefined) {
      add(index.bySymbol, lower(i.symbol), i);
      if (i.symbolIndex !== undefined) add(index.bySymbol, lower(`${i.symbol}[${i.symbolIndex}]`), i);
    }
    add(index.byId, lower(i.id), i);
    // A group is also named as a subscription resource (subscriptionResourceId(), what Bicep emits).
    if (lower(i.type) === 'microsoft.resources/resourcegroups')
      add(index.byId, lower(i.id.replace(/\/resourceGroups\//i, '/providers/Microsoft.Resources/resourceGroups/')), i);
    add(index.byTypeAndName, lower(i.id.split('/providers/').slice(1).join('/providers/')), i);
    add(index.byTypeAndName, lower(`${i.type}/${i.name}`), i);
    add(index.byName, lower(i.name), i);
    add(index.byName, lower(i.name.split('/').pop()!), i);
  }
  indexes.set(instances, index);
  return index;
}

/** The instances a dependsOn entry or reference() argument names; [] when none. */
export function findInstances(instances: readonly ResourceInstance[], entry: string): ResourceInstance[] {
  const e = lower(trimTrailingSlashes(entry));
  const index = indexOf(instances);
  // languageVersion 2.0: a symbolic name (or name[i] of a loop) before anything else.
  const bySymbol = index.bySymbol.get(e);
  if (bySymbol) return bySymbol;
  const byCopy = index.byCopy.get(e);
  if (byCopy) return byCopy;
  const map = e.startsWith('/subscriptions/') ? index.byId : e.includes('/') ? index.byTypeAndName : index.byName;
  return map.get(e) ?? [];
}

/** The reference() calls in a declaration, parsed once for all the instances its copies make. */
const referenceCalls = new WeakMap<object, ReturnType<typeof callsOf>>();

export function resolveDependencies(ctx: DeploymentContext, instances: ResourceInstance[]): void {
  for (const inst of instances) {
    const deps = new Set<ResourceInstance>();
    if (inst.parent) deps.add(inst.parent);
    (inst.decl.dependsOn ?? []).forEach((raw, n) => {
      let entry: unknown;
      try {
        entry = withFrames(ctx, inst.frames, () => evaluateDeep(raw, ctx));
      } catch (err) {
        resourceError(ctx, inst.decl, inst.frames, inst.path, err);
      }
      const found = findInstances(instances, String(entry)).filter((d) => d !== inst);
      if (found.length === 0)
        throw invalidTemplate(templateSentences.resourceNotDefined(String(entry)), violationAt(inst.decl, `${inst.path}.dependsOn[${n}]`));
      found.forEach((d) => deps.add(d));
    });
    let calls = referenceCalls.get(inst.decl);
    if (!calls) {
      // references() names a copy loop: like reference(), it makes the resource wait for every copy (an implicit dependency).
      const collections = callsOf(inst.decl, 'references');
      if (collections.length > 0 && inst.decl.copy)
        throw invalidTemplate(
          "The template function 'references' is not expected at this location: it cannot be used within a resource copy loop.",
          violationAt(inst.decl, inst.path),
        );
      referenceCalls.set(inst.decl, (calls = [...callsOf(inst.decl, 'reference'), ...collections]));
    }
    for (const args of calls) {
      try {
        const target = withFrames(ctx, inst.frames, () => evaluateExpr(args[0]!, ctx));
        if (typeof target === 'string')
          findInstances(instances, target)
            .filter((d) => d !== inst)
            .forEach((d) => deps.add(d));
      } catch {
        // An argument that cannot be evaluated yet names no resource of this template.
      }
    }
    inst.dependsOn = [...deps];
  }
}

/** Dependencies first; among resources free to go, template order (Kahn's algorithm: linear in the edges). */
export function deploymentOrder(instances: readonly ResourceInstance[]): ResourceInstance[] {
  const waiting = new Map(instances.map((i) => [i, i.dependsOn.length]));
  const dependents = new Map<ResourceInstance, ResourceInstance[]>();
  for (const i of instances) {
    for (const d of i.dependsOn) {
      const list = dependents.get(d);
      if (list) list.push(i);
      else dependents.set(d, [i]);
    }
  }
  const ready = instances.filter((i) => i.dependsOn.length === 0);
  const order: ResourceInstance[] = [];
  while (ready.length > 0) {
    const at = ready.reduce((best, i, n) => (i.order < ready[best]!.order ? n : best), 0);
    const next = ready.splice(at, 1)[0]!;
    order.push(next);
    for (const d of dependents.get(next) ?? []) {
      const left = waiting.get(d)! - 1;
      waiting.set(d, left);
      if (left === 0) ready.push(d);
    }
  }
  if (order.length < instances.length) {
    const placed = new Set(order);
    const cycle = instances.filter((i) => !placed.has(i) && i.dependsOn.some((d) => !placed.has(d)));
    throw invalidTemplate(templateSentences.circularDependency(cycle.map((i) => i.id)), violationAt(cycle[0]!.decl, cycle[0]!.path));
  }
  return order;
}
