// The ARM request pipeline, in the order ARM applies it. Read top to bottom: each step either
// hands on to the next or throws an ArmError, which the last step turns into ARM's envelope.
// Independent of the HTTP server, so it can be driven directly. Steps 4–8 (dispatch) are shared with
// in-process calls (invoke.ts), which bring a parsed body instead of text and no token.
import type { IncomingHttpHeaders } from 'node:http';
import { checkApiVersionSupported, requireApiVersion } from './apiVersions.js';
import type { TokenAuthority } from './auth.js';
import { authorityUrl } from './authority.js';
import {
  ArmError,
  internalServerError,
  invalidRequestContent,
  invalidResourceNamespace,
  invalidResourceType,
  methodNotAllowed,
  pathNotFound,
  subscriptionNotFound,
  unknownAction,
  unknownMembers,
  unsupportedMediaType,
} from './errors.js';
import type { Identity } from './identity.js';
import { getSubscription } from './identity.js';
import { checkTextDepth } from './jsonDepth.js';
import { validatePathNames } from './names.js';
import type { Principal } from './auth.js';
import type { Lro } from './lro.js';
import type { ArmResponse, Conditions, HttpMethod, Provider, RequestContext, Route } from './provider.js';
import { splitPath, type Registry } from './registry.js';
import { checkBody, parseJsonBody, type Refusal, type Schema } from './schema.js';
import type { Store } from '../store/store.js';

export interface PipelineRequest {
  method: string;
  /** Path and query, as received. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The body as text; undefined or '' when there is none. */
  rawBody: string | undefined;
  /** The id this server gave the request (also in its log line). */
  requestId: string;
  /** https://host:port as the client reached us. */
  baseUrl: string;
}

export interface PipelineDeps {
  registry: Registry;
  store: Store;
  lro: Lro;
  authority: TokenAuthority;
  identity: Identity;
  loose: boolean;
  /** Unknown request members refused even where the service ignores them. */
  strict: boolean;
  log: (line: string) => void;
}

const METHODS: readonly HttpMethod[] = ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'POST'];

export async function runPipeline(req: PipelineRequest, deps: PipelineDeps): Promise<ArmResponse> {
  // 1. Request ids: ours, the caller's correlation id (or ours), the client's id echoed.
  const idHeaders = requestIdHeaders(req);
  try {
    // 2. Authentication: a valid bearer token for ARM's audience, or 401.
    const principal = await deps.authority.verify(header(req.headers, 'authorization'), req.baseUrl, authorityUrl(req.baseUrl));

    // 3. api-version present.
    const { pathname, query } = splitUrl(req.url);
    const apiVersion = requireApiVersion(query);

    // 4–8. Route, scope, api-version, body, handler.
    const rawBody = req.rawBody ?? '';
    const { response: answer } = dispatch({
      method: req.method,
      pathname,
      query,
      apiVersion,
      body: {
        location: () => locationForErrors(rawBody),
        read: (route, refuse) => readBody(route, rawBody, header(req.headers, 'content-type'), refuse),
        text: () => rawBody,
      },
      conditions: conditionsOf(req.headers),
      requestId: req.requestId,
      baseUrl: req.baseUrl,
      principal,
      identity: deps.identity,
      store: deps.store,
      lro: deps.lro,
      registry: deps.registry,
      loose: deps.loose,
      strict: deps.strict,
    });
    const response = await answer;
    return { ...response, headers: { ...idHeaders, ...response.headers } };
  } catch (err) {
    // 9. Errors: ARM's envelope {"error":{code,message,target,details}}; anything unexpected is a 500.
    const armError = err instanceof ArmError ? err : unexpected(err, req.requestId, deps.log);
    return errorResponse(armError, idHeaders);
  }
}

/** A route with the model of the request's api-version in place of a per-version one. */
export type ModelledRoute = Omit<Route, 'body'> & { body?: Schema };

/** A request body as its caller has it: text off the wire, or a value built in process. */
export interface DispatchBody {
  /** The body's location, which NoRegisteredProviderFound names ('global' without one). */
  location(): string;
  /**
   * Step 7: the body the route's handler gets, checked against its model, unknown members refused by `refuse` (dropped
   * without it); undefined when it takes none.
   */
  read(route: ModelledRoute, refuse: Refusal | undefined): unknown;
  /** The body's text, for routes that parse it themselves (Route.rawBody); undefined when there is none. */
  text(): string | undefined;
}

