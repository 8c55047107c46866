// Evaluating template expressions against a deployment's context. Functions live in a table by
// lower-case name (ARM's names are case-insensitive); if/and/or receive their arguments unevaluated,
// so only the branch taken is evaluated, as ARM does. Every evaluation draws on the deployment's
// budget (work and depth), and every value a function makes is measured against the limits, so a
// hostile template ends in the language's own error, never in a stalled or crashed server.
import { templateSentences } from '../../arm/errors.js';
import { positionOf } from '../jsonc.js';
import { copyCountSentence, LIMITS, limitExceeded, resultTooLarge, validCopyCount } from '../limits.js';
import { memberKey } from '../members.js';
import { isExpression, parseExpression, TemplateLanguageError, unescapeLiteral, type Expr } from './parser.js';
import type { EvalEnv } from './env.js';
import { workOf } from './budget.js';
import { measure, type Measure } from './measure.js';
import { Lambda } from './lambda.js';
import { lookupFunction } from '../functions/index.js';
import { typeName } from '../functions/typeName.js';
import { setOwn } from '../../http/own.js';
import { sameId } from '../../ids/compare.js';

export type { EvalEnv } from './env.js';

/** Parsed expressions by text, up to a total length, so the cache cannot grow without bound. */
const parsed = new Map<string, Expr>();
let parsedChars = 0;

function parseCached(text: string): Expr {
  let expr = parsed.get(text);
  if (!expr) {
    expr = parseExpression(text);
    if (parsedChars + text.length > 4 * LIMITS.templateBytes) {
      parsed.clear();
      parsedChars = 0;
    }
    parsed.set(text, expr);
    parsedChars += text.length;
  }
  return expr;
}

/** The value's measure, when it is within the limits on size and nesting. */
function withinLimits(value: unknown, tooLarge: (size: number) => string): Measure {
  const m = measure(value);
  if (m.size > LIMITS.valueSize) throw new TemplateLanguageError(tooLarge(m.size));
  if (m.depth > LIMITS.valueDepth) throw new TemplateLanguageError(limitExceeded('template language value nesting depth', LIMITS.valueDepth));
  return m;
}

/**
 * Functions whose work does not grow with their arguments' size: they pass values along, wrap them,
 * or read a length. Every other function is charged for the values it reads and makes.
 */
const CONSTANT_WORK = new Set([
  'parameters',
  'variables',
  'copyindex',
  'resourcegroup',
  'subscription',
  'deployment',
  'environment',
  'reference',
  'if',
  'and',
  'or',
  'not',
  'coalesce',
  'length',
  'empty',
  'first',
  'last',
  'array',
  'createarray',
  'createobject',
  'tryget',
  'trygetvalue',
  'indexfromend',
  'tryindexfromend',
  'lambdavariables',
]);

/** A value a function made, within the limits; its work charged to the budget. */
function bounded(env: EvalEnv, functionName: string, value: unknown, args: readonly unknown[]): unknown {
  const m = withinLimits(value, (size) => resultTooLarge(functionName, size));
  env.budget.charge(CONSTANT_WORK.has(functionName.toLowerCase()) ? args.length : args.reduce<number>((n, a) => n + workOf(measure(a)), workOf(m)));
  return value;
}

/** An object's member as ARM reads it: own members only, names case-insensitive. */
function member(target: object, name: string): unknown {
  const key = memberKey(target, name);
  if (key === undefined) {
    throw new TemplateLanguageError(`The language expression property '${name}' doesn't exist, available properties are '${Object.keys(target).join(', ')}'.`);
  }
  return (target as Record<string, unknown>)[key];
}

/**
 * What an evaluation level throws on: the outermost level turns a RangeError (a limit of the
 * JavaScript engine that no bound above anticipated) into the language's error.
 */
function thrown(err: unknown, outermost: boolean): unknown {
  return outermost && err instanceof RangeError
    ? new TemplateLanguageError(`The template language expression exceeds what aksemu can evaluate: ${err.message}.`)
    : err;
}

