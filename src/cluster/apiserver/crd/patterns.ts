// The `pattern` of a CRD schema, compiled for JavaScript. The apiserver matches with Go's RE2, in linear time;
// JavaScript backtracks, so a hostile pattern such as `^(a+)+$` could hold the event loop on a crafted value.
// A pattern with a repeated group that itself repeats without bound (star height above one, or a large bounded
// count over one) is run under a time limit (node:vm's timeout interrupts the match); one that runs out is not
// checked again, as a pattern JavaScript cannot read is not: the value passes as if the pattern were absent.
// Ordinary patterns run directly. Go's leading inline flags (`(?i)`, as Calico writes) become RegExp flags.
import vm from 'node:vm';

/** A compiled pattern: true / false, or undefined when it could not be decided. */
export interface Pattern {
  test(value: string): boolean | undefined;
}

/** How long one guarded match may take, and how many may run out in one object before the rest are skipped. */
const GUARD_MS = 25;
const GUARD = { context: vm.createContext({ re: /$/, s: '' }), script: new vm.Script('re.test(s)') };

/** Where a quantifier starts at `i`: its kind, and its end. */
function quantifierAt(p: string, i: number): { unbounded: boolean; large: boolean; end: number } | undefined {
  const c = p[i];
  if (c === '*' || c === '+') return { unbounded: true, large: true, end: i + 1 + (p[i + 1] === '?' ? 1 : 0) };
  if (c === '?') return { unbounded: false, large: false, end: i + 1 };
  if (c === '{') {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i));
    if (!m) return undefined;
    const max = m[2] === undefined ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3]);
    return { unbounded: max === Infinity, large: max >= 10, end: i + m[0].length };
  }
  return undefined;
}

/**
 * True when the pattern can backtrack catastrophically: it repeats (without bound, or many times) a group that
 * itself repeats without bound inside, or that holds an alternation (`(a|a)*b` takes 2^n steps on n a's: found
 * by the cluster fuzzer holding the server for seconds on a 30,000-character value).
 */
export function nestedRepetition(p: string): boolean {
  const stack: Array<{ repeats: boolean; alternates: boolean }> = [{ repeats: false, alternates: false }];
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    const top = stack[stack.length - 1]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') {
      for (i++; i < p.length && p[i] !== ']'; i++) if (p[i] === '\\') i++;
      continue;
    }
    if (c === '(') {
      stack.push({ repeats: false, alternates: false });
      continue;
    }
    if (c === '|') {
      top.alternates = true;
      continue;
    }
    if (c === ')') {
      const inner = stack.length > 1 ? stack.pop()! : { repeats: false, alternates: false };
      const parent = stack[stack.length - 1]!;
      const q = quantifierAt(p, i + 1);
      if (q?.large && (inner.repeats || inner.alternates)) return true;
      parent.repeats ||= inner.repeats || (q?.unbounded ?? false);
      continue;
    }
    const q = quantifierAt(p, i);
    if (q?.unbounded) top.repeats = true;
  }
  return false;
}

/** RE2's limits (Go's regexp/syntax): repeat counts, nested ones multiplied, up to 1000; nesting up to 1000. */
const RE2_MAX_REPEAT = 1000;
const RE2_MAX_NESTING = 1000;
/**
 * How large a pattern JavaScript compiles here, in atoms with bounded repeats expanded (`(?:a{1000}){1000}` is a
 * million): V8 unrolls bounded repeats when it compiles, and a pattern far past this exhausts the compiler's
 * memory (`FATAL ERROR: RegExpCompiler Allocation failed`, which no catch stops). Every real pattern (Calico's,
 * Cilium's CRDs) is far below it; one above it is not checked, as a pattern JavaScript cannot read is not.
 */
const MAX_EXPANDED = 20_000;
/** Patterns longer than this are not compiled either (the apiserver's CRDs carry patterns of a few hundred). */
const MAX_PATTERN_LENGTH = 16 * 1024;

