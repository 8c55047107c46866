// Members named by template input (parameter, variable and output names, object keys from JSON,
// createObject(), union(), json()) are data: written as own properties, so a key like __proto__
// never sets a prototype, and read from own properties only, so constructor or toString never
// answers from Object.prototype.

/** target[key] = value, as an own data property whatever the key. */
export function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  // Only __proto__ is an accessor on Object.prototype; every other key assigns as data.
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** The own key that matches name as ARM matches names (case-insensitively, the exact case first). */
export function memberKey(target: object, name: string): string | undefined {
  if (Object.hasOwn(target, name)) return name;
  const lower = name.toLowerCase();
  return Object.keys(target).find((k) => k.toLowerCase() === lower);
}

/** target's own member named key (exact case), or undefined. */
export function ownMember(target: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(target, key) ? target[key] : undefined;
}

/** The own keys with their lower-case forms, ordered ordinally by those (as .NET's OrdinalIgnoreCase). */
export function keysIgnoringCase(target: object): Array<readonly [lower: string, key: string]> {
  return Object.keys(target).map((key) => [key.toLowerCase(), key] as const).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
}
