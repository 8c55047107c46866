// Date functions (https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-date):
// utcNow, dateTimeAdd, dateTimeFromEpoch, dateTimeToEpoch. Formats are .NET's date and time format
// strings, standard (one letter) and custom, in the invariant culture as ARM formats them
// (utcNow('d') is 03/05/2019). dateTimeAdd without a format keeps an ISO 8601 base's own form and
// writes any other as .NET's default DateTime text, 4/7/2023 2:53:14 PM, as the reference shows.
// utcNow() and newGuid() change with every call, so ARM allows them only in a parameter's default.
import { randomUUID } from 'node:crypto';
import type { EvalEnv } from '../expression/env.js';
import { isInParameterDefault } from '../expression/env.js';
import { arity, checkLength, fail, int, str, type FunctionTable } from './types.js';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** The invariant culture's standard formats, as custom formats. */
const STANDARD: Record<string, string> = {
  d: 'MM/dd/yyyy',
  D: 'dddd, dd MMMM yyyy',
  f: 'dddd, dd MMMM yyyy HH:mm',
  F: 'dddd, dd MMMM yyyy HH:mm:ss',
  g: 'MM/dd/yyyy HH:mm',
  G: 'MM/dd/yyyy HH:mm:ss',
  m: 'MMMM dd',
  M: 'MMMM dd',
  o: "yyyy'-'MM'-'dd'T'HH':'mm':'ss'.'fffffffK",
  O: "yyyy'-'MM'-'dd'T'HH':'mm':'ss'.'fffffffK",
  r: "ddd, dd MMM yyyy HH':'mm':'ss 'GMT'",
  R: "ddd, dd MMM yyyy HH':'mm':'ss 'GMT'",
  s: "yyyy'-'MM'-'dd'T'HH':'mm':'ss",
  t: 'HH:mm',
  T: 'HH:mm:ss',
  u: "yyyy'-'MM'-'dd HH':'mm':'ss'Z'",
  U: 'dddd, dd MMMM yyyy HH:mm:ss',
  y: 'yyyy MMMM',
  Y: 'yyyy MMMM',
};

/** utcNow()'s format when none is given. */
const UTC_NOW_DEFAULT = "yyyyMMdd'T'HHmmss'Z'";
/** .NET's DateTime.ToString() in en-US, dateTimeAdd's output for a base that is not ISO 8601. */
const DOTNET_DEFAULT = 'M/d/yyyy h:mm:ss tt';

const TOKEN = /'[^']*'?|"[^"]*"?|\\.|%|y+|M+|d+|H+|h+|m+|s+|f+|F+|t+|K|z+|[^'"\\%yMdHhmsfFtKz]+/g;

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** A UTC instant (milliseconds) written with a .NET format string. */
export function formatDateTime(name: string, ms: number, format: string): string {
  const custom = format.length === 1 ? STANDARD[format] : format;
  if (custom === undefined) fail(`The template language function '${name}' cannot format a date: the format '${format}' is not a valid format string.`);
  // No specifier writes more than twice its own length ('M' → '12', 'MMMM' → 'September').
  checkLength(name, custom!.length * 2);
  const d = new Date(ms);
  const [year, month, day, hour, minute, second] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()];
  const fraction = pad(d.getUTCMilliseconds(), 3) + '0000';
  let out = '';
  for (const token of custom.match(TOKEN) ?? []) {
    const c = token[0]!;
    const n = token.length;
    if (c === "'" || c === '"') out += token.slice(1, token.endsWith(c) && n > 1 ? -1 : undefined);
    else if (c === '\\') out += token.slice(1);
    else if (c === '%') continue;
    else if (c === 'y') out += n === 2 ? pad(year % 100, 2) : n === 1 ? String(year % 100) : pad(year, n);
    else if (c === 'M') out += n >= 4 ? MONTHS[month]! : n === 3 ? MONTHS[month]!.slice(0, 3) : pad(month + 1, n);
    else if (c === 'd') out += n >= 4 ? DAYS[d.getUTCDay()]! : n === 3 ? DAYS[d.getUTCDay()]!.slice(0, 3) : pad(day, n);
    else if (c === 'H') out += pad(hour, Math.min(n, 2));
    else if (c === 'h') out += pad(hour % 12 || 12, Math.min(n, 2));
    else if (c === 'm') out += pad(minute, Math.min(n, 2));
    else if (c === 's') out += pad(second, Math.min(n, 2));
    else if (c === 'f') out += fraction.slice(0, Math.min(n, 7));
    else if (c === 'F') out += fraction.slice(0, Math.min(n, 7)).replace(/0+$/, '');
    else if (c === 't') out += (hour < 12 ? 'AM' : 'PM').slice(0, n === 1 ? 1 : 2);
    else if (c === 'K') out += 'Z';
    else if (c === 'z') out += n === 1 ? '+0' : n === 2 ? '+00' : '+00:00';
    else out += token;
  }
  return out;
}

