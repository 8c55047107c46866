// What a resource provider hands the front door: its routes, the kinds of long-running operation it
// can finish (also after a restart), and what it does when a resource group is deleted.
import type { Refusal, Schema } from './schema.js';
import type { Store } from '../store/store.js';
import type { Lro, OperationKind } from './lro.js';
import type { Principal } from './auth.js';
import type { Identity } from './identity.js';
import type { Registry } from './registry.js';

export type HttpMethod = 'GET' | 'HEAD' | 'PUT' | 'PATCH' | 'DELETE' | 'POST';

export interface ArmResponse {
  status: number;
  /** Serialized as JSON; omitted for HEAD, 202 without body, and 204. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** Everything a handler may use. One per request. */
export interface RequestContext {
  readonly requestId: string;
  readonly method: HttpMethod;
  /** Decoded path parameters, in the request's casing. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly apiVersion: string;
  /** The body after the route's schema check (member names in the model's casing); undefined if none. */
  readonly body: unknown;
  /** The body as received, for routes that parse it themselves (Route.rawBody). */
  readonly rawBody?: string;
  /** https://host:port of this server as the client reached it; every URL handed out starts with it. */
  readonly baseUrl: string;
  readonly principal: Principal;
  readonly identity: Identity;
  readonly store: Store;
  readonly lro: Lro;
  /** The routes of every provider, for handlers that call others in-process (deployments). */
  readonly registry: Registry;
  readonly loose: boolean;
  /** --strict: unknown request members are refused even where the service ignores them (Provider.unknownMembers). */
  readonly strict: boolean;
  /** The request's If-Match / If-None-Match headers, for providers with eTags. */
  readonly conditions?: Conditions;
}

export interface Conditions {
  ifMatch?: string;
  ifNoneMatch?: string;
}

export interface Route {
  method: HttpMethod;
  /**
   * A path template; literal segments match case-insensitively, `{name}` matches one segment.
   * E.g. /subscriptions/{subscriptionId}/resourcegroups/{resourceGroupName}
   */
  path: string;
  /** Overrides the provider's api-versions; 'any' for URLs this server hands out (operation status). */
  apiVersions?: readonly string[] | 'any';
  /** The resource type named in api-version errors, e.g. managedClusters. */
  resourceType?: string;
  /** The request-body model, or the model of each api-version; a body on a route without one is ignored. */
  body?: Schema | ((apiVersion: string) => Schema);
  /** The body must be present (PUT of a resource). */
  bodyRequired?: boolean;
  /**
   * The handler parses the body text (ctx.rawBody) itself instead of the JSON schema check:
   * az sends template deployments as JSONC with an unquoted key (docs/clients.md §3.10).
   */
  rawBody?: boolean;
  handle(ctx: RequestContext): ArmResponse | Promise<ArmResponse>;
}

export interface Provider {
  /** e.g. Microsoft.Network; its routes live under /providers/{namespace}/ (Microsoft.Resources also at the top). */
  namespace: string;
  /** The api-versions every route accepts unless it says otherwise; newest first (errors list them). */
  apiVersions: readonly string[];
  routes: readonly Route[];
  /**
   * What the service does with request members the api-version's model lacks, where its rule is public: 'ignore'
   * (dropped: not stored, not answered) or its own refusal. Without it aksemu refuses them (errors.ts unknownMembers).
   */
  unknownMembers?(apiVersion: string): 'ignore' | Refusal;
  operationKinds?: readonly OperationKind[];
  /**
   * Deletes one bounded part of what the provider holds in a resource group being deleted (one
   * cluster and all it holds elsewhere), in a transaction of its own; false when nothing is left.
   * The group delete calls it until every provider says false, so a big group goes in slices that
   * let other requests run, and each slice leaves a consistent state for a restart to resume from.
   */
  deleteSliceOfResourceGroup?(groupId: string, store: Store): boolean;
  /**
   * Called inside the transaction that deletes a resource group, after every slice and before its
   * keys are removed, so a provider can release what lives outside the group (addresses).
   */
  onResourceGroupDelete?(groupId: string, store: Store): void;
}
