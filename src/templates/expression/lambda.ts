// ARM's lambdas: lambda('x', 'i', body) is not a value but syntax, allowed only as a direct argument
// of the functions that take one (filter, groupBy, map, mapValues, reduce, sort, toObject). The
// evaluator turns such an argument into a Lambda; calling it binds its variables, which
// lambdaVariables('x') reads, innermost first. Evaluation is synchronous, so the bindings live on
// one stack: a lambda's body runs with its frame on top and leaves it on return or throw.
import { TemplateLanguageError } from './parser.js';

export class Lambda {
  constructor(
    /** Its variables' names, as written. */
    readonly variables: readonly string[],
    /** Evaluates the body (the evaluator's closure over its expression and environment). */
    private readonly body: () => unknown,
  ) {}

  /** The body's value with the variables bound to `values` (extra values are ignored: the index when the lambda takes none). */
  call(values: readonly unknown[]): unknown {
    const frame = new Map<string, unknown>();
    this.variables.forEach((name, i) => frame.set(name.toLowerCase(), values[i]));
    frames.push(frame);
    try {
      return this.body();
    } finally {
      frames.pop();
    }
  }
}

const frames: Array<Map<string, unknown>> = [];

/** lambdaVariables(name): the innermost binding of `name`. */
export function lambdaVariable(name: string): unknown {
  const key = name.toLowerCase();
  for (let i = frames.length - 1; i >= 0; i--) {
    const frame = frames[i]!;
    if (frame.has(key)) return frame.get(key) ?? null;
  }
  throw new TemplateLanguageError(
    frames.length === 0
      ? "The template function 'lambdaVariables' is not expected at this location. It can only be used inside a lambda function."
      : `The lambda variable '${name}' is not defined.`,
  );
}
