// Calling a route in-process, as the deployment engine calls resource providers: the same route
// matching, subscription, api-version and body checks as an HTTP request, without HTTP or a token
// (the caller has authenticated already and names the principal it acts for). Synchronous, so a
// caller can run several calls inside one store transaction.
import { checkApiVersionSupported } from './apiVersions.js';
import { invalidRequestContent, subscriptionNotFound } from './errors.js';
import type { Identity } from './identity.js';
import { getSubscription } from './identity.js';
import { checkValueDepth } from './jsonDepth.js';
import type { Lro } from './lro.js';
import { findRoute } from './pipeline.js';
import type { Principal } from './auth.js';
import type { ArmResponse, HttpMethod, RequestContext } from './provider.js';
import { splitPath, type Registry } from './registry.js';
import { checkBody } from './schema.js';
import type { Store } from '../store/store.js';

/** What an in-process caller brings instead of an HTTP request's connection and token. */
export interface InProcessCaller {
  registry: Registry;
  store: Store;
  /** Usually lro.immediate(), so operations finish inside the caller's transaction. */
  lro: Lro;
  identity: Identity;
  principal: Principal;
  baseUrl: string;
  loose: boolean;
  requestId: string;
}

export interface InProcessRequest {
  method: HttpMethod;
  /** A path under the server, e.g. a resource id; no query. */
  path: string;
  apiVersion: string;
  /** The body as parsed JSON; checked against the route's model like a request body. */
  body?: unknown;
  query?: Record<string, string>;
}

/** Runs the route's handler and returns its answer; ARM errors are thrown as ArmError. */
export function invokeRoute(caller: InProcessCaller, req: InProcessRequest): ArmResponse {
  // A body built in process has no text the pipeline could bound: bound the value before anything walks it.
  checkValueDepth(req.body);
  const segments = splitPath(req.path);
  const { route, provider, params } = findRoute(caller.registry, req.method, segments, req.apiVersion, req.path);
  const subscriptionId = params['subscriptionId'];
  if (subscriptionId !== undefined && getSubscription(caller.store, subscriptionId) === undefined) {
    throw subscriptionNotFound(subscriptionId);
  }
  const location = (req.body as { location?: unknown } | undefined)?.location;
  checkApiVersionSupported(provider, route, req.apiVersion, caller.loose, () => (typeof location === 'string' ? location : 'global'));
  let body: unknown;
  if (route.body) {
    if (req.body === undefined || req.body === null) {
      if (route.bodyRequired) throw invalidRequestContent('The request content is empty');
    } else {
      body = checkBody(route.body, req.body, !caller.loose);
    }
  }
  const ctx: RequestContext = {
    requestId: caller.requestId,
    method: req.method,
    params,
    query: new URLSearchParams(req.query ?? {}),
    apiVersion: req.apiVersion,
    body,
    ...(route.rawBody && req.body !== undefined ? { rawBody: JSON.stringify(req.body) } : {}),
    baseUrl: caller.baseUrl,
    principal: caller.principal,
    identity: caller.identity,
    store: caller.store,
    lro: caller.lro,
    registry: caller.registry,
    loose: caller.loose,
  };
  const result = route.handle(ctx);
  if (result instanceof Promise) {
    // An asynchronous handler cannot take part in the caller's transaction.
    throw new Error(`${req.method} ${route.path} is asynchronous and cannot be invoked in-process`);
  }
  return result;
}
