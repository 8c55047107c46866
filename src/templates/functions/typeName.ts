// ARM's names for JSON value types, as its messages use them.
export function typeName(value: unknown): string {
  if (value === null || value === undefined) return 'Null';
  if (Array.isArray(value)) return 'Array';
  if (typeof value === 'string') return 'String';
  if (typeof value === 'number') return Number.isInteger(value) ? 'Integer' : 'Float';
  if (typeof value === 'boolean') return 'Boolean';
  return 'Object';
}
