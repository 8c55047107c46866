// A recursive-descent parser for the Bicep language subset aksemu compiles: param, var, resource
// (existing, parent, nested, if, for), output, targetScope; decorators; expressions with Bicep's
// operator precedence (?: < ?? < || < && < == != =~ !~ < < <= > >= < + - < * / % < unary < postfix).
import { LIMITS } from '../limits.js';
import type { Decorator, Expr, Property, ResourceDecl, Statement } from './ast.js';
import { BicepError, nestedTooDeeply } from './diagnostics.js';
import { tokenize, type Token, type TokenKind } from './lexer.js';

const BINARY_LEVELS: string[][] = [['??'], ['||'], ['&&'], ['==', '!=', '=~', '!~'], ['<', '<=', '>', '>='], ['+', '-'], ['*', '/', '%']];

export function parseBicep(text: string): Statement[] {
  return new Parser(tokenize(text)).program();
}

class Parser {
  private at = 0;
  /** Inside (…) newlines do not end anything. */
  private parenDepth = 0;
  /** Expressions inside expressions: bounded, so no source reaches the end of the stack. */
  private nesting = 0;

  constructor(private readonly tokens: Token[]) {}

  private peek(offset = 0): Token {
    let i = this.at;
    let seen = 0;
    for (;;) {
      const t = this.tokens[i]!;
      if (t.kind === 'newline' && this.parenDepth > 0) {
        i++;
        continue;
      }
      if (seen === offset || t.kind === 'eof') return t;
      seen++;
      i++;
    }
  }

  private next(): Token {
    while (this.parenDepth > 0 && this.tokens[this.at]!.kind === 'newline') this.at++;
    const t = this.tokens[this.at]!;
    if (t.kind !== 'eof') this.at++;
    return t;
  }

  private fail(t: Token, code: string, message: string): never {
    throw new BicepError(code, message, t.line, t.column);
  }

  private expect(kind: TokenKind, what = `"${kind}"`): Token {
    const t = this.peek();
    if (t.kind !== kind) {
      if (kind === 'identifier') this.fail(t, 'BCP013', 'Expected an identifier at this location.');
      this.fail(t, 'BCP018', `Expected the ${what} character at this location.`);
    }
    return this.next();
  }

  private skipNewlines(): void {
    while (this.tokens[this.at]!.kind === 'newline') this.at++;
  }

  private endOfStatement(): void {
    const t = this.peek();
    if (t.kind === 'eof') return;
    if (t.kind !== 'newline') this.fail(t, 'BCP019', 'Expected a new line character at this location.');
    this.skipNewlines();
  }

  program(): Statement[] {
    const statements: Statement[] = [];
    this.skipNewlines();
    while (this.peek().kind !== 'eof') {
      statements.push(this.statement());
      this.endOfStatement();
    }
    return statements;
  }

  private decorators(): Decorator[] {
    const out: Decorator[] = [];
    while (this.peek().kind === '@') {
      const at = this.next();
      let name = this.expect('identifier').text;
      if (name === 'sys' && this.peek().kind === '.') {
        this.next();
        name = this.expect('identifier').text;
      }
      const args = this.callArgs();
      out.push({ name, args, line: at.line, column: at.column });
      this.skipNewlines();
    }
    return out;
  }

  private statement(): Statement {
    const decorators = this.decorators();
    const t = this.peek();
    if (t.kind !== 'identifier')
      this.fail(t, 'BCP007', 'This declaration type is not recognized. Specify a metadata, parameter, variable, resource, or output declaration.');
    switch (t.text) {
      case 'param': {
        this.next();
        const name = this.expect('identifier');
        const type = this.typeName();
        let defaultValue: Expr | undefined;
        if (this.peek().kind === '=') {
          this.next();
          defaultValue = this.expression();
        }
        return { kind: 'param', name: name.text, type, ...(defaultValue ? { defaultValue } : {}), decorators, line: t.line, column: t.column };
      }
      case 'var': {
        this.next();
        const name = this.expect('identifier');
        this.expect('=', '"="');
        return { kind: 'var', name: name.text, value: this.expression(), decorators, line: t.line, column: t.column };
      }
      case 'output': {
        this.next();
        const name = this.expect('identifier');
        const type = this.typeName();
        this.expect('=', '"="');
        return { kind: 'output', name: name.text, type, value: this.expression(), decorators, line: t.line, column: t.column };
      }
      case 'resource':
        return this.resource(decorators);
      case 'targetScope': {
        this.next();
        this.expect('=', '"="');
        return { kind: 'targetScope', value: this.expression(), line: t.line, column: t.column };
      }
      case 'module':
        this.fail(t, 'BCP091', "Modules are not supported by aksemu's Bicep compiler: it compiles one file. Inline the module's resources.");
      // falls through (fail never returns)
      default:
        this.fail(t, 'BCP007', 'This declaration type is not recognized. Specify a metadata, parameter, variable, resource, or output declaration.');
    }
  }

