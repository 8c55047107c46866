// The lambda functions (https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-lambda):
// filter, groupBy, map, mapValues, reduce, sort, toObject, and lambdaVariables() inside their lambdas.
// filter and map pass the element's index as a second variable, reduce as a third, when the lambda
// names one. Every call of a lambda evaluates its body through the evaluator, so it draws on the
// deployment's budget like any expression: a sort of a long array ends in the budget's error.
import { Lambda, lambdaVariable } from '../expression/lambda.js';
import { setOwn } from '../../http/own.js';
import { arity, arr, fail, isObject, str, type FunctionTable } from './types.js';
import { typeName } from './typeName.js';

/** The lambda argument at `position`, taking between min and max variables. */
function lambdaArg(name: string, value: unknown, position: string, min: number, max: number): Lambda {
  if (!(value instanceof Lambda))
    fail(
      `The template language function '${name}' expects its ${position} parameter to be a lambda function. The provided value is of type '${typeName(value)}'.`,
    );
  const count = value.variables.length;
  if (count < min || count > max)
    fail(
      `The lambda function given to the template language function '${name}' must have ${min === max ? min : `${min} to ${max}`} lambda variable${max === 1 ? '' : 's'}; it has ${count}.`,
    );
  return value;
}

function noLambda(name: string, value: unknown, position: string): void {
  if (value instanceof Lambda) fail(`The template language function '${name}' does not take a lambda function as its ${position} parameter.`);
}

function boolResult(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean')
    fail(`The lambda function given to the template language function '${name}' must return a boolean. It returned a value of type '${typeName(value)}'.`);
  return value;
}

function keyResult(name: string, value: unknown): string {
  if (typeof value !== 'string')
    fail(`The lambda function given to the template language function '${name}' must return a string key. It returned a value of type '${typeName(value)}'.`);
  return value;
}

export const lambdaFunctions: FunctionTable = {
  // Outside the argument list of a function that takes one, a lambda is not a value.
  lambda: {
    lazy: () =>
      fail(
        "The template function 'lambda' is not expected at this location. A lambda function can only be given directly as an argument of 'filter', 'groupBy', 'map', 'mapValues', 'reduce', 'sort' or 'toObject'.",
      ),
  },
  lambdavariables: { eager: (a, _e, n) => (arity(n, a, 1), lambdaVariable(str(n, a[0]))) },
  filter: {
    lambdas: true,
    eager: (a, _e, n) => {
      arity(n, a, 2);
      noLambda(n, a[0], 'first');
      const f = lambdaArg(n, a[1], 'second', 1, 2);
      return arr(n, a[0], 'its first parameter').filter((item, i) => boolResult(n, f.call([item, i])));
    },
  },
  map: {
    lambdas: true,
    eager: (a, _e, n) => {
      arity(n, a, 2);
      noLambda(n, a[0], 'first');
      const f = lambdaArg(n, a[1], 'second', 1, 2);
      return arr(n, a[0], 'its first parameter').map((item, i) => f.call([item, i]));
    },
  },
  reduce: {
    lambdas: true,
    eager: (a, _e, n) => {
      arity(n, a, 3);
      noLambda(n, a[0], 'first');
      noLambda(n, a[1], 'second');
      const f = lambdaArg(n, a[2], 'third', 2, 3);
      return arr(n, a[0], 'its first parameter').reduce((current, next, i) => f.call([current, next, i]), a[1] ?? null);
    },
  },
  sort: {
    lambdas: true,
    eager: (a, _e, n) => {
      arity(n, a, 2);
      noLambda(n, a[0], 'first');
      const f = lambdaArg(n, a[1], 'second', 2, 2);
      // "If true, the second element will be ordered after the first": a stable sort on that order.
      const before = (x: unknown, y: unknown) => boolResult(n, f.call([x, y]));
      return [...arr(n, a[0], 'its first parameter')].sort((x, y) => (before(x, y) ? -1 : before(y, x) ? 1 : 0));
    },
  },
  toobject: {
    lambdas: true,
    eager: (a, _e, n) => {
      arity(n, a, 2, 3);
      noLambda(n, a[0], 'first');
      const key = lambdaArg(n, a[1], 'second', 1, 1);
      const value = a[2] === undefined ? undefined : lambdaArg(n, a[2], 'third', 1, 1);
      const out: Record<string, unknown> = {};
      for (const item of arr(n, a[0], 'its first parameter')) setOwn(out, keyResult(n, key.call([item])), value ? value.call([item]) : item);
      return out;
    },
  },
  groupby: {
    lambdas: true,
    eager: (a, _e, n) => {
      arity(n, a, 2);
      noLambda(n, a[0], 'first');
      const key = lambdaArg(n, a[1], 'second', 1, 1);
      const groups = new Map<string, unknown[]>();
      for (const item of arr(n, a[0], 'its first parameter')) {
        const k = keyResult(n, key.call([item]));
        const group = groups.get(k);
        if (group) group.push(item);
        else groups.set(k, [item]);
      }
      const out: Record<string, unknown> = {};
      for (const [k, items] of groups) setOwn(out, k, items);
      return out;
    },
  },
  mapvalues: {
    lambdas: true,
    eager: (a, _e, n) => {
      arity(n, a, 2);
      noLambda(n, a[0], 'first');
      const f = lambdaArg(n, a[1], 'second', 1, 1);
      if (!isObject(a[0]))
        fail(`The template language function '${n}' expects its first parameter to be an object. The provided value is of type '${typeName(a[0])}'.`);
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(a[0])) setOwn(out, k, f.call([v]));
      return out;
    },
  },
};
