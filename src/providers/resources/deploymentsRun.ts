// Running a deployment: the operation kind behind PUT. Its work runs in one store transaction: each
// resource goes through its provider's route (invokeRoute: the same matching, api-version and strict
// body checks as a direct call) and the provider's own operation runs at once (lro.immediate()), so
// a resource that fails rolls every resource of the deployment back — nothing is left half-created.
// The failure itself (DeploymentFailed, the operations list) is recorded by fail(), afterwards.
import { invokeRoute, type InProcessCaller } from '../../arm/invoke.js';
import type { Principal } from '../../arm/auth.js';
import { resourceGroupNotFound, type ArmErrorBody } from '../../arm/errors.js';
import { loadOrCreateIdentity } from '../../arm/identity.js';
import type { Operation, OperationEnv, OperationKind } from '../../arm/lro.js';
import type { Registry } from '../../arm/registry.js';
import type { Store } from '../../store/store.js';
import { TemplateLanguageError } from '../../templates/expression/parser.js';
import { LIMITS, limitExceeded } from '../../templates/limits.js';
import type { DeploymentScope } from '../../templates/context.js';
import { planDeployment, runPlan, type ResourceDeployer, type ResourceOutcome } from '../../templates/engine.js';
import { operationRecords, isoDuration, type DeploymentRecord } from './deploymentsRecord.js';
import { deploymentSummary, loadDeployment, saveDeployment } from './deploymentsStore.js';
import type { ResourceGroup } from './resourceGroups.js';

export const DEPLOYMENT_WRITE = 'Microsoft.Resources/deployments/write';
export const DEPLOYMENT_DELETE = 'Microsoft.Resources/deployments/delete';

/** What the operation keeps to (re)run the deployment: the request as it was accepted. */
export interface DeploymentInput {
  template: unknown;
  parameters: Record<string, unknown>;
  principal: Principal;
  baseUrl: string;
  loose: boolean;
  /** --strict (absent in operations recorded before it existed). */
  strict?: boolean;
  requestId: string;
}

/** What a deployment's template sees of where it runs: the group (none at subscription scope), the subscription, its name. */
export function scopeOf(
  store: Store,
  subscriptionId: string,
  group: ResourceGroup | undefined,
  deploymentName: string,
  baseUrl: string,
  location?: string,
): DeploymentScope {
  const identity = loadOrCreateIdentity(store);
  return {
    subscriptionId,
    tenantId: identity.tenantId,
    subscriptionName: identity.subscriptionName,
    ...(group ? { resourceGroup: groupInfo(group) } : {}),
    ...(location !== undefined ? { location } : {}),
    deploymentName,
    baseUrl,
  };
}

function groupInfo(group: ResourceGroup): NonNullable<DeploymentScope['resourceGroup']> {
  return {
    id: group.id,
    name: group.name,
    location: group.location,
    ...(group.tags ? { tags: group.tags } : {}),
    ...(group.managedBy ? { managedBy: group.managedBy } : {}),
  };
}

/** The groups that exist, as nested deployments into them are validated with their parent. */
export function existingGroups(store: Store): (subscriptionId: string, name: string) => NonNullable<DeploymentScope['resourceGroup']> | undefined {
  return (subscriptionId, name) => {
    const group = store.get<ResourceGroup>(`/subscriptions/${subscriptionId}/resourceGroups/${name}`);
    return group && groupInfo(group);
  };
}

/** The providers, reached in-process on behalf of the deployment's caller. */
/**
 * The deployment tree being run: a deployment and the nested ones it starts all run synchronously in
 * one transaction, so the tree as a whole is bounded (aksemu's own limits: each deployment has ARM's
 * 800 resources and its own evaluation budget, and nested deployments would multiply both).
 */
const tree = { depth: 0, nested: 0, startedAt: 0 };

function treeLimit(what: string, limit: number, actual: number): never {
  throw new TemplateLanguageError(limitExceeded(what, limit, actual));
}

function deployerFor(caller: InProcessCaller): ResourceDeployer {
  return {
    put: (inst, body) => {
      if (inst.type.toLowerCase() === 'microsoft.resources/deployments') {
        tree.nested++;
        if (tree.nested > LIMITS.nestedDeployments) treeLimit('number of nested deployments in a deployment', LIMITS.nestedDeployments, tree.nested);
      }
      const elapsed = Date.now() - tree.startedAt;
      if (elapsed > LIMITS.deploymentTreeMs) treeLimit('time of a deployment with its nested deployments (ms)', LIMITS.deploymentTreeMs, elapsed);
      const res = invokeRoute(caller, { method: 'PUT', path: inst.id, apiVersion: inst.apiVersion, body });
      return { status: res.status, body: res.body };
    },
    get: (id, apiVersion) => invokeRoute(caller, { method: 'GET', path: id, apiVersion }).body,
    post: (path, apiVersion, body) => invokeRoute(caller, { method: 'POST', path, apiVersion, ...(body === undefined ? {} : { body }) }).body,
    defaultApiVersion: (id) => {
      const namespace = /\/providers\/([^/]+)/i.exec(id)?.[1] ?? '';
      return caller.registry.provider(namespace)?.apiVersions[0] ?? '2021-04-01';
    },
  };
}

