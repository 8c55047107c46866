// The JSON the generators write: every object's keys sorted, two-space indented, newline-terminated, so the same
// input gives the same bytes (tools/gen-aks-api-versions.mjs, tools/gen-arm-api-versions.mjs).

export function stableJson(value) {
  const sortKeys = (v) => {
    if (Array.isArray(v)) return v.map(sortKeys);
    if (v && typeof v === 'object') {
      const out = {};
      for (const k of Object.keys(v).sort()) out[k] = sortKeys(v[k]);
      return out;
    }
    return v;
  };
  return `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}
