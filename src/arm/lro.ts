// Long-running operations as ARM runs them. A handler calls begin(): in one transaction the
// resource's initial state (Creating/Deleting) and an InProgress operation are written, and the
// client gets 201/202 with polling headers. Later the operation's kind runs its work in a second
// transaction that also marks the operation Succeeded, so an operation found InProgress after a
// crash has changed nothing yet and is simply run again on restart (or Failed if no provider can).
// A kind with much work (a resource group of hundreds of clusters) first runs it in slices, one
// transaction each with the event loop free between them; a restart resumes with the next slice.
// Every answer about a running operation says when to poll (Retry-After) from the work left: the delay
// before it runs plus its work (nodes) at a modest rate, so that a short operation is seen done at the
// first poll. Erring short costs little: the work runs in one transaction (or slices), so a poll that
// comes while it runs is answered once it is done.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ArmError, operationInterrupted, operationNotFound, type ArmErrorBody } from './errors.js';
import type { ArmResponse, RequestContext, Route } from './provider.js';
import type { Registry } from './registry.js';
import { OPERATIONS_PREFIX } from '../store/keys.js';
import type { Store } from '../store/store.js';
import { normalizeLocation } from './locations.js';
import { sameId } from '../ids/compare.js';

type OperationStatus = 'InProgress' | 'Succeeded' | 'Failed' | 'Canceled';

export interface Operation {
  id: string;
  kind: string;
  subscriptionId: string;
  namespace: string;
  /** Normalized (eastus), as it appears in the status URL. */
  location: string;
  resourceId: string;
  method: 'PUT' | 'PATCH' | 'DELETE' | 'POST';
  apiVersion: string;
  /** Whatever the kind needs to finish the work after a restart; JSON. */
  input?: unknown;
  status: OperationStatus;
  startTime: string;
  endTime?: string;
  error?: ArmErrorBody;
  /** The HTTP status operationresults answers with when the operation failed. */
  errorStatus?: number;
}

export interface OperationEnv {
  store: Store;
  registry: Registry;
  /** The engine running the operation; a kind that composes others uses lro.immediate(). */
  lro: Lro;
}

export interface OperationKind {
  /** Unique, e.g. Microsoft.Resources/resourceGroups/delete. */
  kind: string;
  /**
   * Work done before run(), a bounded part at a time: each call runs in its own transaction and
   * returns true, or returns false when nothing is left. Every slice must leave the state
   * consistent, since a restart may come between two. Throw an ArmError to fail the operation (the
   * slices already committed stay).
   */
  slice?(op: Operation, env: OperationEnv): boolean;
  /**
   * Does the work, synchronously, inside the transaction that marks the operation Succeeded.
   * Throw an ArmError to fail the operation; nothing run() changed is kept then.
   */
  run(op: Operation, env: OperationEnv): void;
  /** Puts state back in order after a failure, in the transaction that marks the operation Failed. */
  fail?(op: Operation, env: OperationEnv, error: ArmErrorBody): void;
}

type PollingHeaders =
  /** Resource providers' PUT/PATCH: Azure-AsyncOperation. */
  | 'async-operation'
  /** Resource providers' DELETE/POST: Azure-AsyncOperation and Location. */
  | 'async-operation+location'
  /** Resource group delete: Location at subscription scope only. */
  | 'subscription-location';

interface BeginSpec {
  kind: string;
  namespace: string;
  location: string;
  resourceId: string;
  method: Operation['method'];
  input?: unknown;
  /** Initial changes (e.g. provisioningState Deleting), committed together with the operation record. */
  prepare?: (operationId: string) => void;
  /** The immediate answer, e.g. 201 with the resource in Creating, or 202. */
  response: { status: number; body?: unknown };
  headers: PollingHeaders;
  /** Overrides the server's delay before the work runs. */
  delayMs?: number;
  /** How much work the operation is (the nodes it makes; 1 when not given): the poll delay grows with it. */
  work?: number;
  /**
   * The path clients poll for the status (Azure-AsyncOperation), when the provider serves its own
   * status URL: deployments hand out …/deployments/{name}/operationStatuses/{id}.
   */
  statusPath?: (operationId: string) => string;
}

function operationKey(id: string): string {
  return OPERATIONS_PREFIX + id;
}

function subscriptionOf(resourceId: string): string {
  const match = /^\/subscriptions\/([^/]+)/i.exec(resourceId);
  if (!match) throw new Error(`not a subscription-scoped resource id: ${resourceId}`);
  return match[1]!;
}

