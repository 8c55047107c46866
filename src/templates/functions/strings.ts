// String functions (https://aka.ms/arm-template-expressions, string functions). Where ARM follows
// .NET, so does this: string(true) is "True", objects print as compact JSON.
import { JsoncError, parseJsonc } from '../jsonc.js';
import { LIMITS } from '../limits.js';
import { arity, arr, checkLength, deepEquals, fail, int, isObject, str, type FunctionTable } from './types.js';
import { typeName } from './typeName.js';

/** ARM's string(): strings as they are, booleans True/False, arrays and objects as compact JSON. */
export function toArmString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value);
}

/**
 * .NET composite formatting, the parts templates use: {0}, {0,5}, {0:D3}, {0:N0}, {0:x}, {{ and }}.
 * Widths and precisions are checked before padding, and the text made so far as it grows.
 */
function netFormat(name: string, template: string, args: unknown[]): string {
  let length = template.length;
  const grown = (text: string, replaced: string): string => {
    length += text.length - replaced.length;
    checkLength(name, length);
    return text;
  };
  // The format part stops at a brace: [^}]* would rescan the rest of the text from every '{' (quadratic).
  return template.replace(/\{\{|\}\}|\{(\d+)(?:,(-?\d+))?(?::([^{}]*))?\}/g, (whole, index?: string, align?: string, spec?: string) => {
    if (whole === '{{') return grown('{', whole);
    if (whole === '}}') return grown('}', whole);
    const i = Number(index);
    if (i >= args.length) fail('Index (zero based) must be greater than or equal to zero and less than the size of the argument list.');
    const value = args[i];
    let text: string;
    if (typeof value === 'number' && spec) {
      const kind = spec[0]!.toUpperCase();
      const digits = spec.length > 1 ? Number(spec.slice(1)) : undefined;
      if (digits !== undefined && !(Number.isInteger(digits) && digits >= 0))
        fail(`The template language function '${name}' cannot format its arguments: Format specifier was invalid.`);
      if (digits !== undefined) checkLength(name, length + digits);
      if (kind === 'D') text = String(Math.trunc(value)).padStart(digits ?? 0, '0');
      else if (kind === 'N') {
        // JavaScript formats at most 100 fraction digits; .NET would pad zeros beyond.
        if ((digits ?? 2) > 100) fail(`The template language function '${name}' cannot format its arguments: Format specifier was invalid.`);
        text = value.toLocaleString('en-US', { minimumFractionDigits: digits ?? 2, maximumFractionDigits: digits ?? 2 });
      } else if (kind === 'X')
        text = value
          .toString(16)
          [spec[0] === 'X' ? 'toUpperCase' : 'toLowerCase']()
          .padStart(digits ?? 0, '0');
      else text = toArmString(value);
    } else text = toArmString(value);
    if (align) {
      const width = Number(align);
      checkLength(name, length + Math.abs(width));
      text = width < 0 ? text.padEnd(-width) : text.padStart(width);
    }
    return grown(text, whole);
  });
}

function base64(name: string, value: unknown): string {
  const bytes = Buffer.from(str(name, value), 'utf8');
  checkLength(name, Math.ceil(bytes.length / 3) * 4);
  return bytes.toString('base64');
}

/** The JSON a string holds, read as ARM reads JSON (nesting bounded); the function's error when it holds none. */
function parseJsonArgument(name: string, text: string): unknown {
  try {
    return parseJsonc(text);
  } catch (err) {
    if (err instanceof JsoncError) return fail(`The template language function '${name}' parameter is not valid JSON: ${err.message}`);
    throw err;
  }
}

/** encodeURIComponent's length for text, without making it: 3 characters per UTF-8 byte escaped. */
function uriEncodedLength(text: string): number {
  let length = 0;
  for (const ch of text) length += /^[A-Za-z0-9\-_.!~*'()]$/.test(ch) ? 1 : 3 * Buffer.byteLength(ch);
  return length;
}

/** Calls fn, turning the JavaScript error it throws for malformed input into the function's. */
function guarded<T>(name: string, what: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof TypeError || err instanceof URIError) return fail(`The template language function '${name}' ${what}: ${err.message}.`);
    throw err;
  }
}

const DATA_URI = /^data:([^,]*),/;

function lastIndex(items: readonly unknown[], match: (v: unknown) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (match(items[i])) return i;
  return -1;
}

