// String functions (https://aka.ms/arm-template-expressions, string functions). Where ARM follows
// .NET, so does this: string(true) is "True", objects print as compact JSON.
import { arity, arr, fail, int, isObject, str, type FunctionTable } from './types.js';
import { typeName } from './typeName.js';

/** ARM's string(): strings as they are, booleans True/False, arrays and objects as compact JSON. */
export function toArmString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value);
}

/** .NET composite formatting, the parts templates use: {0}, {0,5}, {0:D3}, {0:N0}, {0:x}, {{ and }}. */
export function netFormat(template: string, args: unknown[]): string {
  return template.replace(/\{\{|\}\}|\{(\d+)(?:,(-?\d+))?(?::([^}]*))?\}/g, (whole, index?: string, align?: string, spec?: string) => {
    if (whole === '{{') return '{';
    if (whole === '}}') return '}';
    const i = Number(index);
    if (i >= args.length) fail('Index (zero based) must be greater than or equal to zero and less than the size of the argument list.');
    const value = args[i];
    let text: string;
    if (typeof value === 'number' && spec) {
      const kind = spec[0]!.toUpperCase();
      const digits = spec.length > 1 ? Number(spec.slice(1)) : undefined;
      if (kind === 'D') text = String(Math.trunc(value)).padStart(digits ?? 0, '0');
      else if (kind === 'N') text = value.toLocaleString('en-US', { minimumFractionDigits: digits ?? 2, maximumFractionDigits: digits ?? 2 });
      else if (kind === 'X') text = value.toString(16)[spec[0] === 'X' ? 'toUpperCase' : 'toLowerCase']().padStart(digits ?? 0, '0');
      else text = toArmString(value);
    } else text = toArmString(value);
    if (align) {
      const width = Number(align);
      text = width < 0 ? text.padEnd(-width) : text.padStart(width);
    }
    return text;
  });
}

function base64(name: string, value: unknown): string {
  return Buffer.from(str(name, value), 'utf8').toString('base64');
}

export const stringFunctions: FunctionTable = {
  base64: { eager: (a, _e, n) => (arity(n, a, 1), base64(n, a[0])) },
  base64tostring: { eager: (a, _e, n) => (arity(n, a, 1), Buffer.from(str(n, a[0]), 'base64').toString('utf8')) },
  base64tojson: { eager: (a, _e, n) => (arity(n, a, 1), JSON.parse(Buffer.from(str(n, a[0]), 'base64').toString('utf8'))) },
  endswith: { eager: (a, _e, n) => (arity(n, a, 2), str(n, a[0]).toLowerCase().endsWith(str(n, a[1]).toLowerCase())) },
  startswith: { eager: (a, _e, n) => (arity(n, a, 2), str(n, a[0]).toLowerCase().startsWith(str(n, a[1]).toLowerCase())) },
  format: {
    eager: (a, _e, n) => {
      if (a.length < 1) arity(n, a, 1, Infinity);
      return netFormat(str(n, a[0], 'its first parameter'), a.slice(1));
    },
  },
  indexof: { eager: (a, _e, n) => (arity(n, a, 2), str(n, a[0]).toLowerCase().indexOf(str(n, a[1]).toLowerCase())) },
  lastindexof: { eager: (a, _e, n) => (arity(n, a, 2), str(n, a[0]).toLowerCase().lastIndexOf(str(n, a[1]).toLowerCase())) },
  padleft: {
    eager: (a, _e, n) => {
      arity(n, a, 2, 3);
      const value = typeof a[0] === 'number' ? String(a[0]) : str(n, a[0]);
      const pad = a[2] === undefined ? ' ' : str(n, a[2]);
      if (pad.length !== 1) fail(`The template language function '${n}' expects its third parameter to be a single character.`);
      return value.padStart(int(n, a[1], 'its second parameter'), pad);
    },
  },
  replace: { eager: (a, _e, n) => (arity(n, a, 3), str(n, a[0]).split(str(n, a[1])).join(str(n, a[2]))) },
  split: {
    eager: (a, _e, n) => {
      arity(n, a, 2);
      const text = str(n, a[0]);
      const delimiters = Array.isArray(a[1]) ? a[1].map((d) => str(n, d)) : [str(n, a[1])];
      let parts = [text];
      for (const d of delimiters) parts = parts.flatMap((p) => p.split(d));
      return parts;
    },
  },
  string: { eager: (a, _e, n) => (arity(n, a, 1), toArmString(a[0])) },
  substring: {
    eager: (a, _e, n) => {
      arity(n, a, 1, 3);
      const text = str(n, a[0]);
      const start = a[1] === undefined ? 0 : int(n, a[1], 'its second parameter');
      const length = a[2] === undefined ? text.length - start : int(n, a[2], 'its third parameter');
      if (start < 0 || start > text.length) fail(`The index and length parameters must refer to a location within the string. The index parameter: '${start}', the length parameter: '${length}', the length of the string parameter: '${text.length}'. Please see https://aka.ms/arm-template-expressions#substring for usage details.`);
      if (length < 0 || start + length > text.length) fail(`The index and length parameters must refer to a location within the string. The index parameter: '${start}', the length parameter: '${length}', the length of the string parameter: '${text.length}'. Please see https://aka.ms/arm-template-expressions#substring for usage details.`);
      return text.substr(start, length);
    },
  },
  tolower: { eager: (a, _e, n) => (arity(n, a, 1), str(n, a[0]).toLowerCase()) },
  toupper: { eager: (a, _e, n) => (arity(n, a, 1), str(n, a[0]).toUpperCase()) },
  trim: { eager: (a, _e, n) => (arity(n, a, 1), str(n, a[0]).trim()) },
  uri: {
    eager: (a, _e, n) => {
      arity(n, a, 2);
      return new URL(str(n, a[1], 'its second parameter'), str(n, a[0], 'its first parameter')).toString();
    },
  },
  uricomponent: { eager: (a, _e, n) => (arity(n, a, 1), encodeURIComponent(str(n, a[0]))) },
  uricomponenttostring: { eager: (a, _e, n) => (arity(n, a, 1), decodeURIComponent(str(n, a[0]))) },
  json: {
    eager: (a, _e, n) => {
      arity(n, a, 1);
      try {
        return JSON.parse(str(n, a[0]));
      } catch {
        return fail(`The template language function 'json' parameter is not valid JSON.`);
      }
    },
  },
  join: {
    eager: (a, _e, n) => {
      arity(n, a, 2);
      return arr(n, a[0], 'its first parameter').map((v) => (isObject(v) || Array.isArray(v) ? fail(`The template language function '${n}' expects an array of strings, integers or booleans. The provided value contains '${typeName(v)}'.`) : toArmString(v))).join(str(n, a[1], 'its second parameter'));
    },
  },
};
