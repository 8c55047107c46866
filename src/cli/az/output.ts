// The result printed as az prints it (knack output.py): json (2-space indent, keys sorted), jsonc
// (json when stdout is not a terminal, as az does), yaml (PyYAML safe_dump style), table, tsv, none;
// --query (JMESPath) is applied first, and a command's table transformer only without --query.
import { createRequire } from 'node:module';
import type JmesPath from 'jmespath';
import type * as Yaml from 'yaml';
import { AzCliError } from './errors.js';
import { autoTableItem, pyStr, tabulate } from './table.js';

// yaml and jmespath load when first used: most commands print json or nothing and take no --query, and
// yaml alone is ~40 ms of every command's process start.
const require = createRequire(import.meta.url);
const yaml = (): typeof Yaml => require('yaml') as typeof Yaml;
const jmespath = (): typeof JmesPath => require('jmespath') as typeof JmesPath;

export const OUTPUT_FORMATS = ['json', 'jsonc', 'yaml', 'yamlc', 'table', 'tsv', 'none'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export type TableTransformer = (result: unknown) => unknown;

function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeysDeep((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

function formatJson(result: unknown): string {
  return `${JSON.stringify(sortKeysDeep(result) ?? null, null, 2)}\n`;
}

export function formatYaml(result: unknown): string {
  // safe_dump(default_flow_style=False): sorted keys, block style, sequences not indented under keys.
  return yaml().stringify(result ?? null, { sortMapEntries: true, indentSeq: false, lineWidth: 0, nullStr: 'null' });
}

function tsvCell(value: unknown): string {
  if (Array.isArray(value)) return String(value.length);
  if (typeof value === 'object' && value !== null) return '';
  return typeof value === 'string' ? value : pyStr(value);
}

export function formatTsv(result: unknown, queryActive: boolean): string {
  const rows = Array.isArray(result) ? result : [result];
  let out = '';
  for (const row of rows) {
    if (Array.isArray(row)) out += row.map(tsvCell).join('\t');
    else if (typeof row === 'object' && row !== null) {
      // Plain dicts are sorted by key; --query results keep their own order (OrderedDict in knack).
      const record = row as Record<string, unknown>;
      const keys = queryActive ? Object.keys(record) : Object.keys(record).sort();
      out += keys.map((k) => tsvCell(record[k])).join('\t');
    } else if (typeof row === 'boolean') out += String(row);
    else out += tsvCell(row);
    out += '\n';
  }
  return out;
}

export function formatTable(result: unknown, transformer: TableTransformer | undefined, queryActive: boolean): string {
  let data = result;
  if (transformer && !queryActive) data = transformer(result);
  const list = Array.isArray(data) ? data : [data];
  const sortKeys = !queryActive && !transformer;
  const table = tabulate(list.map((item) => autoTableItem(item, sortKeys)));
  if (list.length > 0 && table === '') {
    throw new AzCliError('Table output unavailable. Use the --query option to specify an appropriate query. Use --debug for more info.');
  }
  return `${table}\n`;
}

export function applyQuery(result: unknown, query: string): unknown {
  try {
    return jmespath().search(result, query);
  } catch (err) {
    throw new AzCliError(`Invalid jmespath query supplied for \`--query\`: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** `data` is the result after --query, if any. */
export function render(data: unknown, format: OutputFormat, options: { queryActive: boolean; table?: TableTransformer }): string {
  const { queryActive } = options;
  switch (format) {
    case 'none':
      return '';
    case 'json':
    case 'jsonc':
      return formatJson(data);
    case 'yaml':
    case 'yamlc':
      return formatYaml(data);
    case 'tsv':
      return formatTsv(data, queryActive);
    case 'table':
      return formatTable(data, options.table, queryActive);
  }
}