  private typeName(): string {
    const t = this.peek();
    if (t.kind !== 'identifier')
      this.fail(
        t,
        'BCP279',
        'Expected a type at this location. Please specify a valid type expression or one of the following types: "array", "bool", "int", "object", "string".',
      );
    this.next();
    if (!['string', 'int', 'bool', 'object', 'array'].includes(t.text)) {
      this.fail(
        t,
        'BCP302',
        `The name "${t.text}" is not a valid type. Please specify one of the following types: "array", "bool", "int", "object", "string".`,
      );
    }
    return t.text;
  }

  private resource(decorators: Decorator[]): ResourceDecl {
    const t = this.next();
    const name = this.expect('identifier');
    const typeToken = this.peek();
    if (typeToken.kind !== 'string' || (typeToken.holes?.length ?? 0) > 0) {
      this.fail(typeToken, 'BCP068', 'Expected a resource type string. Specify a valid resource type of format "<types>@<apiVersion>".');
    }
    this.next();
    const typeText = typeToken.segments![0]!;
    if (!/^[\w.]+(\/[\w.]+)*(@\d{4}-\d{2}-\d{2}(-[\w]+)?)?$/.test(typeText)) {
      this.fail(typeToken, 'BCP029', 'The resource type is not valid. Specify a valid resource type of format "<types>@<apiVersion>".');
    }
    let existing = false;
    if (this.peek().kind === 'identifier' && this.peek().text === 'existing') {
      this.next();
      existing = true;
    }
    this.expect('=', '"="');
    const value = this.resourceValue();
    return {
      kind: 'resource',
      name: name.text,
      typeText,
      typeAt: { line: typeToken.line, column: typeToken.column },
      existing,
      value,
      decorators,
      line: t.line,
      column: t.column,
    };
  }

  /** `{…}`, `if (c) {…}` or `[for … : …]`. */
  private resourceValue(): Expr {
    const t = this.peek();
    if (t.kind === 'identifier' && t.text === 'if') return this.ifBody();
    if (t.kind === '[' && this.peek(1).kind === 'identifier' && this.peek(1).text === 'for') return this.forExpression(true);
    if (t.kind !== '{') this.fail(t, 'BCP018', 'Expected the "{" character at this location.');
    return this.object();
  }

  private ifBody(): Expr {
    const t = this.next();
    this.expect('(', '"("');
    this.parenDepth++;
    const condition = this.expression();
    this.parenDepth--;
    this.expect(')', '")"');
    const body = this.object();
    return { kind: 'if', condition, body, line: t.line, column: t.column };
  }

  private forExpression(resourceBody: boolean): Expr {
    const open = this.next();
    this.next(); // for
    let item: string | undefined;
    let index: string | undefined;
    if (this.peek().kind === '(') {
      this.next();
      item = this.expect('identifier').text;
      this.expect(',', '","');
      index = this.expect('identifier').text;
      this.expect(')', '")"');
    } else item = this.expect('identifier').text;
    const inToken = this.expect('identifier');
    if (inToken.text !== 'in') this.fail(inToken, 'BCP138', 'For-expressions are not supported in this context.');
    const source = this.expression();
    this.expect(':', '":"');
    this.skipNewlines();
    let body: Expr;
    if (this.peek().kind === 'identifier' && this.peek().text === 'if') body = this.ifBody();
    else body = resourceBody ? this.object() : this.expression();
    this.skipNewlines();
    this.expect(']', '"]"');
    return { kind: 'for', ...(item ? { item } : {}), ...(index ? { index } : {}), source, body, line: open.line, column: open.column };
  }

  private callArgs(): Expr[] {
    this.expect('(', '"("');
    this.parenDepth++;
    const args: Expr[] = [];
    if (this.peek().kind !== ')') {
      args.push(this.expression());
      while (this.peek().kind === ',') {
        this.next();
        args.push(this.expression());
      }
    }
    this.parenDepth--;
    this.expect(')', '")"');
    return args;
  }

  expression(): Expr {
    this.deeper();
    try {
      const condition = this.binary(0);
      if (this.peek().kind !== '?') return condition;
      this.next();
      const then = this.expression();
      this.expect(':', '":"');
      const otherwise = this.expression();
      return { kind: 'ternary', condition, then, else: otherwise, line: condition.line, column: condition.column };
    } finally {
      this.nesting--;
    }
  }

  private deeper(): void {
    if (++this.nesting > LIMITS.bicepNesting) nestedTooDeeply(this.peek());
  }

  private binary(level: number): Expr {
    if (level >= BINARY_LEVELS.length) return this.unary();
    let left = this.binary(level + 1);
    while (BINARY_LEVELS[level]!.includes(this.peek().kind)) {
      const op = this.next().kind;
      const right = this.binary(level + 1);
      left = { kind: 'binary', op, left, right, line: left.line, column: left.column };
    }
    return left;
  }

  private unary(): Expr {
    const t = this.peek();
    if (t.kind === '!' || t.kind === '-') {
      this.next();
      this.deeper();
      const operand = this.unary();
      this.nesting--;
      if (t.kind === '-' && operand.kind === 'number') return { ...operand, value: -operand.value, line: t.line, column: t.column };
      return { kind: 'unary', op: t.kind, operand, line: t.line, column: t.column };
    }
    return this.postfix(this.primary());
  }