export const stringFunctions: FunctionTable = {
  base64: { eager: (a, _e, n) => (arity(n, a, 1), base64(n, a[0])) },
  base64tostring: { eager: (a, _e, n) => (arity(n, a, 1), Buffer.from(str(n, a[0]), 'base64').toString('utf8')) },
  base64tojson: { eager: (a, _e, n) => (arity(n, a, 1), parseJsonArgument(n, Buffer.from(str(n, a[0]), 'base64').toString('utf8'))) },
  datauri: {
    eager: (a, _e, n) => {
      arity(n, a, 1);
      const text = typeof a[0] === 'string' ? a[0] : toArmString(a[0]);
      return `data:text/plain;charset=utf8;base64,${base64(n, text)}`;
    },
  },
  datauritostring: {
    eager: (a, _e, n) => {
      arity(n, a, 1);
      const uri = str(n, a[0]);
      const header = DATA_URI.exec(uri);
      if (!header) return fail(`The template language function '${n}' expects its parameter to be a data URI.`);
      const data = uri.slice(header[0].length);
      return /;base64$/i.test(header[1]!)
        ? Buffer.from(data, 'base64').toString('utf8')
        : guarded(n, 'expects URI-encoded data', () => decodeURIComponent(data));
    },
  },
  endswith: { eager: (a, _e, n) => (arity(n, a, 2), str(n, a[0]).toLowerCase().endsWith(str(n, a[1]).toLowerCase())) },
  startswith: { eager: (a, _e, n) => (arity(n, a, 2), str(n, a[0]).toLowerCase().startsWith(str(n, a[1]).toLowerCase())) },
  format: {
    eager: (a, _e, n) => {
      if (a.length < 1) arity(n, a, 1, Infinity);
      return netFormat(n, str(n, a[0], 'its first parameter'), a.slice(1));
    },
  },
  // A string's search ignores case; an array's compares its items exactly (strings case-sensitively).
  indexof: {
    eager: (a, _e, n) => (
      arity(n, a, 2), Array.isArray(a[0]) ? a[0].findIndex((v) => deepEquals(v, a[1])) : str(n, a[0]).toLowerCase().indexOf(str(n, a[1]).toLowerCase())
    ),
  },
  lastindexof: {
    eager: (a, _e, n) => (
      arity(n, a, 2), Array.isArray(a[0]) ? lastIndex(a[0], (v) => deepEquals(v, a[1])) : str(n, a[0]).toLowerCase().lastIndexOf(str(n, a[1]).toLowerCase())
    ),
  },
  padleft: {
    eager: (a, _e, n) => {
      arity(n, a, 2, 3);
      const value = typeof a[0] === 'number' ? String(a[0]) : str(n, a[0]);
      const pad = a[2] === undefined ? ' ' : str(n, a[2]);
      if (pad.length !== 1) fail(`The template language function '${n}' expects its third parameter to be a single character.`);
      const total = int(n, a[1], 'its second parameter');
      checkLength(n, Math.max(value.length, total));
      return value.padStart(total, pad);
    },
  },
  replace: {
    eager: (a, e, n) => {
      arity(n, a, 3);
      const [text, from, to] = [str(n, a[0]), str(n, a[1]), str(n, a[2])];
      // The result's length first (each occurrence grows the text by what replaces it), then the
      // work: each occurrence costs about two units (see budget.ts). An empty text to replace goes
      // between every two characters.
      let occurrences = 0;
      if (from === '') occurrences = Math.max(text.length - 1, 0);
      else for (let at = text.indexOf(from); at >= 0; at = text.indexOf(from, at + from.length)) occurrences++;
      checkLength(n, text.length + occurrences * (to.length - from.length));
      e.budget.charge(2 * occurrences);
      if (from === '') return text.split('').join(to);
      // replaceAll makes only the result; '$' in a replacement text is a pattern, so it is escaped.
      return text.replaceAll(from, to.replaceAll('$', '$$$$'));
    },
  },
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
      if (start < 0 || start > text.length)
        fail(
          `The index and length parameters must refer to a location within the string. The index parameter: '${start}', the length parameter: '${length}', the length of the string parameter: '${text.length}'. Please see https://aka.ms/arm-template-expressions#substring for usage details.`,
        );
      if (length < 0 || start + length > text.length)
        fail(
          `The index and length parameters must refer to a location within the string. The index parameter: '${start}', the length parameter: '${length}', the length of the string parameter: '${text.length}'. Please see https://aka.ms/arm-template-expressions#substring for usage details.`,
        );
      return text.substr(start, length);
    },
  },
  tolower: { eager: (a, _e, n) => (arity(n, a, 1), str(n, a[0]).toLowerCase()) },
  toupper: { eager: (a, _e, n) => (arity(n, a, 1), str(n, a[0]).toUpperCase()) },
  trim: { eager: (a, _e, n) => (arity(n, a, 1), str(n, a[0]).trim()) },
  uri: {
    eager: (a, _e, n) => {
      arity(n, a, 2);
      const relative = str(n, a[1], 'its second parameter');
      const base = str(n, a[0], 'its first parameter');
      return guarded(n, 'expects an absolute base URI', () => new URL(relative, base).toString());
    },
  },
  uricomponent: {
    eager: (a, _e, n) => {
      arity(n, a, 1);
      const text = str(n, a[0]);
      // Escaping grows text up to nine-fold: measure first when that could pass the limit.
      if (text.length * 9 > LIMITS.valueSize) checkLength(n, uriEncodedLength(text));
      return encodeURIComponent(text);
    },
  },
  uricomponenttostring: { eager: (a, _e, n) => (arity(n, a, 1), guarded(n, 'expects URI-encoded text', () => decodeURIComponent(str(n, a[0])))) },
  json: { eager: (a, _e, n) => (arity(n, a, 1), parseJsonArgument(n, str(n, a[0]))) },
  join: {
    eager: (a, _e, n) => {
      arity(n, a, 2);
      const separator = str(n, a[1], 'its second parameter');
      const parts = arr(n, a[0], 'its first parameter').map((v) =>
        isObject(v) || Array.isArray(v)
          ? fail(`The template language function '${n}' expects an array of strings, integers or booleans. The provided value contains '${typeName(v)}'.`)
          : toArmString(v),
      );
      checkLength(
        n,
        parts.reduce((total, p) => total + p.length, Math.max(parts.length - 1, 0) * separator.length),
      );
      return parts.join(separator);
    },
  },
};
