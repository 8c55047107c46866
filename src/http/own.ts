// User JSON is read and written by its own keys only. A key such as `__proto__`, `constructor` or `toString`
// is data like any other: reading it must not reach Object.prototype or its members, and writing it must not
// replace an object's prototype (issue 11: a JSON patch through /__proto__ polluted every object). The cluster API, ARM's body schema
// and the template engine all read and write user JSON through these.

export type Dict<T = unknown> = Record<string, T>;

/** obj[key] when obj holds key itself; undefined otherwise, and for anything that is not an object. */
export function own<T = unknown>(obj: unknown, key: string): T | undefined {
  return obj !== null && typeof obj === 'object' && Object.hasOwn(obj, key) ? (obj as Dict<T>)[key] : undefined;
}

/** Sets obj[key] as an own data property (assignment would make `__proto__` the prototype). */
export function setOwn(obj: object, key: string, value: unknown): void {
  // Only __proto__ is an accessor on Object.prototype: every other key assigns as data, and faster.
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else (obj as Dict)[key] = value;
}

/** An object without a prototype, for maps keyed by user input. */
export function dict<T>(): Dict<T> {
  return Object.create(null) as Dict<T>;
}

export function isPlainObject(v: unknown): v is Dict {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
