// Bicep compiler errors: a BCP code, the message, and where (1-based line and column), printed as
// the Bicep CLI prints them: `main.bicep(3,7) : Error BCP057: The name "x" does not exist …`.
import { LIMITS } from '../limits.js';

export class BicepError extends Error {
  constructor(
    readonly code: string,
    readonly detail: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`(${line},${column}) : Error ${code}: ${detail}`);
    this.name = 'BicepError';
  }

  /** As the Bicep CLI prints it for a file. */
  format(file: string): string {
    return `${file}(${this.line},${this.column}) : Error ${this.code}: ${this.detail}`;
  }
}

/**
 * (aksemu) Expressions nested deeper than aksemu compiles. The Bicep CLI has no such diagnostic:
 * BCP000 is not one of its codes.
 */
export function nestedTooDeeply(at: { line: number; column: number }, limit: number = LIMITS.bicepNesting): never {
  throw new BicepError(
    'BCP000',
    `This expression is nested more than ${limit} levels deep (parentheses, objects, arrays, operators, property accesses, interpolations); aksemu's Bicep compiler does not compile deeper nesting.`,
    at.line,
    at.column,
  );
}
