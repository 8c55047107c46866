// The api-version check. Every published version of a route's type is accepted (real clients of
// other builds send other versions); a version that was never published is ARM's error. --loose
// accepts any well-formed version.
import { invalidApiVersionParameter, missingApiVersionParameter, noRegisteredProviderFound } from './errors.js';
import type { Provider, Route } from './provider.js';
import { sameId } from '../ids/compare.js';
import resources from './api-versions.json' with { type: 'json' };

/**
 * Microsoft.Resources' published versions, in the order ARM lists them in its error: generated data
 * (./api-versions.json, written by tools/gen-arm-api-versions.mjs from the REST specs' resources/subscriptions
 * folders, @azure/arm-resources' and @azure/arm-resources-subscriptions' defaults, and ARM's own list).
 */
export const RESOURCES_API_VERSIONS: readonly string[] = resources.lists.all.versions;

const WELL_FORMED = /^\d{4}-\d{2}-\d{2}(-preview|-beta|-alpha|-privatepreview)?$/i;

/** Step 3 of the pipeline: the query parameter is there. Returns it. */
export function requireApiVersion(query: URLSearchParams): string {
  const apiVersion = query.get('api-version');
  if (apiVersion === null || apiVersion.trim() === '') throw missingApiVersionParameter();
  return apiVersion.trim();
}

/** After routing: the route serves this version. location() is asked only for the error message. */
export function checkApiVersionSupported(provider: Provider, route: Route, apiVersion: string, loose: boolean, location: () => string): void {
  const supported = route.apiVersions ?? provider.apiVersions;
  if (supported === 'any') return;
  if (supported.some((v) => sameId(v, apiVersion))) return;
  if (loose && WELL_FORMED.test(apiVersion)) return;
  if (provider.namespace.toLowerCase() === 'microsoft.resources') throw invalidApiVersionParameter(apiVersion, supported);
  throw noRegisteredProviderFound(location(), apiVersion, route.resourceType ?? 'unknown', supported);
}
