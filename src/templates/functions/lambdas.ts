// The lambda functions (https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-lambda):
// filter, groupBy, map, mapValues, reduce, sort, toObject, and lambdaVariables() inside their lambdas.
// filter and map pass the element's index as a second variable, reduce as a third, when the lambda
// names one. Every call of a lambda evaluates its body through the evaluator, so it draws on the
// deployment's budget like any expression: a sort of a long array ends in the budget's error.
import { Lambda, lambdaVariable } from '../expression/lambda.js';
import { setOwn } from '../../http/own.js';
import { arity, arr, fail, isObject, str, type FunctionTable, type TemplateFunction } from './types.js';
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

const ORDINALS = ['first', 'second', 'third'];

/**
 * A function of `leading` values, then lambdas taking sizes[i] = [min, max] variables (the last
 * `optional` of them may be left out).
 */
function takingLambdas(
  leading: number,
  sizes: Array<[number, number]>,
  body: (name: string, values: unknown[], lambdas: Lambda[]) => unknown,
  optional = 0,
): TemplateFunction {
  return {
    lambdas: true,
    eager: (a, _e, n) => {
      arity(n, a, leading + sizes.length - optional, leading + sizes.length);
      const values = a.slice(0, leading);
      values.forEach((v, i) => noLambda(n, v, ORDINALS[i]!));
      const lambdas = a.slice(leading).map((v, i) => lambdaArg(n, v, ORDINALS[leading + i]!, ...sizes[i]!));
      return body(n, values, lambdas);
    },
  };
}

/** The first parameter, an array. */
const input = (name: string, values: unknown[]) => arr(name, values[0], 'its first parameter');

export const lambdaFunctions: FunctionTable = {
  // Outside the argument list of a function that takes one, a lambda is not a value.
  lambda: {
    lazy: () =>
      fail(
        "The template function 'lambda' is not expected at this location. A lambda function can only be given directly as an argument of 'filter', 'groupBy', 'map', 'mapValues', 'reduce', 'sort' or 'toObject'.",
      ),
  },
  lambdavariables: { eager: (a, _e, n) => (arity(n, a, 1), lambdaVariable(str(n, a[0]))) },
  filter: takingLambdas(1, [[1, 2]], (n, v, [f]) => input(n, v).filter((item, i) => boolResult(n, f!.call([item, i])))),
  map: takingLambdas(1, [[1, 2]], (n, v, [f]) => input(n, v).map((item, i) => f!.call([item, i]))),
  reduce: takingLambdas(2, [[2, 3]], (n, v, [f]) => input(n, v).reduce((current, next, i) => f!.call([current, next, i]), v[1] ?? null)),
  sort: takingLambdas(1, [[2, 2]], (n, v, [f]) => {
    // "If true, the second element will be ordered after the first": a stable sort on that order.
    const before = (x: unknown, y: unknown) => boolResult(n, f!.call([x, y]));
    return [...input(n, v)].sort((x, y) => (before(x, y) ? -1 : before(y, x) ? 1 : 0));
  }),
  toobject: takingLambdas(
    1,
    [
      [1, 1],
      [1, 1],
    ],
    (n, v, [key, value]) => {
      const out: Record<string, unknown> = {};
      for (const item of input(n, v)) setOwn(out, keyResult(n, key!.call([item])), value ? value.call([item]) : item);
      return out;
    },
    1,
  ),
  groupby: takingLambdas(1, [[1, 1]], (n, v, [key]) => {
    const groups = new Map<string, unknown[]>();
    for (const item of input(n, v)) {
      const k = keyResult(n, key!.call([item]));
      const group = groups.get(k);
      if (group) group.push(item);
      else groups.set(k, [item]);
    }
    const out: Record<string, unknown> = {};
    for (const [k, items] of groups) setOwn(out, k, items);
    return out;
  }),
  mapvalues: takingLambdas(1, [[1, 1]], (n, [object], [f]) => {
    if (!isObject(object))
      fail(`The template language function '${n}' expects its first parameter to be an object. The provided value is of type '${typeName(object)}'.`);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(object)) setOwn(out, k, f!.call([v]));
    return out;
  }),
};