/** The path (no host, no query) of an operation's Azure-AsyncOperation status resource. */
function operationStatusPath(op: Operation): string {
  return `/subscriptions/${op.subscriptionId}/providers/${op.namespace}/locations/${op.location}/operations/${op.id}`;
}

/** What one unit of an operation's work (a node) is taken to cost, in ms: about a node of a 1,000-node create. */
const MS_PER_UNIT = 0.5;
/** A poll is never asked for sooner than this (ms), nor the header's whole seconds below 1 (0 means "the client's default"). */
const MIN_POLL_MS = 20;

/** When to poll again, in ARM's header (whole seconds, what az and the SDKs read) and in milliseconds (retry-after-ms). */
export function retryAfterHeaders(ms: number): Record<string, string> {
  const wait = Math.max(MIN_POLL_MS, Math.ceil(ms));
  return { 'Retry-After': String(Math.max(1, Math.ceil(wait / 1000))), 'retry-after-ms': String(wait) };
}

interface LroOptions {
  /** Milliseconds between accepting an operation and running its work. */
  delayMs: number;
  log: (line: string) => void;
}

export class Lro {
  /** How to cancel each operation's next step (a timer, or an immediate between slices). */
  private readonly scheduled = new Map<string, () => void>();
  /** Each running operation's work: when it is due to run, how much it is, and the time its slices have taken so far. */
  private readonly progress = new Map<string, { runAt: number; work: number; spentMs: number }>();
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly registry: Registry,
    private readonly options: LroOptions,
    /** begin() runs the work at once in the caller's transaction (see immediate()). */
    private readonly runAtOnce = false,
  ) {}

  /**
   * The same engine, except that begin() runs the operation's work at once, inside the caller's
   * transaction, and throws the work's error instead of recording a failure. For callers that
   * compose several operations into one change (a template deployment): a failing step rolls the
   * whole change back, and nothing is left for a timer or a restart to finish.
   */
  immediate(): Lro {
    return this.runAtOnce ? this : new Lro(this.store, this.registry, this.options, true);
  }

  get(id: string): Operation | undefined {
    return this.store.get<Operation>(operationKey(id));
  }

  /** Records the operation (with spec.prepare's changes) and answers with ARM's polling headers. */
  begin(ctx: Pick<RequestContext, 'baseUrl' | 'apiVersion'>, spec: BeginSpec): ArmResponse {
    if (!this.registry.operationKind(spec.kind)) throw new Error(`operation kind ${spec.kind} is not registered`);
    const op: Operation = {
      id: randomUUID(),
      kind: spec.kind,
      subscriptionId: subscriptionOf(spec.resourceId),
      namespace: spec.namespace,
      location: normalizeLocation(spec.location),
      resourceId: spec.resourceId,
      method: spec.method,
      apiVersion: ctx.apiVersion,
      input: spec.input,
      status: 'InProgress',
      startTime: new Date().toISOString(),
    };
    this.store.transaction(() => {
      spec.prepare?.(op.id);
      this.store.put(operationKey(op.id), op);
      if (this.runAtOnce) {
        const kind = this.registry.operationKind(op.kind)!;
        while (kind.slice?.(op, this.env()));
        kind.run(op, this.env());
        this.store.put(operationKey(op.id), { ...op, status: 'Succeeded', endTime: new Date().toISOString() });
      }
    });
    if (!this.runAtOnce) {
      const delayMs = spec.delayMs ?? this.options.delayMs;
      this.progress.set(op.id, { runAt: Date.now() + delayMs, work: Math.max(1, spec.work ?? 1), spentMs: 0 });
      this.schedule(op.id, delayMs);
    }
    const headers = this.pollingHeaders(ctx.baseUrl, op, spec.headers);
    if (spec.statusPath) headers['Azure-AsyncOperation'] = `${ctx.baseUrl}${spec.statusPath(op.id)}?api-version=${encodeURIComponent(op.apiVersion)}`;
    return { status: spec.response.status, body: spec.response.body, headers };
  }

  private pollingHeaders(baseUrl: string, op: Operation, style: PollingHeaders): Record<string, string> {
    const query = `?api-version=${encodeURIComponent(op.apiVersion)}`;
    const providerScope = `${baseUrl}/subscriptions/${op.subscriptionId}/providers/${op.namespace}/locations/${op.location}`;
    // Retry-After matters: without it clients poll every 30 s.
    const headers = this.retryAfter(op);
    if (style === 'subscription-location') {
      headers['Location'] = `${baseUrl}/subscriptions/${op.subscriptionId}/operationresults/${op.id}${query}`;
      return headers;
    }
    headers['Azure-AsyncOperation'] = `${providerScope}/operations/${op.id}${query}`;
    if (style === 'async-operation+location') headers['Location'] = `${providerScope}/operationresults/${op.id}${query}`;
    return headers;
  }

  /** How long until the operation is likely done (ms): its delay left, then what is left of its work. */
  workLeftMs(op: Operation): number {
    const p = this.progress.get(op.id);
    if (!p) return MS_PER_UNIT;
    return Math.max(0, p.runAt - Date.now()) + Math.max(0, p.work * MS_PER_UNIT - p.spentMs);
  }

  /** The polling headers of a running operation's answers (the initial one, and each status while InProgress). */
  retryAfter(op: Operation): Record<string, string> {
    return retryAfterHeaders(this.workLeftMs(op));
  }

  /** The operations still running on a resource or anything under it (AbortLatestOperation's targets). */
  running(resourceId: string): Operation[] {
    const under = `${resourceId.toLowerCase()}/`;
    return this.store
      .list<Operation>(OPERATIONS_PREFIX)
      .map((e) => e.value)
      .filter((op) => op.status === 'InProgress' && (sameId(op.resourceId, resourceId) || op.resourceId.toLowerCase().startsWith(under)));
  }

  /**
   * Cancels a running operation before its work runs (the work runs in one transaction, so none of it is
   * done): the operation ends Canceled and its kind's work never runs. Call inside the caller's transaction.
   */
  cancel(id: string): boolean {
    const op = this.get(id);
    if (!op || op.status !== 'InProgress') return false;
    this.scheduled.get(id)?.();
    this.scheduled.delete(id);
    this.progress.delete(id);
    this.store.put(operationKey(id), {
      ...op,
      status: 'Canceled',
      endTime: new Date().toISOString(),
      error: { code: 'OperationCanceled', message: 'The operation was canceled by AbortLatestOperation.' },
      errorStatus: 409,
    });
    return true;
  }

  /** At startup: every operation left InProgress runs again, or fails if no provider knows its kind. */
  recover(): number {
    let count = 0;
    for (const { value: op } of this.store.list<Operation>(OPERATIONS_PREFIX)) {
      if (op.status !== 'InProgress') continue;
      count++;
      if (this.registry.operationKind(op.kind)) {
        this.progress.set(op.id, { runAt: Date.now(), work: 1, spentMs: 0 });
        this.schedule(op.id, 0);
      } else this.finishFailed(op.id, operationInterrupted(op.kind));
    }
    return count;
  }

  /** Stops running operations; those not yet run stay InProgress in the store for recover(). */
  close(): void {
    this.closed = true;
    for (const cancel of this.scheduled.values()) cancel();
    this.scheduled.clear();
    this.progress.clear();
  }

  private env(): OperationEnv {
    return { store: this.store, registry: this.registry, lro: this };
  }

  /** Runs the operation's next step after delayMs, or (between slices) once pending I/O has been served. */
  private schedule(id: string, delayMs: number | 'after-io'): void {
    if (this.closed) return;
    const step = () => {
      this.scheduled.delete(id);
      this.execute(id);
    };
    if (delayMs === 'after-io') {
      const immediate = setImmediate(step);
      this.scheduled.set(id, () => clearImmediate(immediate));
    } else {
      const timer = setTimeout(step, delayMs);
      this.scheduled.set(id, () => clearTimeout(timer));
    }
  }

  private execute(id: string): void {
    const t0 = performance.now();
    try {
      const more = this.store.transaction(() => {
        const op = this.get(id);
        if (!op || op.status !== 'InProgress') return false;
        const kind = this.registry.operationKind(op.kind)!;
        if (kind.slice?.(op, this.env())) return true;
        kind.run(op, this.env());
        this.store.put(operationKey(id), { ...op, status: 'Succeeded', endTime: new Date().toISOString() });
        return false;
      });
      this.spent(id, performance.now() - t0, more);
      if (more) this.schedule(id, 'after-io');
    } catch (err) {
      this.progress.delete(id);
      if (!(err instanceof ArmError)) this.options.log(`operation ${id} failed: ${err instanceof Error ? err.stack : String(err)}`);
      const error = err instanceof ArmError ? err : new ArmError(500, 'InternalOperationError', 'The operation failed with an internal error.');
      this.finishFailed(id, error);
    }
  }

  /** Counts a step's time against its operation's work; a finished operation is forgotten. */
  private spent(id: string, ms: number, more: boolean): void {
    const p = this.progress.get(id);
    if (!p) return;
    if (more) p.spentMs += ms;
    else this.progress.delete(id);
  }

  private finishFailed(id: string, error: ArmError): void {
    this.store.transaction(() => {
      const op = this.get(id);
      if (!op || op.status !== 'InProgress') return;
      this.registry.operationKind(op.kind)?.fail?.(op, this.env(), error.body);
      this.store.put(operationKey(id), {
        ...op,
        status: 'Failed',
        endTime: new Date().toISOString(),
        error: error.body,
        errorStatus: error.status,
      });
    });
  }
}

