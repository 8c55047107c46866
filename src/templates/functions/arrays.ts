// Array and object functions, and the ones that take either a string or an array (concat, length,
// first, take, contains …).
import { LIMITS } from '../limits.js';
import { keysIgnoringCase, memberKey } from '../members.js';
import { arity, arr, checkLength, deepEquals, fail, int, isObject, str, valueKey, type FunctionTable } from './types.js';
import { typeName } from './typeName.js';
import { own, setOwn } from '../../http/own.js';

function seq(name: string, value: unknown): string | unknown[] {
  if (typeof value === 'string' || Array.isArray(value)) return value;
  return fail(`The template language function '${name}' expects its parameter to be an array or a string. The provided value is of type '${typeName(value)}'.`);
}

function setOf(name: string, args: unknown[], combine: 'union' | 'intersection'): unknown {
  if (args.length < 2)
    fail(
      `Unable to evaluate template language function '${name}'. At least two parameter should be provided. Please see https://aka.ms/arm-template-expressions for usage details.`,
    );
  if (args.every(Array.isArray)) {
    // Members are found by their valueKey, never by comparing every pair.
    const lists = args as unknown[][];
    const seen = new Set<unknown>();
    const firstTime = (v: unknown): boolean => {
      const key = valueKey(v);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    };
    if (combine === 'union') return lists.flatMap((list) => list.filter(firstTime));
    const others = lists.slice(1).map((l) => new Set(l.map(valueKey)));
    return lists[0]!.filter((v) => others.every((o) => o.has(valueKey(v))) && firstTime(v));
  }
  if (args.every(isObject)) {
    const objects = args as Record<string, unknown>[];
    if (combine === 'union') {
      // Later objects win; nested objects merge deeply (ARM since 2020).
      const merge = (a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> => {
        const out = { ...a };
        for (const [k, v] of Object.entries(b)) {
          const mine = own(out, k);
          setOwn(out, k, isObject(mine) && isObject(v) ? merge(mine, v) : v);
        }
        return out;
      };
      return objects.reduce(merge, {});
    }
    const [first, ...rest] = objects;
    return Object.fromEntries(Object.entries(first!).filter(([k, v]) => rest.every((o) => Object.hasOwn(o, k) && deepEquals(o[k], v))));
  }
  return fail(`The template language function '${name}' expects either a comma separated list of arrays or a comma separated list of objects.`);
}

export const arrayFunctions: FunctionTable = {
  array: { eager: (a, _e, n) => (arity(n, a, 1), Array.isArray(a[0]) ? a[0] : [a[0]]) },
  createarray: { eager: (a) => [...a] },
  createobject: {
    eager: (a, _e, n) => {
      if (a.length % 2 !== 0) fail(`The template language function '${n}' must have an even number of parameters.`);
      const out: Record<string, unknown> = {};
      for (let i = 0; i < a.length; i += 2) setOwn(out, str(n, a[i], 'its property names'), a[i + 1]);
      return out;
    },
  },
  coalesce: { eager: (a) => a.find((v) => v !== null && v !== undefined) ?? null },
  concat: {
    eager: (a, _e, n) => {
      if (a.length === 0) return '';
      if (a.every(Array.isArray)) return (a as unknown[][]).flat(1);
      const parts = a.map((v) => {
        if (typeof v === 'string') return v;
        if (typeof v === 'number' || typeof v === 'boolean') return v === true ? 'True' : v === false ? 'False' : String(v);
        if (v === null) return '';
        return fail(`The provided parameters for language function '${n}' are invalid. Either all or none of the parameters must be an array.`);
      });
      checkLength(
        n,
        parts.reduce((total, p) => total + p.length, 0),
      );
      return parts.join('');
    },
  },
  contains: {
    eager: (a, _e, n) => {
      arity(n, a, 2);
      const [container, item] = a;
      if (typeof container === 'string') return container.includes(typeof item === 'string' ? item : String(item));
      if (Array.isArray(container)) return container.some((v) => deepEquals(v, item));
      if (isObject(container)) return memberKey(container, String(item)) !== undefined;
      return fail(
        `The template language function '${n}' expects its first parameter to be an object, an array, or a string. The provided value is of type '${typeName(container)}'.`,
      );
    },
  },
  empty: {
    eager: (a, _e, n) => {
      arity(n, a, 1);
      const v = a[0];
      if (v === null || v === undefined) return true;
      if (typeof v === 'string' || Array.isArray(v)) return v.length === 0;
      if (isObject(v)) return Object.keys(v).length === 0;
      return fail(
        `The template function 'empty' expects its parameter to be an object, an array, or a string. The provided value is of type '${typeName(v)}'. Please see https://aka.ms/arm-template-expressions#empty for usage details.`,
      );
    },
  },
  first: {
    eager: (a, _e, n) => (
      arity(n, a, 1),
      (() => {
        const s = seq(n, a[0]);
        return typeof s === 'string' ? s.slice(0, 1) : (s[0] ?? null);
      })()
    ),
  },
  last: {
    eager: (a, _e, n) => (
      arity(n, a, 1),
      (() => {
        const s = seq(n, a[0]);
        return typeof s === 'string' ? s.slice(-1) : (s[s.length - 1] ?? null);
      })()
    ),
  },
  length: {
    eager: (a, _e, n) => {
      arity(n, a, 1);
      if (isObject(a[0])) return Object.keys(a[0]).length;
      return seq(n, a[0]).length;
    },
  },
  take: { eager: (a, _e, n) => (arity(n, a, 2), seq(n, a[0]).slice(0, Math.max(0, int(n, a[1], 'its second parameter')))) },
  skip: { eager: (a, _e, n) => (arity(n, a, 2), seq(n, a[0]).slice(Math.max(0, int(n, a[1], 'its second parameter')))) },
  union: { eager: (a, _e, n) => setOf(n, a, 'union') },
  intersection: { eager: (a, _e, n) => setOf(n, a, 'intersection') },
  range: {
    eager: (a, _e, n) => {
      arity(n, a, 2);
      const start = int(n, a[0], 'its first parameter');
      const count = int(n, a[1], 'its second parameter');
      if (count < 0 || count > LIMITS.rangeCount) fail(`The template language function '${n}' expects its count to be between 0 and ${LIMITS.rangeCount}.`);
      if (start + count > LIMITS.rangeEnd)
        fail(`The template language function '${n}' expects the sum of its start index and count to be no greater than ${LIMITS.rangeEnd}.`);
      return Array.from({ length: count }, (_, i) => start + i);
    },
  },
  items: {
    eager: (a, _e, n) => {
      arity(n, a, 1);
      if (!isObject(a[0]))
        fail(`The template language function '${n}' expects its parameter to be an object. The provided value is of type '${typeName(a[0])}'.`);
      // Ordinal, case-insensitive: localeCompare would cost a microsecond a key.
      return keysIgnoringCase(a[0]).map(([, key]) => ({ key, value: (a[0] as Record<string, unknown>)[key] }));
    },
  },
  // tryGet(value, key1, key2, …) follows each key in turn (Bicep's a.?b.c), null once one is absent.
  trygetvalue: { eager: (a, _e, n) => (arity(n, a, 2, Infinity), a.slice(1).reduce(tryGet, a[0])) },
  tryget: { eager: (a, _e, n) => (arity(n, a, 2, Infinity), a.slice(1).reduce(tryGet, a[0])) },
  indexfromend: {
    eager: (a, _e, n) => {
      arity(n, a, 2);
      const items = arr(n, a[0], 'its first parameter');
      const reverse = int(n, a[1], 'its second parameter');
      if (reverse < 1 || reverse > items.length)
        fail(
          `The template language function '${n}' expects its second parameter to be from 1 to the length of the array, ${items.length}. The provided value is '${reverse}'.`,
        );
      return items[items.length - reverse];
    },
  },
  tryindexfromend: {
    eager: (a, _e, n) => {
      arity(n, a, 2);
      const items = arr(n, a[0], 'its first parameter');
      const reverse = int(n, a[1], 'its second parameter');
      return reverse >= 1 && reverse <= items.length ? items[items.length - reverse] : null;
    },
  },
  shallowmerge: {
    eager: (a, _e, n) => {
      arity(n, a, 1);
      const out: Record<string, unknown> = {};
      for (const item of arr(n, a[0])) {
        if (!isObject(item))
          fail(`The template language function '${n}' expects an array of objects. The provided array contains a value of type '${typeName(item)}'.`);
        for (const [k, v] of Object.entries(item)) setOwn(out, memberKey(out, k) ?? k, v);
      }
      return out;
    },
  },
  objectkeys: { eager: (a, _e, n) => (arity(n, a, 1), isObject(a[0]) ? Object.keys(a[0]) : fail(`The template language function '${n}' expects an object.`)) },
  flatten: {
    eager: (a, _e, n) => (
      arity(n, a, 1), arr(n, a[0]).flatMap((v) => (Array.isArray(v) ? v : fail(`The template language function '${n}' expects an array of arrays.`)))
    ),
  },
};

/** tryGet(object, key) / tryGet(array, index): null instead of an error when absent (Bicep's ?.). */
function tryGet(target: unknown, key: unknown): unknown {
  if (Array.isArray(target) && typeof key === 'number') return (Number.isInteger(key) && key >= 0 ? target[key] : undefined) ?? null;
  if (isObject(target) && typeof key === 'string') {
    const k = memberKey(target, key);
    return k === undefined ? null : target[k];
  }
  return null;
}