/** Who asks, and the server state the handler works on: what a handler's context carries besides the request. */
export interface DispatchCaller {
  requestId: string;
  /** https://host:port as the client reached us. */
  baseUrl: string;
  principal: Principal;
  identity: Identity;
  store: Store;
  lro: Lro;
  registry: Registry;
  loose: boolean;
  strict: boolean;
}

/** What steps 4–8 need: the request, once authenticated and its api-version known. */
export interface DispatchRequest extends DispatchCaller {
  method: string;
  /** The path, not yet decoded. */
  pathname: string;
  query: URLSearchParams;
  apiVersion: string;
  body: DispatchBody;
  conditions?: Conditions;
}

/**
 * Steps 4–8, for HTTP requests (runPipeline) and in-process calls (invokeRoute) alike: the route, the
 * subscription, the api-version, the body, then the handler, whose answer (or promise of one) is returned
 * with the route that gave it. ARM errors are thrown as ArmError.
 */
export function dispatch(req: DispatchRequest): { route: Route; response: ArmResponse | Promise<ArmResponse> } {
  // 4. Route: the provider and handler for method + path (decoded segments), whose names are ARM's.
  const segments = splitPath(req.pathname);
  const { route, provider, params } = findRoute(req.registry, req.method, segments, req.apiVersion, req.pathname);

  // 5. Scope: the subscription in the path exists.
  const subscriptionId = params['subscriptionId'];
  if (subscriptionId !== undefined && getSubscription(req.store, subscriptionId) === undefined) {
    throw subscriptionNotFound(subscriptionId);
  }

  // 6. The route serves this api-version.
  checkApiVersionSupported(provider, route, req.apiVersion, req.loose, req.body.location);

  // 7. Body: JSON no deeper than ARM reads, an object checked against the route's model; unknown members as the
  // provider's rule says (unknownMemberRule).
  const { body: model, ...rest } = route;
  const body = req.body.read(
    typeof model === 'function' ? { ...rest, body: model(req.apiVersion) } : { ...rest, ...(model ? { body: model } : {}) },
    unknownMemberRule(provider, req.apiVersion, req),
  );

  // 8. Handler.
  const rawBody = route.rawBody ? req.body.text() : undefined;
  const ctx: RequestContext = {
    requestId: req.requestId,
    method: req.method as HttpMethod,
    params,
    query: req.query,
    apiVersion: req.apiVersion,
    body,
    ...(rawBody !== undefined ? { rawBody } : {}),
    baseUrl: req.baseUrl,
    principal: req.principal,
    identity: req.identity,
    store: req.store,
    lro: req.lro,
    registry: req.registry,
    loose: req.loose,
    strict: req.strict,
    ...(req.conditions ? { conditions: req.conditions } : {}),
  };
  return { route, response: route.handle(ctx) };
}

/** An ArmError as a response: ARM's envelope, with the error's own headers (WWW-Authenticate). */
export function errorResponse(armError: ArmError, headers: Record<string, string>): ArmResponse {
  return { status: armError.status, body: armError.toJSON(), headers: { ...headers, ...armError.headers } };
}

// ---- the steps' helpers --------------------------------------------------------------------

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function conditionsOf(headers: IncomingHttpHeaders): Conditions | undefined {
  const ifMatch = header(headers, 'if-match');
  const ifNoneMatch = header(headers, 'if-none-match');
  if (ifMatch === undefined && ifNoneMatch === undefined) return undefined;
  return { ...(ifMatch !== undefined ? { ifMatch } : {}), ...(ifNoneMatch !== undefined ? { ifNoneMatch } : {}) };
}

/** Ids clients send are echoed only if they look like ids (never reflect arbitrary header text). */
function sane(id: string | undefined): string | undefined {
  return id !== undefined && /^[\w.:-]{1,200}$/.test(id) ? id : undefined;
}

function requestIdHeaders(req: PipelineRequest): Record<string, string> {
  const headers: Record<string, string> = {
    'x-ms-request-id': req.requestId,
    'x-ms-correlation-request-id': sane(header(req.headers, 'x-ms-correlation-request-id')) ?? req.requestId,
  };
  const clientRequestId = sane(header(req.headers, 'x-ms-client-request-id'));
  if (clientRequestId) headers['x-ms-client-request-id'] = clientRequestId;
  return headers;
}