/** The forms of ISO 8601 dateTimeAdd writes back as they came, by what they look like. */
const ISO_FORMS: Array<[RegExp, (fraction: number) => string]> = [
  [/^\d{8}T\d{6}Z$/, () => UTC_NOW_DEFAULT],
  [/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/, () => "yyyy'-'MM'-'dd'T'HH':'mm':'ss'Z'"],
  [/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+Z$/, (f) => `yyyy'-'MM'-'dd'T'HH':'mm':'ss'.'${'f'.repeat(f)}'Z'`],
];

const DATE_TIME = /^(\d{4})-?(\d{2})-?(\d{2})(?:[T ](\d{2}):?(\d{2})(?::?(\d{2})(?:\.(\d{1,7}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const US_DATE_TIME = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?: (\d{1,2}):(\d{2})(?::(\d{2}))? ?(AM|PM)?)?$/i;

/** A date and time as an instant (milliseconds, UTC when no offset is given). */
export function parseDateTime(name: string, text: string): number {
  const iso = DATE_TIME.exec(text.trim());
  if (iso) {
    const [, y, mo, d, h = '0', mi = '0', s = '0', f = '', zone] = iso;
    if (!valid(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s))) return invalidDate(name, text);
    let ms = utc(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Math.floor(Number(`0.${f || '0'}`) * 1000));
    if (zone && zone.toUpperCase() !== 'Z') {
      const sign = zone[0] === '-' ? -1 : 1;
      const digits = zone.slice(1).replace(':', '');
      ms -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0')) * 60_000;
    }
    return ms;
  }
  const us = US_DATE_TIME.exec(text.trim());
  if (us) {
    const [, mo, d, y, h = '0', mi = '0', s = '0', half] = us;
    let hour = Number(h);
    if (half) hour = (hour % 12) + (half.toUpperCase() === 'PM' ? 12 : 0);
    if (valid(Number(y), Number(mo), Number(d), hour, Number(mi), Number(s))) return utc(Number(y), Number(mo) - 1, Number(d), hour, Number(mi), Number(s));
  }
  return invalidDate(name, text);
}

function invalidDate(name: string, text: string): never {
  return fail(
    `The template language function '${name}' cannot parse '${text}' as a date and time. Use the ISO 8601 format, for example '2020-04-07T14:53:14Z'.`,
  );
}

/** Date.UTC for every year of .NET's range (Date.UTC reads the years 0 to 99 as 1900 to 1999). */
function utc(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  d.setUTCHours(hour, minute, second, ms);
  return d.getTime();
}

function valid(year: number, month: number, day: number, hour: number, minute: number, second: number): boolean {
  const days = month >= 1 && month <= 12 ? new Date(utc(year, month, 0)).getUTCDate() : 0;
  return year >= 1 && day >= 1 && day <= days && hour < 24 && minute < 60 && second < 60;
}

const DURATION = /^(-)?P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

/** The instant `ms` moved by an ISO 8601 duration: years and months by the calendar (the day clamped to the month's end, as .NET's AddMonths), the rest exactly. */
export function addDuration(name: string, ms: number, duration: string): number {
  const m = DURATION.exec(duration);
  if (!m || duration.endsWith('P') || duration.endsWith('T'))
    fail(
      `The template language function '${name}' expects its second parameter to be an ISO 8601 duration such as 'P1Y', '-P9D' or 'PT1H'. The provided value is '${duration}'.`,
    );
  const sign = m![1] ? -1 : 1;
  const [years, months, weeks, days, hours, minutes] = m!.slice(2, 8).map((v) => sign * Number(v ?? 0));
  const seconds = sign * Number(m![8] ?? 0);
  const d = new Date(ms);
  const totalMonths = d.getUTCFullYear() * 12 + d.getUTCMonth() + years! * 12 + months!;
  const year = Math.floor(totalMonths / 12);
  const month = totalMonths - year * 12;
  const lastDay = new Date(utc(year, month + 1, 0)).getUTCDate();
  const moved = utc(year, month, Math.min(d.getUTCDate(), lastDay), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
  const result = moved + (((weeks! * 7 + days!) * 24 + hours!) * 60 + minutes!) * 60_000 + Math.round(seconds * 1000);
  // .NET's DateTime spans the years 1 to 9999.
  const y = new Date(result).getUTCFullYear();
  if (!Number.isFinite(result) || y < 1 || y > 9999) fail(`The template language function '${name}' gives a date outside the years 1 to 9999.`);
  return result;
}

/** Only a parameter's default may call a function whose value changes with every call. */
function defaultsOnly(env: EvalEnv, name: string): void {
  if (!isInParameterDefault(env))
    fail(`The template function '${name}' is not expected at this location. The function can only be used in the default value of a parameter.`);
}

export const dateFunctions: FunctionTable = {
  utcnow: {
    eager: (a, e, n) => {
      arity(n, a, 0, 1);
      defaultsOnly(e, n);
      return formatDateTime(n, Date.now(), a[0] === undefined ? UTC_NOW_DEFAULT : str(n, a[0]));
    },
  },
  newguid: {
    eager: (a, e, n) => {
      arity(n, a, 0);
      defaultsOnly(e, n);
      return randomUUID();
    },
  },
  datetimeadd: {
    eager: (a, _e, n) => {
      arity(n, a, 2, 3);
      const base = str(n, a[0], 'its first parameter');
      const at = addDuration(n, parseDateTime(n, base), str(n, a[1], 'its second parameter'));
      if (a[2] !== undefined) return formatDateTime(n, at, str(n, a[2], 'its third parameter'));
      const form = ISO_FORMS.find(([re]) => re.test(base.trim()));
      const fraction = /\.(\d+)Z$/.exec(base)?.[1]?.length ?? 0;
      return formatDateTime(n, at, form ? form[1](Math.min(fraction, 7)) : DOTNET_DEFAULT);
    },
  },
  datetimefromepoch: {
    eager: (a, _e, n) => {
      arity(n, a, 1);
      const seconds = int(n, a[0]);
      const ms = seconds * 1000;
      if (seconds < 0 || new Date(ms).getUTCFullYear() > 9999 || !Number.isFinite(new Date(ms).getTime()))
        fail(`The template language function '${n}' expects its parameter to be a non-negative number of seconds since 1970-01-01 before the year 10000.`);
      return formatDateTime(n, ms, "yyyy'-'MM'-'dd'T'HH':'mm':'ss'Z'");
    },
  },
  datetimetoepoch: {
    eager: (a, _e, n) => (arity(n, a, 1), Math.floor(parseDateTime(n, str(n, a[0])) / 1000)),
  },
};