export interface PatternShape {
  /** What RE2 refuses in it, in Go's words after `error parsing regexp: `, or undefined. */
  re2Error?: string;
  /** Atoms with bounded repeats expanded. */
  expanded: number;
}

/** Walks the pattern once (no regular expression built from it): RE2's repeat and nesting limits, and its expanded size. */
export function patternShape(p: string): PatternShape {
  // One frame per open group: its expanded size, its last atom's size and repeat product, its largest product.
  const stack: Frame[] = [frame()];
  let re2Error: string | undefined;
  for (let i = 0; i < p.length; i++) {
    const top = stack[stack.length - 1]!;
    const c = p[i]!;
    if (c === '(') {
      if (stack.length > RE2_MAX_NESTING) re2Error ??= `expression nests too deeply: \`${p}\``;
      stack.push(frame());
      continue;
    }
    if (c === ')' && stack.length > 1) {
      const inner = stack.pop()!;
      const parent = stack[stack.length - 1]!;
      parent.size += inner.size;
      parent.last = inner.size;
      parent.lastProduct = inner.maxProduct;
      parent.maxProduct = Math.max(parent.maxProduct, inner.maxProduct);
      continue;
    }
    if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i, i + 24));
      if (m) {
        const min = Number(m[1]);
        const times = Math.max(min, m[2] === undefined || m[3] === '' ? min : Number(m[3]), 1);
        const product = top.lastProduct * times;
        if (min > RE2_MAX_REPEAT || times > RE2_MAX_REPEAT || product > RE2_MAX_REPEAT) re2Error ??= `invalid repeat count: \`${m[0]}\``;
        top.maxProduct = Math.max(top.maxProduct, product);
        top.size += top.last * (times - 1);
        top.last *= times;
        i += m[0].length - 1;
        continue;
      }
    }
    if (c === '*' || c === '+' || c === '?' || c === '|') continue;
    // One atom: an escape, a class, or a character.
    if (c === '\\') i++;
    else if (c === '[') for (i++; i < p.length && p[i] !== ']'; i++) if (p[i] === '\\') i++;
    top.size += 1;
    top.last = 1;
    top.lastProduct = 1;
  }
  return { ...(re2Error ? { re2Error } : {}), expanded: stack.reduce((a, f) => a + f.size, 0) };
}

interface Frame {
  size: number;
  last: number;
  lastProduct: number;
  maxProduct: number;
}

const frame = (): Frame => ({ size: 0, last: 0, lastProduct: 1, maxProduct: 1 });

/** Go's leading inline flags, as JavaScript flags: `^(?i)(a|b)$` is /^(a|b)$/i. */
function readFlags(text: string): { source: string; flags: string } {
  const m = /^(\^?)\(\?([ims]+)\)/.exec(text);
  return m ? { source: `${m[1]}${text.slice(m[0].length)}`, flags: m[2]! } : { source: text, flags: '' };
}

/** Budget of timed-out matches in one validation (validateObjectAgainst resets it). */
export const guardBudget = { left: 3 };

/** The pattern compiled, or undefined when JavaScript cannot read it (not checked). */
export function compilePattern(text: string): Pattern | undefined {
  if (text.length > MAX_PATTERN_LENGTH) return undefined;
  const shape = patternShape(text);
  if (shape.re2Error || shape.expanded > MAX_EXPANDED) return undefined;
  const { source, flags } = readFlags(text);
  let re: RegExp | undefined;
  for (const f of [`${flags}u`, flags]) {
    try {
      re = new RegExp(source, f);
      break;
    } catch {
      // next reading
    }
  }
  if (!re) return undefined;
  const regex = re;
  if (!nestedRepetition(source)) return { test: (v) => regex.test(v) };
  let disabled = false;
  return {
    test: (v) => {
      if (disabled || guardBudget.left <= 0) return undefined;
      GUARD.context['re'] = regex;
      GUARD.context['s'] = v;
      try {
        return GUARD.script.runInContext(GUARD.context, { timeout: GUARD_MS }) === true;
      } catch {
        disabled = true;
        guardBudget.left--;
        return undefined;
      }
    },
  };
}