export function callerFor(
  store: Store,
  registry: Registry,
  lro: InProcessCaller['lro'],
  input: Pick<DeploymentInput, 'principal' | 'baseUrl' | 'loose' | 'strict' | 'requestId'>,
): InProcessCaller {
  return {
    registry,
    store,
    lro,
    identity: loadOrCreateIdentity(store),
    principal: input.principal,
    baseUrl: input.baseUrl,
    loose: input.loose,
    strict: input.strict ?? false,
    requestId: input.requestId,
  };
}

/** Outcomes of a failed run, handed from run() to fail() (the same call stack, never persisted). */
const failedOutcomes = new Map<string, ResourceOutcome[]>();

/**
 * Nested deployments that failed inside a run, with their operations: the run's transaction rolls
 * them back with everything else, and the outermost deployment's fail() records them again as
 * Failed, so a failed module can be shown and its operations listed, as ARM keeps it.
 */
const failedNested = new Map<string, { record: DeploymentRecord; template: unknown; outcomes: ResourceOutcome[] }>();

/** The group a deployment runs in; undefined for a subscription deployment. */
function groupOfDeployment(store: Store, deploymentId: string): ResourceGroup | undefined {
  const groupId = /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+/i.exec(deploymentId)?.[0];
  if (groupId === undefined) return undefined;
  const group = store.get<ResourceGroup>(groupId);
  if (!group) throw resourceGroupNotFound(groupId.split('/').pop()!);
  return group;
}

function finish(store: Store, op: Operation, update: (record: DeploymentRecord, now: string) => DeploymentRecord): void {
  const record = loadDeployment(store, op.resourceId);
  if (!record || record.aksemu.operationId !== op.id) return;
  saveDeployment(store, update(record, new Date().toISOString()));
}

function writeOperations(store: Store, deploymentId: string, records: ReturnType<typeof operationRecords>): void {
  store.deletePrefix(`${deploymentId}/operations/`);
  for (const r of records) store.put(r.id, r);
}

export const deploymentWriteKind: OperationKind = {
  kind: DEPLOYMENT_WRITE,
  run(op: Operation, env: OperationEnv) {
    const { store, registry } = env;
    const record = deploymentSummary(store, op.resourceId);
    if (!record || record.aksemu.operationId !== op.id) return;
    const input = op.input as DeploymentInput;
    const plan = planDeployment({
      template: input.template,
      parameters: input.parameters,
      scope: scopeOf(
        store,
        /^\/subscriptions\/([^/]+)/i.exec(record.id)![1]!,
        groupOfDeployment(store, record.id),
        record.name,
        input.baseUrl,
        record.location,
      ),
      groups: existingGroups(store),
    });
    if (tree.depth === 0) Object.assign(tree, { nested: 0, startedAt: Date.now() });
    tree.depth++;
    let result: ReturnType<typeof runPlan>;
    try {
      result = runPlan(plan, deployerFor(callerFor(store, registry, env.lro.immediate(), input)));
    } finally {
      tree.depth--;
    }
    if (!result.ok) {
      failedOutcomes.set(op.id, result.outcomes);
      const full = loadDeployment(store, record.id);
      if (full) {
        const now = new Date().toISOString();
        const failed: DeploymentRecord = {
          ...full,
          properties: {
            ...full.properties,
            provisioningState: 'Failed',
            timestamp: now,
            duration: isoDuration(full.aksemu.startTime, now),
            error: result.error.body,
          },
        };
        failedNested.set(record.id.toLowerCase(), { record: failed, template: input.template, outcomes: result.outcomes });
      }
      throw result.error;
    }
    finish(store, op, (r, now) => ({
      ...r,
      properties: {
        ...r.properties,
        provisioningState: 'Succeeded',
        timestamp: now,
        duration: isoDuration(r.aksemu.startTime, now),
        outputs: result.outputs,
        outputResources: result.outcomes.map((o) => ({ id: o.instance.id })),
      },
    }));
    writeOperations(
      store,
      record.id,
      operationRecords(record.id, result.outcomes, Object.keys(plan.template.outputs).length > 0 ? { at: new Date().toISOString() } : undefined),
    );
  },
  fail(op: Operation, { store }: OperationEnv, error: ArmErrorBody) {
    const outcomes = failedOutcomes.get(op.id) ?? [];
    failedOutcomes.delete(op.id);
    finish(store, op, (r, now) => ({
      ...r,
      properties: { ...r.properties, provisioningState: 'Failed', timestamp: now, duration: isoDuration(r.aksemu.startTime, now), error },
    }));
    writeOperations(store, op.resourceId, operationRecords(op.resourceId, outcomes, undefined));
    for (const [key, nested] of failedNested) {
      if (key === op.resourceId.toLowerCase()) continue;
      // Not when the group it ran in was itself made by the rolled-back run.
      const groupId = /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+/i.exec(nested.record.id)?.[0];
      if (groupId !== undefined && !store.get(groupId)) continue;
      saveDeployment(store, nested.record, nested.template);
      writeOperations(store, nested.record.id, operationRecords(nested.record.id, nested.outcomes, undefined));
    }
    failedNested.clear();
  },
};

/** Deleting a deployment removes its history only, never the resources it deployed (as ARM). */
export const deploymentDeleteKind: OperationKind = {
  kind: DEPLOYMENT_DELETE,
  run(op, { store }) {
    store.deletePrefix(`${op.resourceId}/`);
    store.delete(op.resourceId);
  },
};
