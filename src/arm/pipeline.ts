// The ARM request pipeline, in the order ARM applies it. Read top to bottom: each step either
// hands on to the next or throws an ArmError, which the last step turns into ARM's envelope.
// Independent of the HTTP server, so it can be driven directly.
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
  unsupportedMediaType,
} from './errors.js';
import type { Identity } from './identity.js';
import { getSubscription } from './identity.js';
import { checkTextDepth } from './jsonDepth.js';
import type { Lro } from './lro.js';
import { validatePathNames } from './names.js';
import type { ArmResponse, HttpMethod, Provider, RequestContext, Route } from './provider.js';
import { splitPath, type Registry } from './registry.js';
import { checkBody, parseJsonBody } from './schema.js';
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

    // 4. Route: the provider and handler for method + path (decoded segments), whose names are ARM's.
    const segments = splitPath(pathname);
    const { route, provider, params } = findRoute(deps.registry, req.method, segments, apiVersion, pathname);

    // 5. Scope: the subscription in the path exists.
    const subscriptionId = params['subscriptionId'];
    if (subscriptionId !== undefined && getSubscription(deps.store, subscriptionId) === undefined) {
      throw subscriptionNotFound(subscriptionId);
    }

    // 6. The route serves this api-version.
    const rawBody = req.rawBody ?? '';
    checkApiVersionSupported(provider, route, apiVersion, deps.loose, () => locationForErrors(rawBody));

    // 7. Body: JSON no deeper than ARM reads, an object checked against the route's model (strict unless --loose).
    const body = readBody(route, rawBody, header(req.headers, 'content-type'), deps.loose);

    // 8. Handler.
    const ctx: RequestContext = {
      requestId: req.requestId,
      method: req.method as HttpMethod,
      params,
      query,
      apiVersion,
      body,
      ...(route.rawBody ? { rawBody } : {}),
      baseUrl: req.baseUrl,
      principal,
      identity: deps.identity,
      store: deps.store,
      lro: deps.lro,
      registry: deps.registry,
      loose: deps.loose,
    };
    const response = await route.handle(ctx);
    return { ...response, headers: { ...idHeaders, ...response.headers } };
  } catch (err) {
    // 9. Errors: ARM's envelope {"error":{code,message,target,details}}; anything unexpected is a 500.
    const armError = err instanceof ArmError ? err : unexpected(err, req.requestId, deps.log);
    return errorResponse(armError, idHeaders);
  }
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
  return q < 0
    ? { pathname: url, query: new URLSearchParams() }
    : { pathname: url.slice(0, q), query: new URLSearchParams(url.slice(q + 1)) };
}

/**
 * Step 4: the route for method + path, or ARM's error explaining the miss; the names it binds are
 * checked before any handler makes a key of them. Also used by invokeRoute().
 */
export function findRoute(
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
  // Explain a miss under /providers/{namespace}/{type} as ARM does.
  const at = segments.findIndex((s) => s.toLowerCase() === 'providers');
  const namespace = at >= 0 ? segments[at + 1] : undefined;
  if (namespace !== undefined) {
    if (!registry.provider(namespace)) throw invalidResourceNamespace(namespace);
    const type = segments[at + 2];
    if (type !== undefined) throw invalidResourceType(type, namespace, apiVersion);
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

function readBody(route: Route, rawBody: string, contentType: string | undefined, loose: boolean): unknown {
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
  return checkBody(route.body, parseJsonBody(rawBody), !loose);
}

function unexpected(err: unknown, requestId: string, log: (line: string) => void): ArmError {
  log(`request ${requestId} failed: ${err instanceof Error ? err.stack : String(err)}`);
  return internalServerError(requestId);
}
