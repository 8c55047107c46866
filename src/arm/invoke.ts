// Calling a route in-process, as the deployment engine calls resource providers: the same route
// matching, subscription, api-version and body checks as an HTTP request (the pipeline's dispatch, steps
// 4–8), without HTTP or a token (the caller has authenticated already and names the principal it acts
// for). Synchronous, so a caller can run several calls inside one store transaction.
import { invalidRequestContent } from './errors.js';
import { checkValueDepth } from './jsonDepth.js';
import { dispatch, type DispatchCaller } from './pipeline.js';
import type { ArmResponse, HttpMethod } from './provider.js';
import { checkBody } from './schema.js';

/**
 * What an in-process caller brings instead of an HTTP request's connection and token; its lro is usually
 * lro.immediate(), so operations finish inside the caller's transaction.
 */
export type InProcessCaller = DispatchCaller;

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
  const location = (req.body as { location?: unknown } | undefined)?.location;
  const { route, response } = dispatch({
    ...caller,
    method: req.method,
    pathname: req.path,
    query: new URLSearchParams(req.query ?? {}),
    apiVersion: req.apiVersion,
    body: {
      location: () => (typeof location === 'string' ? location : 'global'),
      read: (route, refuse) => {
        if (!route.body) return undefined;
        if (req.body === undefined || req.body === null) {
          if (route.bodyRequired) throw invalidRequestContent('The request content is empty');
          return undefined;
        }
        return checkBody(route.body, req.body, refuse);
      },
      text: () => (req.body === undefined ? undefined : JSON.stringify(req.body)),
    },
  });
  if (response instanceof Promise) {
    // An asynchronous handler cannot take part in the caller's transaction.
    throw new Error(`${req.method} ${route.path} is asynchronous and cannot be invoked in-process`);
  }
  return response;
}
