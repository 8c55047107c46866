// The comparison of the server's final GET with the example's response. The example's response is contained in
// the answer: every member it shows is there with an equal value, arrays have the example's length and are compared
// item by item (by name where every item has one: the order of named children is not the API's); members the answer has beyond the example's are not differences (examples show a selection). The
// values that belong to one instance, not to the API, are masked: MASKED_MEMBERS and MASKED_VALUES say which, and why.

export interface Difference {
  path: string;
  expected: unknown;
  actual: unknown;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * The members whose values belong to one instance, with why. A masked member must be present in the answer
 * (when the example has it); its value is not compared.
 */
export const MASKED_MEMBERS: Readonly<Record<string, string>> = {
  provisioningState: 'examples record a state of the transition (Creating, Updating); the suite reads the end state',
  etag: "a hash of the instance's state",
  resourceGuid: 'generated per instance',
  fqdn: 'DNS name with a per-instance hash (dnsprefix-abcd1234.hcp.<region>…)',
  azurePortalFQDN: 'DNS name with a per-instance hash',
  privateFQDN: 'DNS name with a per-instance hash',
  nodeImageVersion: 'the node image of the day (AKSUbuntu-1604-2020.03.11 in the examples)',
  kubernetesVersion: 'examples were recorded with versions AKS offered then (1.9.6); a request naming a version is accepted or refused before this',
  currentKubernetesVersion: 'the patch version resolved on the day',
  orchestratorVersion: 'as kubernetesVersion',
  currentOrchestratorVersion: 'the patch version resolved on the day',
  maxAgentPools: "AKS's limit of pools per cluster (100); the examples show a placeholder 1",
  kubeconfigs: "each credential is the instance's kubeconfig (its server URL and certificates); the examples show placeholders",
  macAddress: 'assigned per NIC',
};

/** Values that belong to one instance wherever they appear: the example's value matches any value of its form. */
export const MASKED_VALUES: readonly { form: RegExp; reason: string }[] = [
  { form: GUID, reason: 'generated identifiers (principalId, tenantId, objectId …): any GUID matches a GUID' },
  { form: DATE_TIME, reason: 'timestamps: any date-time matches a date-time' },
];

/** ARM ids and types are compared without case: ARM treats them so, and examples spell them both ways. */
function caseInsensitive(member: string, value: string): boolean {
  return member === 'id' || member === 'type' || value.startsWith('/subscriptions/');
}

/** undefined: not masked; null: masked by member (any value); a RegExp: the answer's value must have this form. */
function masked(member: string, expected: unknown): RegExp | null | undefined {
  if (Object.hasOwn(MASKED_MEMBERS, member)) return null;
  return typeof expected === 'string' ? MASKED_VALUES.find((m) => m.form.test(expected))?.form : undefined;
}

function sameScalar(member: string, expected: unknown, actual: unknown): boolean {
  if (typeof expected === 'string' && typeof actual === 'string' && caseInsensitive(member, expected)) return expected.toLowerCase() === actual.toLowerCase();
  return expected === actual;
}

/**
 * Where the answer differs from the example, in document order; at most `limit`. With `list`, the top-level
 * `value` of a list answer may hold more named items than the example shows: what the setup needed beside the
 * example's items (a cluster's system pool beside the pool an agentPools list shows).
 */
export function differences(expected: unknown, actual: unknown, options: { list?: boolean; limit?: number } = {}): Difference[] {
  const out: Difference[] = [];
  walk(expected, actual, '', '', out, options.limit ?? 5, options.list === true);
  return out;
}

function walk(expected: unknown, actual: unknown, path: string, member: string, out: Difference[], limit: number, list = false): void {
  if (out.length >= limit) return;
  const form = masked(member, expected);
  if (form !== undefined) {
    if (actual === undefined || (form && !(typeof actual === 'string' && form.test(actual)))) out.push({ path, expected, actual });
    return;
  }
  if (Array.isArray(expected)) {
    const byName = expected.every((item) => typeof (item as { name?: unknown } | null)?.name === 'string');
    const more = list && path === '.value' && byName;
    if (!Array.isArray(actual) || (more ? actual.length < expected.length : actual.length !== expected.length)) {
      out.push({ path: `${path} (${expected.length} items)`, expected, actual });
      return;
    }
    expected.forEach((item, i) => {
      const name = byName ? String((item as { name: string }).name).toLowerCase() : undefined;
      const match = name === undefined ? actual[i] : actual.find((a) => String((a as { name?: unknown } | null)?.name ?? '').toLowerCase() === name);
      walk(item, match, `${path}[${name ?? i}]`, member, out, limit, list);
    });
    return;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) {
      out.push({ path, expected, actual });
      return;
    }
    for (const [key, value] of Object.entries(expected)) walk(value, (actual as Record<string, unknown>)[key], `${path}.${key}`, key, out, limit, list);
    return;
  }
  if (!sameScalar(member, expected, actual)) out.push({ path, expected, actual });
}

export function describe(d: Difference): string {
  const show = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v).slice(0, 80));
  return `${d.path || '(body)'}: example ${show(d.expected)}, aksemu ${show(d.actual)}`;
}
