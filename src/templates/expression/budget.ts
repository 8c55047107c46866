// What one deployment's evaluation may spend, so that no template can stall the server or reach the
// end of the stack: work, nesting depth (expressions inside expressions, across variables), and the
// template's size once expanded. A unit of work is about 100 ns (measured on the CI machine): an
// expression or JSON node evaluated costs NODE, a value a function walks or makes one per value in
// it and one per 128 characters of its text. Some functions cost more per unit than that (canonical
// keys of objects, the JSON reader), so the time spent evaluating is bounded too, as a backstop:
// it is read every CLOCK_EVERY charges and counts only while an evaluation runs, not the resource
// providers a running deployment calls between evaluations.
import { performance } from 'node:perf_hooks';
import { LIMITS, limitExceeded } from '../limits.js';
import type { Measure } from './measure.js';
import { TemplateLanguageError } from './parser.js';

const NODE = 5;
const CHARS_PER_UNIT = 128;
const CLOCK_EVERY = 256;

/** What walking or making a value costs. */
export function workOf(m: Measure): number {
  return m.nodes + Math.ceil(m.size / CHARS_PER_UNIT);
}

export class EvaluationBudget {
  private work = 0;
  private charges = 0;
  private depth = 0;
  private expanded = 0;
  /** Milliseconds spent in finished evaluations, and when the running one began. */
  private spentMs = 0;
  private startedAt = 0;

  constructor(
    private readonly maxWork: number = LIMITS.evaluationWork,
    private readonly maxMs: number = LIMITS.evaluationMs,
  ) {}

  /** One node evaluated, plus `units` of work on values. */
  charge(units = 0): void {
    this.work += NODE + units;
    if (this.work > this.maxWork) {
      throw new TemplateLanguageError(limitExceeded('template language evaluation work', this.maxWork));
    }
    if (++this.charges % CLOCK_EVERY === 0 && this.depth > 0 && this.spentMs + performance.now() - this.startedAt > this.maxMs) {
      throw new TemplateLanguageError(limitExceeded('template language evaluation time (milliseconds)', this.maxMs));
    }
  }

  /** One level deeper; true when this is the outermost level. Pair with leave() in a finally. */
  enter(): boolean {
    if (this.depth >= LIMITS.evaluationDepth) {
      throw new TemplateLanguageError(limitExceeded('template language evaluation depth', LIMITS.evaluationDepth));
    }
    if (this.depth++ > 0) return false;
    this.startedAt = performance.now();
    return true;
  }

  leave(): void {
    if (--this.depth === 0) this.spentMs += performance.now() - this.startedAt;
  }

  /** Counts a value into the expanded template (parameters, variables, resource bodies). */
  expand(size: number): void {
    this.expanded += size;
    if (this.expanded > LIMITS.templateBytes) {
      throw new TemplateLanguageError(
        limitExceeded('template size after expansion (resources, variables and parameter values, in characters)', LIMITS.templateBytes, this.expanded),
      );
    }
  }
}