function splitUrl(url: string): { pathname: string; query: URLSearchParams } {
  const q = url.indexOf('?');
  return q < 0 ? { pathname: url, query: new URLSearchParams() } : { pathname: url.slice(0, q), query: new URLSearchParams(url.slice(q + 1)) };
}

/**
 * Step 4: the route for method + path, or ARM's error explaining the miss; the names it binds are
 * checked before any handler makes a key of them.
 */
function findRoute(
  registry: Registry,
  method: string,
  segments: readonly string[],
  apiVersion: string,
  pathname: string,
): { route: Route; provider: Provider; params: Record<string, string> } {
  const match = METHODS.includes(method as HttpMethod) ? registry.match(method as HttpMethod, segments) : { kind: 'method-not-allowed' as const };
  if (match.kind === 'route') {
    validatePathNames(match.params);
    return match;
  }
  if (match.kind === 'method-not-allowed') throw methodNotAllowed(method);
  // Explain a miss under /providers/{namespace}/{type} as ARM does (docs/aks-rules.md §8): the type is every
  // type segment under the namespace (managedClusters/agentPools), not only the first.
  const at = segments.findIndex((s) => s.toLowerCase() === 'providers');
  const namespace = at >= 0 ? segments[at + 1] : undefined;
  if (namespace !== undefined) {
    if (!registry.provider(namespace)) throw invalidResourceNamespace(namespace);
    const rest = segments.slice(at + 2);
    const typeOf = (parts: readonly string[]) => parts.filter((_, i) => i % 2 === 0).join('/');
    // type/name/…/action: ARM hands an action on a type it knows to the provider, which has no such action.
    if (method === 'POST' && rest.length >= 3 && rest.length % 2 === 1 && registry.knowsType(namespace, typeOf(rest.slice(0, -1)))) {
      throw unknownAction(rest[rest.length - 1]!, `${namespace}/${typeOf(rest.slice(0, -1))}`);
    }
    if (rest.length > 0) throw invalidResourceType(typeOf(rest), namespace, apiVersion);
  }
  throw pathNotFound(pathname);
}

/** NoRegisteredProviderFound names the location of the body, when there is one. */
function locationForErrors(rawBody: string): string {
  try {
    checkTextDepth(rawBody);
    const location = (JSON.parse(rawBody) as { location?: unknown }).location;
    return typeof location === 'string' ? location : 'global';
  } catch {
    return 'global';
  }
}

/**
 * How unknown request members are answered: dropped with --loose; else the provider's public rule, which --strict
 * overrides where that rule is to ignore them; else aksemu refuses them, naming every one. docs/aks-rules.md §1.5
 */
function unknownMemberRule(provider: Provider, apiVersion: string, mode: { loose: boolean; strict: boolean }): Refusal | undefined {
  if (mode.loose) return undefined;
  const own = provider.unknownMembers?.(apiVersion);
  if (own === undefined || (own === 'ignore' && mode.strict)) return unknownMembers;
  return own === 'ignore' ? undefined : own;
}

function readBody(route: ModelledRoute, rawBody: string, contentType: string | undefined, refuse: Refusal | undefined): unknown {
  if (!route.body && !route.rawBody) return undefined;
  // Before any parser runs: routes that parse their own text (templates) are bounded too.
  checkTextDepth(rawBody);
  if (!route.body) return undefined;
  if (rawBody.trim() === '') {
    if (route.bodyRequired) throw invalidRequestContent('The request content is empty');
    return undefined;
  }
  const mediaType = contentType?.split(';')[0]!.trim().toLowerCase();
  if (mediaType && mediaType !== 'application/json' && !mediaType.endsWith('+json') && mediaType !== 'text/json') {
    throw unsupportedMediaType(mediaType);
  }
  return checkBody(route.body, parseJsonBody(rawBody), refuse);
}

function unexpected(err: unknown, requestId: string, log: (line: string) => void): ArmError {
  log(`request ${requestId} failed: ${err instanceof Error ? err.stack : String(err)}`);
  return internalServerError(requestId);
}