// ---- the status endpoints clients poll ------------------------------------------------------

function operationStatusBody(op: Operation): Record<string, unknown> {
  const body: Record<string, unknown> = { id: operationStatusPath(op), name: op.id, status: op.status, startTime: op.startTime };
  if (op.endTime) body['endTime'] = op.endTime;
  if (op.error) body['error'] = op.error;
  return body;
}

/** The Location-header protocol: 202 while running, then the outcome. */
function operationResult(ctx: RequestContext, op: Operation, selfUrl: string): ArmResponse {
  if (op.status === 'InProgress') return { status: 202, headers: { Location: selfUrl, ...ctx.lro.retryAfter(op) } };
  if (op.status === 'Succeeded') {
    const resource = op.method === 'DELETE' ? undefined : ctx.store.get(op.resourceId);
    return resource === undefined ? { status: 204 } : { status: 200, body: resource };
  }
  const error = op.error ?? { code: 'Canceled', message: 'The operation was canceled.' };
  throw new ArmError(op.errorStatus ?? 400, error.code, error.message, error.target, error.details);
}

function findOperation(ctx: RequestContext, scope: { subscriptionId: string; namespace?: string; location?: string }): Operation {
  const id = ctx.params['operationId']!;
  const op = ctx.lro.get(id);
  const inScope =
    op !== undefined &&
    sameId(op.subscriptionId, scope.subscriptionId) &&
    (scope.namespace === undefined || sameId(op.namespace, scope.namespace)) &&
    (scope.location === undefined || sameId(op.location, normalizeLocation(scope.location)));
  if (!op || !inScope) throw operationNotFound(id);
  return op;
}