export function evaluateExpr(expr: Expr, env: EvalEnv): unknown {
  // Inline rather than through a helper taking a closure: two stack frames fewer per level.
  const outermost = env.budget.enter();
  try {
    return evaluateNode(expr, env);
  } catch (err) {
    throw thrown(err, outermost);
  } finally {
    env.budget.leave();
  }
}

function evaluateNode(expr: Expr, env: EvalEnv): unknown {
  env.budget.charge();
  switch (expr.kind) {
    case 'literal':
      return expr.value;
    case 'property': {
      const target = evaluateExpr(expr.target, env);
      if (typeof target !== 'object' || target === null || Array.isArray(target)) {
        throw new TemplateLanguageError(
          `The language expression property '${expr.name}' can't be evaluated, property name must be a string or the target must be an object.`,
        );
      }
      return member(target, expr.name);
    }
    case 'index': {
      const target = evaluateExpr(expr.target, env);
      const index = evaluateExpr(expr.index, env);
      if (Array.isArray(target)) {
        if (typeof index !== 'number' || !Number.isInteger(index)) {
          throw new TemplateLanguageError(`The language expression property array index '${String(index)}' is not valid: an integer is expected.`);
        }
        if (index < 0 || index >= target.length) throw new TemplateLanguageError(`The language expression property array index '${index}' is out of bounds.`);
        return target[index];
      }
      if (typeof target === 'object' && target !== null && typeof index === 'string') return member(target, index);
      throw new TemplateLanguageError(`The language expression property '${String(index)}' can't be evaluated on a value of type '${typeName(target)}'.`);
    }
    case 'call': {
      const fn = lookupFunction(expr.name);
      if (!fn) {
        const udf = expr.name.includes('.') ? env.userFunction?.(expr.name) : undefined;
        if (!udf) throw new TemplateLanguageError(templateSentences.functionNotValid(expr.name));
        const args = expr.args.map((a) => evaluateExpr(a, env));
        return bounded(env, expr.name, udf(args), args);
      }
      if (fn.lazy)
        return bounded(
          env,
          expr.name,
          fn.lazy(
            expr.args.map((a) => () => evaluateExpr(a, env)),
            env,
            expr.name,
          ),
          [],
        );
      if (fn.lambdas) {
        // A lambda argument stays unevaluated: the function calls it per element.
        const args = expr.args.map((a) => (isLambda(a) ? lambdaOf(a, env) : evaluateExpr(a, env)));
        return bounded(
          env,
          expr.name,
          fn.eager!(args, env, expr.name),
          args.filter((a) => !(a instanceof Lambda)),
        );
      }
      const args = expr.args.map((a) => evaluateExpr(a, env));
      return bounded(env, expr.name, fn.eager!(args, env, expr.name), args);
    }
  }
}

function isLambda(expr: Expr): expr is Extract<Expr, { kind: 'call' }> {
  return expr.kind === 'call' && expr.name.toLowerCase() === 'lambda';
}

/** lambda('x', ['y', …], body): the variables' names (strings), then the body, kept as an expression. */
function lambdaOf(expr: Extract<Expr, { kind: 'call' }>, env: EvalEnv): Lambda {
  env.budget.charge();
  const body = expr.args[expr.args.length - 1];
  if (expr.args.length < 2 || body === undefined)
    throw new TemplateLanguageError(
      `The template language function 'lambda' must have at least 2 parameters: the lambda variables' names, then the expression.`,
    );
  const names = expr.args.slice(0, -1).map((a) => evaluateExpr(a, env));
  for (const name of names) {
    if (typeof name !== 'string' || name === '')
      throw new TemplateLanguageError(
        `The template language function 'lambda' expects its lambda variable names to be non-empty strings. The provided value is of type '${typeName(name)}'.`,
      );
  }
  return new Lambda(names as string[], () => evaluateExpr(body, env));
}

/** A JSON string value of a template: an expression's value, or the (unescaped) literal text. */
export function evaluateString(text: string, env: EvalEnv): unknown {
  return isExpression(text) ? evaluateExpr(parseCached(text), env) : unescapeLiteral(text);
}

