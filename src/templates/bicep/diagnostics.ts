// Bicep compiler errors: a BCP code, the message, and where (1-based line and column), printed as
// the Bicep CLI prints them: `main.bicep(3,7) : Error BCP057: The name "x" does not exist …`.
import { LIMITS } from '../limits.js';

export class BicepError extends Error {
  /** The file the error is in, when it is not the file compiled (a module's, an import's). */
  file?: string;

  constructor(
    readonly code: string,
    readonly detail: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`(${line},${column}) : Error ${code}: ${detail}`);
    this.name = 'BicepError';
  }

  /** As the Bicep CLI prints it for a file (the error's own file when it lies in another one). */
  format(file: string): string {
    return `${this.file ?? file}(${this.line},${this.column}) : Error ${this.code}: ${this.detail}`;
  }
}

/** (aksemu) Inputs larger than aksemu compiles: files, their size, module depth. */
export function tooLarge(at: { line: number; column: number }, what: string): never {
  throw new BicepError('BCP000', `${what}; aksemu's Bicep compiler does not compile more.`, at.line, at.column);
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
