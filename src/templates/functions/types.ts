// The shape of a template function and the argument checks they share, worded as ARM words them.
import type { EvalEnv } from '../expression/env.js';
import { TemplateLanguageError } from '../expression/parser.js';
import { typeName } from './typeName.js';

export interface TemplateFunction {
  /** Arguments evaluated first (most functions). */
  eager?: (args: unknown[], env: EvalEnv, name: string) => unknown;
  /** Arguments as thunks: if/and/or evaluate only what they need. */
  lazy?: (args: Array<() => unknown>, env: EvalEnv, name: string) => unknown;
}

export type FunctionTable = Record<string, TemplateFunction>;

export function fail(message: string): never {
  throw new TemplateLanguageError(message);
}

export function arity(name: string, args: unknown[], min: number, max = min): void {
  if (args.length < min || args.length > max) {
    if (min === max) fail(`The template language function '${name}' must have ${min === 1 ? 'only one parameter' : `${min} parameters`}.`);
    if (args.length < min) fail(`Unable to evaluate template language function '${name}'. At least ${min} parameter${min === 1 ? '' : 's'} should be provided.`);
    fail(`Unable to evaluate template language function '${name}'. At most ${max} parameters should be provided.`);
  }
}

export function str(name: string, value: unknown, position = 'its parameter'): string {
  if (typeof value !== 'string') fail(`The template language function '${name}' expects ${position} to be of type 'String'. The provided value is of type '${typeName(value)}'.`);
  return value;
}

export function int(name: string, value: unknown, position = 'its parameter'): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    fail(`The template language function '${name}' expects ${position} to be an integer. The provided value is of type '${typeName(value)}'.`);
  }
  return value;
}

export function arr(name: string, value: unknown, position = 'its parameter'): unknown[] {
  if (!Array.isArray(value)) fail(`The template language function '${name}' expects ${position} to be an array. The provided value is of type '${typeName(value)}'.`);
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
    return ka.length === kb.length && ka.every((k) => {
      const other = kb.find((x) => x.toLowerCase() === k.toLowerCase());
      return other !== undefined && deepEquals(a[k], b[other]);
    });
  }
  return a === b || (a === undefined && b === null) || (a === null && b === undefined);
}