  private postfix(expr: Expr): Expr {
    for (;;) {
      const t = this.peek();
      if (t.kind === '.' || t.kind === '?.') {
        this.next();
        const name = this.expect('identifier');
        if (this.peek().kind === '(' && expr.kind === 'ident') {
          // namespace.function(…): az.resourceGroup(), sys.concat()
          expr = { kind: 'call', namespace: expr.name, name: name.text, args: this.callArgs(), line: expr.line, column: expr.column };
        } else expr = { kind: 'member', target: expr, name: name.text, safe: t.kind === '?.', line: expr.line, column: expr.column };
      } else if (t.kind === '[' && this.tokens[this.at]!.kind === '[') {
        this.next();
        this.parenDepth++;
        const index = this.expression();
        this.parenDepth--;
        this.expect(']', '"]"');
        expr = { kind: 'index', target: expr, index, safe: false, line: expr.line, column: expr.column };
      } else if (t.kind === '::') {
        this.fail(t, 'BCP156', "Nested resource accessors (::) are not supported by aksemu's Bicep compiler.");
      } else return expr;
    }
  }

  private primary(): Expr {
    const t = this.peek();
    switch (t.kind) {
      case 'number':
        this.next();
        return { kind: 'number', value: Number(t.text), line: t.line, column: t.column };
      case 'string': {
        this.next();
        const holes = (t.holes ?? []).map((h) => {
          const sub = new Parser(tokenize(h.source, h.line - 1, h.column - 1));
          sub.parenDepth = 1;
          sub.nesting = this.nesting;
          const e = sub.expression();
          if (sub.peek().kind !== 'eof') sub.fail(sub.peek(), 'BCP018', 'Expected the "}" character at this location.');
          return e;
        });
        return { kind: 'string', segments: t.segments!, holes, line: t.line, column: t.column };
      }
      case '(': {
        this.next();
        this.parenDepth++;
        const e = this.expression();
        this.parenDepth--;
        this.expect(')', '")"');
        return e;
      }
      case '{':
        return this.object();
      case '[':
        if (this.peek(1).kind === 'identifier' && this.peek(1).text === 'for') return this.forExpression(false);
        return this.array();
      case 'identifier': {
        this.next();
        if (t.text === 'true' || t.text === 'false') return { kind: 'bool', value: t.text === 'true', line: t.line, column: t.column };
        if (t.text === 'null') return { kind: 'null', line: t.line, column: t.column };
        if (this.peek().kind === '(') return { kind: 'call', name: t.text, args: this.callArgs(), line: t.line, column: t.column };
        return { kind: 'ident', name: t.text, line: t.line, column: t.column };
      }
      default:
        this.fail(t, 'BCP009', 'Expected a literal value, an array, an object, a parenthesized expression, or a function call at this location.');
    }
  }

  /** Items end at a newline or a comma; newlines inside are ordinary again (not in parentheses). */
  private withoutParens<T>(fn: () => T): T {
    const saved = this.parenDepth;
    this.parenDepth = 0;
    try {
      return fn();
    } finally {
      this.parenDepth = saved;
    }
  }

  private object(): Expr {
    const open = this.expect('{', '"{"');
    return this.withoutParens(() => {
      const properties: Property[] = [];
      const resources: ResourceDecl[] = [];
      this.skipNewlines();
      while (this.peek().kind !== '}') {
        const decorators = this.decorators();
        const k = this.peek();
        if (k.kind === 'identifier' && k.text === 'resource' && this.peek(1).kind === 'identifier') {
          resources.push(this.resource(decorators));
        } else {
          let key: string;
          if (k.kind === 'identifier') key = this.next().text;
          else if (k.kind === 'string' && (k.holes?.length ?? 0) === 0) key = this.next().segments![0]!;
          else this.fail(k, 'BCP022', 'Expected a property name at this location.');
          this.expect(':', '":"');
          properties.push({ key, value: this.expression(), line: k.line, column: k.column });
        }
        if (this.peek().kind === ',') this.next();
        else if (this.peek().kind !== '}') {
          if (this.peek().kind !== 'newline') this.fail(this.peek(), 'BCP019', 'Expected a new line character at this location.');
        }
        this.skipNewlines();
      }
      this.next();
      return { kind: 'object', properties, resources, line: open.line, column: open.column } as Expr;
    });
  }

  private array(): Expr {
    const open = this.expect('[', '"["');
    return this.withoutParens(() => {
      const items: Expr[] = [];
      this.skipNewlines();
      while (this.peek().kind !== ']') {
        items.push(this.expression());
        if (this.peek().kind === ',') this.next();
        else if (this.peek().kind !== ']' && this.peek().kind !== 'newline')
          this.fail(this.peek(), 'BCP019', 'Expected a new line character at this location.');
        this.skipNewlines();
      }
      this.next();
      return { kind: 'array', items, line: open.line, column: open.column } as Expr;
    });
  }
}
