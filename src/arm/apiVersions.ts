// The api-version check. Every published version of a route's type is accepted (real clients of
// other builds send other versions); a version that was never published is ARM's error. --loose
// accepts any well-formed version.
import { invalidApiVersionParameter, missingApiVersionParameter, noRegisteredProviderFound } from './errors.js';
import type { Provider, Route } from './provider.js';
import { sameId } from '../ids/compare.js';

/** Microsoft.Resources' published versions, in the order ARM lists them in its error. */
export const RESOURCES_API_VERSIONS: readonly string[] = [
  '2025-04-01',
  '2025-03-01',
  '2025-01-01',
  '2024-11-01',
  '2024-08-01',
  '2024-07-01',
  '2024-06-01-preview',
  '2024-03-01',
  '2023-07-01',
  '2023-07-01-preview',
  '2023-03-01-preview',
  '2022-12-01',
  '2022-11-01-preview',
  '2022-09-01',
  '2022-06-01',
  '2022-05-01',
  '2022-03-01-preview',
  '2022-01-01',
  '2021-04-01',
  '2021-01-01',
  '2020-10-01',
  '2020-09-01',
  '2020-08-01',
  '2020-07-01',
  '2020-06-01',
  '2020-05-01',
  '2020-01-01',
  '2019-11-01',
  '2019-10-01',
  '2019-09-01',
  '2019-08-01',
  '2019-07-01',
  '2019-06-01',
  '2019-05-10',
  '2019-05-01',
  '2019-03-01',
  '2018-11-01',
  '2018-09-01',
  '2018-08-01',
  '2018-07-01',
  '2018-06-01',
  '2018-05-01',
  '2018-02-01',
  '2018-01-01',
  '2017-12-01',
  '2017-08-01',
  '2017-06-01',
  '2017-05-10',
  '2017-05-01',
  '2017-03-01',
  '2016-09-01',
  '2016-07-01',
  '2016-06-01',
  '2016-02-01',
  '2015-11-01',
  '2015-01-01',
  '2014-04-01-preview',
  '2014-04-01',
  '2014-01-01',
  '2013-03-01',
  '2014-02-26',
  '2014-04',
];

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
