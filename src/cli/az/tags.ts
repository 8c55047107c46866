// az's --tags: space-separated key[=value] (a bare key gets ""; `--tags ""` clears).
export function parseTags(values: string[] | undefined): Record<string, string> | undefined {
  if (values === undefined) return undefined;
  const tags: Record<string, string> = {};
  for (const item of values) {
    if (item === '') continue;
    const eq = item.indexOf('=');
    if (eq < 0) tags[item] = '';
    else tags[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return tags;
}
