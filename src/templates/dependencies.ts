// The order a deployment runs its resources in: dependsOn (a name, a "type/name", a resource id or a
// copy loop's name) and the implicit dependency of reference() on a resource of the same template,
// as ARM derives it; then a topological sort that keeps template order among independent resources.
import { invalidTemplate, templateSentences } from '../arm/errors.js';
import type { DeploymentContext } from './context.js';
import { callsOf, evaluateDeep, evaluateExpr } from './expression/evaluate.js';
import { resourceError, withFrames, type ResourceInstance } from './resources.js';
import { violationAt } from './violations.js';

const lower = (s: string) => s.toLowerCase();

/** The instances a dependsOn entry or reference() argument names; [] when none. */
export function findInstances(instances: readonly ResourceInstance[], entry: string): ResourceInstance[] {
  const e = lower(entry.replace(/\/+$/, ''));
  const byCopy = instances.filter((i) => i.copyName !== undefined && lower(i.copyName) === e);
  if (byCopy.length > 0) return byCopy;
  if (e.startsWith('/subscriptions/')) return instances.filter((i) => lower(i.id) === e);
  if (e.includes('/')) {
    return instances.filter((i) => lower(i.id.split('/providers/').slice(1).join('/providers/')) === e || lower(`${i.type}/${i.name}`) === e);
  }
  return instances.filter((i) => lower(i.name) === e || lower(i.name.split('/').pop()!) === e);
}

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
      if (found.length === 0) throw invalidTemplate(templateSentences.resourceNotDefined(String(entry)), violationAt(inst.decl, `${inst.path}.dependsOn[${n}]`));
      found.forEach((d) => deps.add(d));
    });
    for (const args of callsOf(inst.decl, 'reference')) {
      try {
        const target = withFrames(ctx, inst.frames, () => evaluateExpr(args[0]!, ctx));
        if (typeof target === 'string') findInstances(instances, target).filter((d) => d !== inst).forEach((d) => deps.add(d));
      } catch {
        // An argument that cannot be evaluated yet names no resource of this template.
      }
    }
    inst.dependsOn = [...deps];
  }
}

/** Dependencies first; among resources free to go, template order. */
export function deploymentOrder(instances: readonly ResourceInstance[]): ResourceInstance[] {
  const remaining = new Set(instances);
  const done = new Set<ResourceInstance>();
  const order: ResourceInstance[] = [];
  while (remaining.size > 0) {
    const next = [...remaining].find((i) => i.dependsOn.every((d) => done.has(d)));
    if (!next) {
      const cycle = [...remaining].filter((i) => i.dependsOn.some((d) => remaining.has(d)));
      throw invalidTemplate(templateSentences.circularDependency(cycle.map((i) => i.id)), violationAt(cycle[0]!.decl, cycle[0]!.path));
    }
    remaining.delete(next);
    done.add(next);
    order.push(next);
  }
  return order;
}
