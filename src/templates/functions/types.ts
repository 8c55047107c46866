// The shape of a template function and the argument checks they share, worded as ARM words them.
import type { EvalEnv } from '../expression/env.js';
import { TemplateLanguageError } from '../expression/parser.js';
import { LIMITS, resultTooLarge } from '../limits.js';
import { keysIgnoringCase } from '../members.js';
import { typeName } from './typeName.js';

export interface TemplateFunction {
  /** Arguments evaluated first (most functions). */
  eager?: (args: unknown[], env: EvalEnv, name: string) => unknown;
  /** Arguments as thunks: if/and/or evaluate only what they need. */
  lazy?: (args: Array<() => unknown>, env: EvalEnv, name: string) => unknown;
  /** Takes lambdas: its lambda('x', …) arguments reach eager as Lambda values, not evaluated. */
  lambdas?: boolean;
}

export type FunctionTable = Record<string, TemplateFunction>;

export function fail(message: string): never {
  throw new TemplateLanguageError(message);
}

/**
 * Fails before a function makes a string of `length` characters larger than a value may be: the
 * check comes first, so a hostile argument never allocates the string it asks for.
 */
export function checkLength(name: string, length: number): void {
  if (length + 2 > LIMITS.valueSize) fail(resultTooLarge(name, length + 2));
}

export function arity(name: string, args: unknown[], min: number, max = min): void {
  if (args.length < min || args.length > max) {
    if (min === max) fail(`The template language function '${name}' must have ${min === 1 ? 'only one parameter' : `${min} parameters`}.`);
    if (args.length < min)
      fail(`Unable to evaluate template language function '${name}'. At least ${min} parameter${min === 1 ? '' : 's'} should be provided.`);
    fail(`Unable to evaluate template language function '${name}'. At most ${max} parameters should be provided.`);
  }
}

export function str(name: string, value: unknown, position = 'its parameter'): string {
  if (typeof value !== 'string')
    fail(`The template language function '${name}' expects ${position} to be of type 'String'. The provided value is of type '${typeName(value)}'.`);
  return value;
}

export function int(name: string, value: unknown, position = 'its parameter'): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    fail(`The template language function '${name}' expects ${position} to be an integer. The provided value is of type '${typeName(value)}'.`);
  }
  return value;
}

export function arr(name: string, value: unknown, position = 'its parameter'): unknown[] {
  if (!Array.isArray(value))
    fail(`The template language function '${name}' expects ${position} to be an array. The provided value is of type '${typeName(value)}'.`);
  return value;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** equals(): values exactly (strings case-sensitively, as Bicep's ==); object keys case-insensitively. */
export function deepEquals(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => deepEquals(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    const byLower = new Map(kb.map((k) => [k.toLowerCase(), k]));
    return ka.every((k) => {
      const other = Object.hasOwn(b, k) ? k : byLower.get(k.toLowerCase());
      return other !== undefined && deepEquals(a[k], b[other]);
    });
  }
  return a === b || (a === undefined && b === null) || (a === null && b === undefined);
}

/**
 * A key equal for values deepEquals() calls equal, so sets of values (union, intersection, allowed
 * values) are found by hashing, never by comparing every pair: a scalar is its own key, an object
 * or array a canonical text (object keys lower-cased and sorted).
 */
export function valueKey(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'string' && value.startsWith('\u0000')) return `\u0000s${value}`;
  return typeof value === 'object' && value !== null ? `\u0000o${canonical(value)}` : value;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    return `{${keysIgnoringCase(value)
      .map(([lower, k]) => `${JSON.stringify(lower)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
