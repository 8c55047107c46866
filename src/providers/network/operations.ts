// Microsoft.Network's long-running operations, the way the RP runs them: a PUT answers 201/200 with
// provisioningState Updating and an Azure-AsyncOperation header; the operation then marks what the
// PUT wrote Succeeded. A DELETE answers 202 with Azure-AsyncOperation and Location (204 when there
// is nothing to delete). The change itself — validation, addresses, back-references — is made in the
// request's transaction, so every error is the request's synchronous 400 and a restart finds the
// store complete; the operation only finishes the provisioning state (or does nothing, for DELETE).
import type { OperationKind } from '../../arm/lro.js';
import type { ArmResponse, RequestContext } from '../../arm/provider.js';
import type { Store } from '../../store/store.js';
import { NAMESPACE } from './resource.js';

const PROVISION_KIND = 'Microsoft.Network/provision';
const DELETE_KIND = 'Microsoft.Network/delete';

interface ProvisionInput {
  ids: string[];
}

interface Provisionable {
  properties: { provisioningState?: string; [member: string]: unknown };
}

/** Turns Updating into Succeeded on a record and on the child resources it keeps inline. */
function succeed(store: Store, id: string): void {
  const record = store.get<Provisionable>(id);
  if (!record) return;
  let changed = false;
  const finish = <T extends { provisioningState?: string }>(p: T): T => {
    if (p.provisioningState !== 'Updating') return p;
    changed = true;
    return { ...p, provisioningState: 'Succeeded' };
  };
  const properties: Record<string, unknown> = finish({ ...record.properties });
  for (const member of ['securityRules', 'routes', 'ipConfigurations', 'delegations', 'serviceEndpoints']) {
    const children = properties[member];
    if (!Array.isArray(children)) continue;
    properties[member] = children.map((c: { properties?: { provisioningState?: string }; provisioningState?: string }) =>
      c.properties ? { ...c, properties: finish(c.properties) } : finish(c),
    );
  }
  if (changed) store.put(id, { ...record, properties });
}

export const operationKinds: OperationKind[] = [
  {
    kind: PROVISION_KIND,
    run(op, { store }) {
      for (const id of (op.input as ProvisionInput).ids) succeed(store, id);
    },
  },
  // The resource left in the request's transaction; the operation only reports it.
  { kind: DELETE_KIND, run() {} },
];

interface PutSpec<T> {
  resourceId: string;
  location: string;
  /** Validates and writes (with provisioningState Updating), inside the operation's transaction. */
  write(): { created: boolean; touched: string[]; body: () => T };
}

/** A PUT as the RP answers it: 201 (created) or 200, the resource in Updating, Azure-AsyncOperation. */
export function beginPut<T>(ctx: RequestContext, spec: PutSpec<T>): ArmResponse {
  // Lro.begin reads `response` after running prepare, so the body written there is what goes out.
  const response: { status: number; body?: unknown } = { status: 200 };
  const ids: string[] = [];
  const result = ctx.lro.begin(ctx, {
    kind: PROVISION_KIND,
    namespace: NAMESPACE,
    location: spec.location,
    resourceId: spec.resourceId,
    method: 'PUT',
    input: { ids } satisfies ProvisionInput,
    prepare: () => {
      const written = spec.write();
      ids.push(...written.touched);
      response.status = written.created ? 201 : 200;
      response.body = written.body();
    },
    response,
    headers: 'async-operation',
  });
  return result;
}

/** A DELETE as the RP answers it: the resource goes in this transaction; 202 with polling headers. */
export function beginDelete(ctx: RequestContext, spec: { resourceId: string; location: string; remove: () => void }): ArmResponse {
  return ctx.lro.begin(ctx, {
    kind: DELETE_KIND,
    namespace: NAMESPACE,
    location: spec.location,
    resourceId: spec.resourceId,
    method: 'DELETE',
    prepare: spec.remove,
    response: { status: 202 },
    headers: 'async-operation+location',
  });
}
