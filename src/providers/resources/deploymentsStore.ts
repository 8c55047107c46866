// How a deployment is kept. The record listed for every deployment stays small (state, times, ids);
// what can be large — parameters, outputs, error, providers, dependencies — and the template (read
// only by exportTemplate and never listed) are kept apart under the deployment's id. Listing a
// group's deployments reads the small records and pages the large parts by size, so no number of
// deployments makes a list too large to answer.
import type { Store } from '../../store/store.js';
import { LIMITS } from '../../templates/limits.js';
import { render, type DeploymentProperties, type DeploymentRecord } from './deploymentsRecord.js';

/** properties in the order ARM writes them; the ones after correlationId are kept apart. */
const PROPERTY_ORDER = [
  'templateHash',
  'parameters',
  'mode',
  'provisioningState',
  'timestamp',
  'duration',
  'correlationId',
  'providers',
  'dependencies',
  'outputs',
  'outputResources',
  'error',
] as const;
const DETAILS = new Set<string>(['parameters', 'providers', 'dependencies', 'outputs', 'outputResources', 'error']);

const detailsKey = (id: string) => `${id}/details`;
const templateKey = (id: string) => `${id}/template`;

/** Stores the record (its large parts apart) and, when given, the template it deploys. */
export function saveDeployment(store: Store, record: DeploymentRecord, template?: unknown): void {
  const summary: Record<string, unknown> = {};
  const details: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(record.properties)) (DETAILS.has(name) ? details : summary)[name] = value;
  store.put(record.id, { ...record, properties: summary });
  store.put(detailsKey(record.id), details);
  if (template !== undefined) store.put(templateKey(record.id), template);
}

/** The small record (no parameters, outputs, error …): whether it exists, its state and operation. */
export function deploymentSummary(store: Store, id: string): DeploymentRecord | undefined {
  return store.get<DeploymentRecord>(id);
}

/** The whole record, as GET shows it. */
export function loadDeployment(store: Store, id: string): DeploymentRecord | undefined {
  const summary = deploymentSummary(store, id);
  return summary && withDetails(store, summary);
}

function withDetails(store: Store, summary: DeploymentRecord): DeploymentRecord {
  const all: Record<string, unknown> = { ...summary.properties, ...store.get<Record<string, unknown>>(detailsKey(summary.id)) };
  const properties: Record<string, unknown> = {};
  for (const name of PROPERTY_ORDER) if (all[name] !== undefined) properties[name] = all[name];
  return { ...summary, properties: properties as unknown as DeploymentProperties };
}

export function deploymentTemplate(store: Store, id: string): unknown {
  return store.get(templateKey(id));
}

/**
 * One page of a list: the deployments from `start`, rendered, until the page holds as many bytes
 * as a page may (at least one deployment); `next` is where the following page starts.
 */
export function pageOfDeployments(store: Store, summaries: readonly DeploymentRecord[], start: number): { value: unknown[]; next?: number } {
  const value: unknown[] = [];
  let bytes = 0;
  let at = start;
  for (; at < summaries.length; at++) {
    const rendered = render(withDetails(store, summaries[at]!));
    const size = JSON.stringify(rendered).length;
    if (value.length > 0 && bytes + size > LIMITS.listPageBytes) break;
    value.push(rendered);
    bytes += size;
  }
  return at < summaries.length ? { value, next: at } : { value };
}