interface PropertyCopy {
  name: string;
  count: unknown;
  input: unknown;
}

/** ARM's property loop: "copy": [{"name", "count", "input"}] inside an object makes array members. */
function isPropertyCopy(key: string, value: unknown): value is PropertyCopy[] {
  return (
    key.toLowerCase() === 'copy' &&
    Array.isArray(value) &&
    value.length > 0 &&
    value.every(
      (c) => typeof c === 'object' && c !== null && typeof (c as PropertyCopy).name === 'string' && Object.hasOwn(c, 'count') && Object.hasOwn(c, 'input'),
    )
  );
}

/** How a deep evaluation evaluates a string (a preview keeps what only the running deployment knows). */
export type Leaf = (text: string, env: EvalEnv) => unknown;

/**
 * A copy loop's array (property, variable or output loop): input evaluated count times with
 * copyIndex(name) bound. ARM's error, at the loop's position, when the count is not from 0 to 800.
 */
export function evaluateCopy(loop: { count: unknown; input?: unknown }, name: string, env: EvalEnv, leaf: Leaf = evaluateString): unknown[] {
  const n = validCopyCount(evaluateDeep(loop.count, env, leaf));
  if (n === undefined) {
    const at = positionOf(loop);
    throw new TemplateLanguageError(copyCountSentence(at?.line ?? 0, at?.column ?? 0));
  }
  return Array.from({ length: n }, (_, i) => env.inCopy(name, i, () => evaluateDeep(loop.input, env, leaf)));
}

/** Evaluates every string in a JSON value (objects, arrays); property names may be expressions too. */
export function evaluateDeep(value: unknown, env: EvalEnv, leaf: Leaf = evaluateString): unknown {
  if (typeof value === 'string') return leaf(value, env);
  if (typeof value !== 'object' || value === null) return value;
  const outermost = env.budget.enter();
  try {
    env.budget.charge();
    let out: unknown;
    if (Array.isArray(value)) out = value.map((v) => evaluateDeep(v, env, leaf));
    else {
      const members: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        if (isPropertyCopy(k, v)) {
          for (const loop of v) setOwn(members, loop.name, evaluateCopy(loop, loop.name, env, leaf));
        } else setOwn(members, isExpression(k) ? String(leaf(k, env)) : unescapeLiteral(k), evaluateDeep(v, env, leaf));
      }
      out = members;
    }
    withinLimits(out, (size) => limitExceeded('template value size', LIMITS.valueSize, size));
    return out;
  } catch (err) {
    throw thrown(err, outermost);
  } finally {
    env.budget.leave();
  }
}

type Call = Extract<Expr, { kind: 'call' }>;

/**
 * Each call in the expressions of `value` (its strings, its arrays' and objects' members, and with `keys` its
 * objects' keys too), depth first, a call before its arguments, until `visit` returns true; whether one did.
 * Unparsable expressions are skipped: they are reported when evaluated.
 */
export function someCall(value: unknown, visit: (call: Call) => boolean, keys = false): boolean {
  const inExpr = (expr: Expr): boolean => {
    if (expr.kind === 'call') return visit(expr) || expr.args.some(inExpr);
    if (expr.kind === 'property') return inExpr(expr.target);
    if (expr.kind === 'index') return inExpr(expr.target) || inExpr(expr.index);
    return false;
  };
  const walk = (v: unknown): boolean => {
    if (typeof v === 'string') {
      if (!isExpression(v)) return false;
      let expr: Expr;
      try {
        expr = parseCached(v);
      } catch {
        return false;
      }
      return inExpr(expr);
    }
    if (Array.isArray(v)) return v.some(walk);
    if (typeof v === 'object' && v !== null) return Object.entries(v).some(([k, x]) => (keys && walk(k)) || walk(x));
    return false;
  };
  return walk(value);
}

/** Every call of `name` in an expression string, with its arguments' expressions (for dependencies). */
export function callsOf(value: unknown, name: string): Expr[][] {
  const found: Expr[][] = [];
  someCall(value, (call) => {
    if (sameId(call.name, name)) found.push(call.args);
    return false;
  });
  return found;
}
