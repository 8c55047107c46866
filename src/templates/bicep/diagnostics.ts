// Bicep compiler errors: a BCP code, the message, and where (1-based line and column), printed as
// the Bicep CLI prints them: `main.bicep(3,7) : Error BCP057: The name "x" does not exist …`.

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
