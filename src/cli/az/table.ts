// `-o table` as knack renders it: python-tabulate 0.8.9, "simple" format, numparse off (so every
// column is left-aligned), widths max(header + 2, cells), rows right-stripped.

/** knack's _auto_table_item: drops id/type/etag, nulls, lists and objects; capitalizes keys. */
export function autoTableItem(item: unknown, sortKeys: boolean): Map<string, unknown> {
  const entry = new Map<string, unknown>();
  if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
    const record = item as Record<string, unknown>;
    const keys = sortKeys ? Object.keys(record).sort() : Object.keys(record);
    for (const key of keys) {
      if (key === 'id' || key === 'type' || key === 'etag') continue;
      const value = record[key];
      if (value !== null && value !== undefined && typeof value !== 'object') entry.set(key ? key[0]!.toUpperCase() + key.slice(1) : key, value);
    }
  } else if (Array.isArray(item)) {
    item.forEach((value, i) => entry.set(`Column${i + 1}`, value));
  } else {
    entry.set('Result', item);
  }
  return entry;
}

/** Python's str() for the scalar types a table cell holds. */
export function pyStr(value: unknown): string {
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value === null || value === undefined) return 'None';
  return String(value);
}

export function tabulate(rows: Map<string, unknown>[]): string {
  const headers: string[] = [];
  for (const row of rows) for (const key of row.keys()) if (!headers.includes(key)) headers.push(key);
  if (headers.length === 0) return '';
  const cells = rows.map((row) => headers.map((h) => (row.has(h) ? pyStr(row.get(h)) : '')));
  const widths = headers.map((h, i) => Math.max(h.length + 2, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}