function selfUrl(ctx: RequestContext, path: string): string {
  return `${ctx.baseUrl}${path}?api-version=${encodeURIComponent(ctx.apiVersion)}`;
}

/** Routes for every provider's operation URLs; they accept any api-version (we handed it out). */
export function operationRoutes(): Route[] {
  const providerScope = '/subscriptions/{subscriptionId}/providers/{providerNamespace}/locations/{location}';
  const scope = (ctx: RequestContext) => ({
    subscriptionId: ctx.params['subscriptionId']!,
    namespace: ctx.params['providerNamespace']!,
    location: ctx.params['location']!,
  });
  return [
    {
      method: 'GET',
      path: `${providerScope}/operations/{operationId}`,
      apiVersions: 'any',
      handle: (ctx) => {
        const op = findOperation(ctx, scope(ctx));
        return { status: 200, body: operationStatusBody(op), ...(op.status === 'InProgress' ? { headers: ctx.lro.retryAfter(op) } : {}) };
      },
    },
    {
      method: 'GET',
      path: `${providerScope}/operationresults/{operationId}`,
      apiVersions: 'any',
      handle: (ctx) => {
        const op = findOperation(ctx, scope(ctx));
        return operationResult(
          ctx,
          op,
          selfUrl(ctx, `/subscriptions/${op.subscriptionId}/providers/${op.namespace}/locations/${op.location}/operationresults/${op.id}`),
        );
      },
    },
    {
      method: 'GET',
      path: '/subscriptions/{subscriptionId}/operationresults/{operationId}',
      apiVersions: 'any',
      handle: (ctx) => {
        const op = findOperation(ctx, { subscriptionId: ctx.params['subscriptionId']! });
        return operationResult(ctx, op, selfUrl(ctx, `/subscriptions/${op.subscriptionId}/operationresults/${op.id}`));
      },
    },
  ];
}
