// The size of a template value as JSON text (in characters) and its nesting depth. Values share
// sub-values — createArray(v, v, v) holds v three times but stores it once — so a value can
// serialize to far more than it occupies; each object's measure is remembered, and a value made of
// measured parts is measured from their measures, not by walking them again.

export interface Measure {
  /** Characters of its JSON text (escapes aside). */
  size: number;
  /** 0 for a scalar, 1 for an object or array of scalars, … */
  depth: number;
  /** Values in it, itself included: what walking it costs. */
  nodes: number;
}

const SCALAR_NULL: Measure = { size: 4, depth: 0, nodes: 1 };
const measures = new WeakMap<object, Measure>();

export function measure(value: unknown): Measure {
  switch (typeof value) {
    case 'string':
      return { size: value.length + 2, depth: 0, nodes: 1 };
    case 'number':
      return { size: String(value).length, depth: 0, nodes: 1 };
    case 'boolean':
      return { size: value ? 4 : 5, depth: 0, nodes: 1 };
    case 'object':
      return value === null ? SCALAR_NULL : measureObject(value);
    default:
      return SCALAR_NULL;
  }
}

function measureObject(value: object): Measure {
  const known = measures.get(value);
  if (known) return known;
  let size = 2;
  let depth = 0;
  let nodes = 1;
  const add = (m: Measure, extra: number) => {
    size += m.size + extra;
    nodes += m.nodes;
    if (m.depth > depth) depth = m.depth;
  };
  if (Array.isArray(value)) {
    for (const item of value) add(measure(item), 1);
  } else {
    for (const [key, item] of Object.entries(value)) add(measure(item), key.length + 4);
  }
  const result = { size, depth: depth + 1, nodes };
  measures.set(value, result);
  return result;
}
