// Evaluating template expressions against a deployment's context. Functions live in a table by
// lower-case name (ARM's names are case-insensitive); if/and/or receive their arguments unevaluated,
// so only the branch taken is evaluated, as ARM does.
import { templateSentences } from '../../arm/errors.js';
import { isExpression, parseExpression, TemplateLanguageError, unescapeLiteral, type Expr } from './parser.js';
import type { EvalEnv } from './env.js';
import { lookupFunction } from '../functions/index.js';
import { typeName } from '../functions/typeName.js';

export type { EvalEnv } from './env.js';

const parsed = new Map<string, Expr>();

function parseCached(text: string): Expr {
  let expr = parsed.get(text);
  if (!expr) {
    expr = parseExpression(text);
    if (parsed.size > 5000) parsed.clear();
    parsed.set(text, expr);
  }
  return expr;
}


export function evaluateExpr(expr: Expr, env: EvalEnv): unknown {
  switch (expr.kind) {
    case 'literal':
      return expr.value;
    case 'property': {
      const target = evaluateExpr(expr.target, env);
      if (typeof target !== 'object' || target === null || Array.isArray(target)) {
        throw new TemplateLanguageError(`The language expression property '${expr.name}' can't be evaluated, property name must be a string or the target must be an object.`);
      }
      const key = Object.keys(target).find((k) => k.toLowerCase() === expr.name.toLowerCase());
      if (key === undefined) {
        throw new TemplateLanguageError(`The language expression property '${expr.name}' doesn't exist, available properties are '${Object.keys(target).join(', ')}'.`);
      }
      return (target as Record<string, unknown>)[key];
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
      if (typeof target === 'object' && target !== null && typeof index === 'string') {
        const key = Object.keys(target).find((k) => k.toLowerCase() === index.toLowerCase());
        if (key === undefined) {
          throw new TemplateLanguageError(`The language expression property '${index}' doesn't exist, available properties are '${Object.keys(target).join(', ')}'.`);
        }
        return (target as Record<string, unknown>)[key];
      }
      throw new TemplateLanguageError(`The language expression property '${String(index)}' can't be evaluated on a value of type '${typeName(target)}'.`);
    }
    case 'call': {
      const fn = lookupFunction(expr.name);
      if (!fn) throw new TemplateLanguageError(templateSentences.functionNotValid(expr.name));
      if (fn.lazy) return fn.lazy(expr.args.map((a) => () => evaluateExpr(a, env)), env, expr.name);
      return fn.eager!(expr.args.map((a) => evaluateExpr(a, env)), env, expr.name);
    }
  }
}

/** A JSON string value of a template: an expression's value, or the (unescaped) literal text. */
export function evaluateString(text: string, env: EvalEnv): unknown {
  return isExpression(text) ? evaluateExpr(parseCached(text), env) : unescapeLiteral(text);
}

export interface PropertyCopy {
  name: string;
  count: unknown;
  input: unknown;
}

/** ARM's property loop: "copy": [{"name", "count", "input"}] inside an object makes array members. */
export function isPropertyCopy(key: string, value: unknown): value is PropertyCopy[] {
  return key.toLowerCase() === 'copy' && Array.isArray(value) && value.length > 0 &&
    value.every((c) => typeof c === 'object' && c !== null && typeof (c as PropertyCopy).name === 'string' && 'count' in c && 'input' in c);
}

/** Evaluates every string in a JSON value (objects, arrays); property names may be expressions too. */
export function evaluateDeep(value: unknown, env: EvalEnv): unknown {
  if (typeof value === 'string') return evaluateString(value, env);
  if (Array.isArray(value)) return value.map((v) => evaluateDeep(v, env));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (isPropertyCopy(k, v)) {
        for (const loop of v) {
          const count = evaluateDeep(loop.count, env);
          if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) {
            throw new TemplateLanguageError(`The copy count of property '${loop.name}' must be a non-negative integer. Please see https://aka.ms/arm-copy for usage details.`);
          }
          out[loop.name] = Array.from({ length: count }, (_, i) => env.inCopy(loop.name, i, () => evaluateDeep(loop.input, env)));
        }
        continue;
      }
      const key = isExpression(k) ? String(evaluateString(k, env)) : unescapeLiteral(k);
      out[key] = evaluateDeep(v, env);
    }
    return out;
  }
  return value;
}

/** True when a JSON value contains an expression calling one of `names` (e.g. reference). */
export function mentionsFunction(value: unknown, names: readonly string[]): boolean {
  const lower = names.map((n) => n.toLowerCase());
  const inExpr = (expr: Expr): boolean => {
    switch (expr.kind) {
      case 'literal':
        return false;
      case 'call':
        return lower.includes(expr.name.toLowerCase()) || expr.args.some(inExpr);
      case 'property':
        return inExpr(expr.target);
      case 'index':
        return inExpr(expr.target) || inExpr(expr.index);
    }
  };
  if (typeof value === 'string') {
    if (!isExpression(value)) return false;
    try {
      return inExpr(parseCached(value));
    } catch {
      return false;
    }
  }
  if (Array.isArray(value)) return value.some((v) => mentionsFunction(v, names));
  if (typeof value === 'object' && value !== null) return Object.entries(value).some(([k, v]) => mentionsFunction(k, names) || mentionsFunction(v, names));
  return false;
}

/** Every call of `name` in an expression string, with its arguments' expressions (for dependencies). */
export function callsOf(value: unknown, name: string): Expr[][] {
  const found: Expr[][] = [];
  const visit = (expr: Expr): void => {
    if (expr.kind === 'call') {
      if (expr.name.toLowerCase() === name.toLowerCase()) found.push(expr.args);
      expr.args.forEach(visit);
    } else if (expr.kind === 'property') visit(expr.target);
    else if (expr.kind === 'index') {
      visit(expr.target);
      visit(expr.index);
    }
  };
  const walk = (v: unknown): void => {
    if (typeof v === 'string' && isExpression(v)) {
      try {
        visit(parseCached(v));
      } catch {
        // Unparsable expressions are reported when evaluated.
      }
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach(walk);
  };
  walk(value);
  return found;
}
