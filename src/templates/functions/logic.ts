// Logical, comparison and numeric functions. if/and/or take their arguments unevaluated, so only
// the branch taken is evaluated (a false condition may guard an expression that would fail).
import { arity, deepEquals, fail, int, type FunctionTable } from './types.js';
import { typeName } from './typeName.js';

function bool(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean')
    fail(`The template language function '${name}' expects its parameters to be of type 'Boolean'. The provided value is of type '${typeName(value)}'.`);
  return value;
}

// Strings compare as .NET compares them by culture, not ordinally: 'a' sorts before 'A', and both
// before 'b' (the reference's greater('A', 'a') is true).
const collator = new Intl.Collator('en-US', { sensitivity: 'variant' });

function compare(name: string, a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a === b ? 0 : collator.compare(a, b) || (a < b ? -1 : 1);
  return fail(
    `The template language function '${name}' expects two parameters of matching types: integers or strings. The provided values are of type '${typeName(a)}' and '${typeName(b)}'.`,
  );
}

function number(name: string, value: unknown): number {
  if (typeof value !== 'number')
    fail(`The template language function '${name}' expects its parameters to be integers. The provided value is of type '${typeName(value)}'.`);
  return value;
}

export const logicFunctions: FunctionTable = {
  if: {
    lazy: (a, _e, n) => {
      if (a.length !== 3) fail(`The template language function '${n}' must have 3 parameters.`);
      return bool(n, a[0]!()) ? a[1]!() : a[2]!();
    },
  },
  and: {
    lazy: (a, _e, n) => {
      if (a.length < 2) fail(`Unable to evaluate template language function '${n}'. At least 2 parameters should be provided.`);
      return a.every((thunk) => bool(n, thunk()));
    },
  },
  or: {
    lazy: (a, _e, n) => {
      if (a.length < 2) fail(`Unable to evaluate template language function '${n}'. At least 2 parameters should be provided.`);
      return a.some((thunk) => bool(n, thunk()));
    },
  },
  not: { eager: (a, _e, n) => (arity(n, a, 1), !bool(n, a[0])) },
  true: { eager: (a, _e, n) => (arity(n, a, 0), true) },
  false: { eager: (a, _e, n) => (arity(n, a, 0), false) },
  null: { eager: (a, _e, n) => (arity(n, a, 0), null) },
  bool: {
    eager: (a, _e, n) => {
      arity(n, a, 1);
      const v = a[0];
      if (typeof v === 'boolean') return v;
      if (typeof v === 'number') return v !== 0;
      if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
      return fail(`The template language function '${n}' cannot convert '${String(v)}' to a boolean.`);
    },
  },
  equals: { eager: (a, _e, n) => (arity(n, a, 2), deepEquals(a[0], a[1])) },
  less: { eager: (a, _e, n) => (arity(n, a, 2), compare(n, a[0], a[1]) < 0) },
  lessorequals: { eager: (a, _e, n) => (arity(n, a, 2), compare(n, a[0], a[1]) <= 0) },
  greater: { eager: (a, _e, n) => (arity(n, a, 2), compare(n, a[0], a[1]) > 0) },
  greaterorequals: { eager: (a, _e, n) => (arity(n, a, 2), compare(n, a[0], a[1]) >= 0) },
  add: { eager: (a, _e, n) => (arity(n, a, 2), number(n, a[0]) + number(n, a[1])) },
  sub: { eager: (a, _e, n) => (arity(n, a, 2), number(n, a[0]) - number(n, a[1])) },
  mul: { eager: (a, _e, n) => (arity(n, a, 2), number(n, a[0]) * number(n, a[1])) },
  div: {
    eager: (a, _e, n) => {
      arity(n, a, 2);
      const d = number(n, a[1]);
      if (d === 0) fail(`The template language function '${n}' cannot divide by zero.`);
      // Integer division, truncated toward zero as in .NET.
      return Math.trunc(number(n, a[0]) / d);
    },
  },
  mod: {
    eager: (a, _e, n) => {
      arity(n, a, 2);
      const d = number(n, a[1]);
      if (d === 0) fail(`The template language function '${n}' cannot divide by zero.`);
      return number(n, a[0]) % d;
    },
  },
  int: {
    eager: (a, _e, n) => {
      arity(n, a, 1);
      const v = a[0];
      if (typeof v === 'number') return Math.trunc(v);
      if (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v) && Number.isSafeInteger(Number(v))) return Number(v);
      return fail(`The template language function '${n}' cannot convert '${String(v)}' to an integer.`);
    },
  },
  float: {
    eager: (a, _e, n) => {
      arity(n, a, 1);
      const v = a[0];
      if (typeof v === 'number') return v;
      if (typeof v === 'string' && /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/.test(v) && Number.isFinite(Number(v))) return Number(v);
      return fail(`The template language function '${n}' cannot convert '${String(v)}' to a floating point number.`);
    },
  },
  min: { eager: (a, _e, n) => minMax(n, a, Math.min) },
  max: { eager: (a, _e, n) => minMax(n, a, Math.max) },
};

function minMax(name: string, args: unknown[], pick: (a: number, b: number) => number): number {
  const values = args.length === 1 && Array.isArray(args[0]) ? args[0] : args;
  if (values.length === 0) fail(`Unable to evaluate template language function '${name}'. At least one parameter should be provided.`);
  // A loop, not pick(...values): spreading a long array overflows the stack.
  return values.map((v) => int(name, v, 'its parameters')).reduce((a, b) => pick(a, b));
}
