// Members named by template input (parameter, variable and output names, object keys from JSON,
// createObject(), union(), json()) are data: written and read as own properties (src/http/own.ts), and
// found by name as ARM finds them, case-insensitively.

/** The own key that matches name as ARM matches names (case-insensitively, the exact case first). */
export function memberKey(target: object, name: string): string | undefined {
  if (Object.hasOwn(target, name)) return name;
  const lower = name.toLowerCase();
  return Object.keys(target).find((k) => k.toLowerCase() === lower);
}

/** The own keys with their lower-case forms, ordered ordinally by those (as .NET's OrdinalIgnoreCase). */
export function keysIgnoringCase(target: object): Array<readonly [lower: string, key: string]> {
  return Object.keys(target)
    .map((key) => [key.toLowerCase(), key] as const)
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
}
