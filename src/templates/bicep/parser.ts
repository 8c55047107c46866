// A recursive-descent parser for the Bicep language aksemu compiles: param, var, resource
// (existing, parent, nested, if, for), module, output, type, func, import, metadata, targetScope;
// decorators; type expressions (literals, unions, objects, arrays, tuples, nullable `?`); expressions
// with Bicep's operator precedence (?: < ?? < || < && < == != =~ !~ < < <= > >= < + - < * / % < unary
// < postfix), lambdas (`x => …`), spread (`...x`), safe access (`.?`, `[?i]`) and `!` (non-null).
import { LIMITS } from '../limits.js';
import type { Decorator, Expr, FuncDecl, ImportDecl, Property, ResourceDecl, Statement, TypeExpr, TypeProperty } from './ast.js';
import { BicepError, nestedTooDeeply } from './diagnostics.js';
import { tokenize, type Token, type TokenKind } from './lexer.js';

const DECLARATION_UNKNOWN = 'This declaration type is not recognized. Specify a metadata, parameter, variable, resource, or output declaration.';
const MODULE_PATH_EXPECTED =
  "Expected a module path string. This should be a relative path to another bicep file, e.g. 'myModule.bicep' or '../parent/myModule.bicep'";
const TYPE_EXPECTED =
  'Expected a type at this location. Please specify a valid type expression or one of the following types: "array", "bool", "int", "object", "string".';

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
      if ((name === 'sys' || name === 'az') && this.peek().kind === '.') {
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
    if (t.kind !== 'identifier') this.fail(t, 'BCP007', DECLARATION_UNKNOWN);
    const at = { line: t.line, column: t.column };
    switch (t.text) {
      case 'param': {
        this.next();
        const name = this.expect('identifier');
        if (this.peek().kind === 'identifier' && this.peek().text === 'resource')
          this.fail(this.peek(), 'BCP227', "Resource-typed parameters are not compiled by aksemu's Bicep compiler: pass the resource's name or id instead.");
        const type = this.typeExpression();
        let defaultValue: Expr | undefined;
        if (this.peek().kind === '=') {
          this.next();
          defaultValue = this.expression();
        }
        return { kind: 'param', name: name.text, type, ...(defaultValue ? { defaultValue } : {}), decorators, ...at };
      }
      case 'var': {
        this.next();
        const name = this.expect('identifier');
        const type = this.peek().kind === '=' ? undefined : this.typeExpression();
        this.expect('=', '"="');
        return { kind: 'var', name: name.text, ...(type ? { type } : {}), value: this.expression(), decorators, ...at };
      }
      case 'output': {
        this.next();
        const name = this.expect('identifier');
        if (this.peek().kind === 'identifier' && this.peek().text === 'resource')
          this.fail(this.peek(), 'BCP227', "Resource-typed outputs are not compiled by aksemu's Bicep compiler: output the resource's name or id instead.");
        const type = this.typeExpression();
        this.expect('=', '"="');
        return { kind: 'output', name: name.text, type, value: this.expression(), decorators, ...at };
      }
      case 'type': {
        this.next();
        const name = this.expect('identifier');
        this.expect('=', '"="');
        return { kind: 'type', name: name.text, type: this.typeExpression(), decorators, ...at };
      }
      case 'func':
        return this.func(decorators);
      case 'metadata': {
        this.next();
        const name = this.expect('identifier');
        this.expect('=', '"="');
        return { kind: 'metadata', name: name.text, value: this.expression(), ...at };
      }
      case 'import':
        return this.importStatement();
      case 'resource':
        return this.resource(decorators);
      case 'module': {
        this.next();
        const name = this.expect('identifier');
        const pathToken = this.peek();
        if (pathToken.kind !== 'string') this.fail(pathToken, 'BCP097', MODULE_PATH_EXPECTED);
        if ((pathToken.holes?.length ?? 0) > 0) this.fail(pathToken, 'BCP092', 'String interpolation is not supported in file paths.');
        this.next();
        this.expect('=', '"="');
        const value = this.resourceValue();
        return {
          kind: 'module',
          name: name.text,
          path: pathToken.segments![0]!,
          pathAt: { line: pathToken.line, column: pathToken.column },
          value,
          decorators,
          ...at,
        };
      }
      case 'targetScope': {
        this.next();
        this.expect('=', '"="');
        return { kind: 'targetScope', value: this.expression(), ...at };
      }
      case 'extension':
      case 'provider':
        this.fail(t, 'BCP204', `Extension "${this.peek(1).text}" is not recognized: aksemu's Bicep compiler deploys Azure resources (the az extension) only.`);
      // falls through (fail never returns)
      default:
        this.fail(t, 'BCP007', DECLARATION_UNKNOWN);
    }
  }

  /** `func name(a string, b int) string => expression`. */
  private func(decorators: Decorator[]): FuncDecl {
    const t = this.next();
    const name = this.expect('identifier');
    this.expect('(', '"("');
    this.parenDepth++;
    const params: FuncDecl['params'] = [];
    while (this.peek().kind !== ')') {
      const p = this.expect('identifier');
      params.push({ name: p.text, type: this.typeExpression() });
      if (this.peek().kind === ',') this.next();
      else if (this.peek().kind !== ')') this.fail(this.peek(), 'BCP018', 'Expected the ")" character at this location.');
    }
    this.parenDepth--;
    this.expect(')', '")"');
    const returns = this.typeExpression();
    this.expect('=>', '"=>"');
    this.skipNewlines();
    return { kind: 'func', name: name.text, params, returns, body: this.expression(), decorators, line: t.line, column: t.column };
  }

  /** `import {a, b as c} from 'f.bicep'` or `import * as ns from 'f.bicep'`. */
  private importStatement(): ImportDecl {
    const t = this.next();
    let items: ImportDecl['items'];
    let wildcard: string | undefined;
    const next = this.peek();
    if (next.kind === '{') {
      this.next();
      const list: NonNullable<ImportDecl['items']> = [];
      this.withoutParens(() => {
        this.skipNewlines();
        while (this.peek().kind !== '}') {
          const n = this.peek();
          let name: string;
          if (n.kind === 'identifier') name = this.next().text;
          else if (n.kind === 'string' && (n.holes?.length ?? 0) === 0) name = this.next().segments![0]!;
          else this.fail(n, 'BCP013', 'Expected an identifier at this location.');
          let alias = name;
          if (this.peek().kind === 'identifier' && this.peek().text === 'as') {
            this.next();
            alias = this.expect('identifier').text;
          } else if (n.kind === 'string') this.fail(this.peek(), 'BCP013', 'Expected an identifier at this location.');
          list.push({ name, alias, line: n.line, column: n.column });
          if (this.peek().kind === ',') this.next();
          this.skipNewlines();
        }
        this.next();
      });
      items = list;
    } else if (next.kind === '*') {
      this.next();
      const as = this.expect('identifier');
      if (as.text !== 'as') this.fail(as, 'BCP018', 'Expected the "as" keyword at this location.');
      wildcard = this.expect('identifier').text;
    } else {
      this.fail(
        next,
        'BCP204',
        "aksemu's Bicep compiler compiles compile-time imports only (`import {…} from '…'`, `import * as ns from '…'`), not extension imports.",
      );
    }
    const from = this.expect('identifier');
    if (from.text !== 'from') this.fail(from, 'BCP018', 'Expected the "from" keyword at this location.');
    const pathToken = this.peek();
    if (pathToken.kind !== 'string' || (pathToken.holes?.length ?? 0) > 0) this.fail(pathToken, 'BCP097', MODULE_PATH_EXPECTED);
    this.next();
    return {
      kind: 'import',
      path: pathToken.segments![0]!,
      pathAt: { line: pathToken.line, column: pathToken.column },
      ...(items ? { items } : {}),
      ...(wildcard ? { wildcard } : {}),
      line: t.line,
      column: t.column,
    };
  }

  // ---- types ---------------------------------------------------------------------------------

  /** A union may continue on the next line when that line starts with `|`. */
  private typeExpression(): TypeExpr {
    this.deeper();
    try {
      const first = this.peek();
      if (first.kind === '|') this.next();
      const members = [this.typePostfix(this.typePrimary())];
      while (this.peekPastNewlines().kind === '|') {
        this.skipNewlines();
        this.next();
        this.skipNewlines();
        members.push(this.typePostfix(this.typePrimary()));
      }
      if (members.length === 1 && first.kind !== '|') return members[0]!;
      return { kind: 'union', members, line: first.line, column: first.column };
    } finally {
      this.nesting--;
    }
  }

  private peekPastNewlines(): Token {
    let i = this.at;
    while (this.tokens[i]!.kind === 'newline') i++;
    return this.tokens[i]!;
  }

  private typePostfix(type: TypeExpr): TypeExpr {
    for (let depth = 0; ; depth++) {
      if (depth + this.nesting > LIMITS.bicepNesting) nestedTooDeeply(type);
      const t = this.tokens[this.at]!;
      if (t.kind === '[' && this.tokens[this.at + 1]!.kind === ']') {
        this.next();
        this.next();
        type = { kind: 'array', items: type, line: type.line, column: type.column };
      } else if (t.kind === '?') {
        this.next();
        type = { kind: 'nullable', base: type, line: type.line, column: type.column };
      } else if (t.kind === '.' || t.kind === '[') {
        this.fail(t, 'BCP393', "Type paths (`myType.property`, `myType[*]`) are not compiled by aksemu's Bicep compiler: declare the inner type on its own.");
      } else return type;
    }
  }

  private typePrimary(): TypeExpr {
    const t = this.peek();
    const at = { line: t.line, column: t.column };
    switch (t.kind) {
      case 'identifier': {
        this.next();
        if (t.text === 'true' || t.text === 'false') return { kind: 'literal', value: t.text === 'true', ...at };
        if (t.text === 'null') return { kind: 'literal', value: null, ...at };
        if (t.text === 'resource' || t.text === 'resourceInput' || t.text === 'resourceOutput')
          this.fail(t, 'BCP227', "Resource-derived types are not compiled by aksemu's Bicep compiler.");
        if (this.tokens[this.at]!.kind === '.') {
          this.next();
          const name = this.expect('identifier').text;
          return { kind: 'ref', namespace: t.text, name, ...at };
        }
        return { kind: 'ref', name: t.text, ...at };
      }
      case 'string':
        if ((t.holes?.length ?? 0) > 0) this.fail(t, 'BCP279', TYPE_EXPECTED);
        this.next();
        return { kind: 'literal', value: t.segments![0]!, ...at };
      case 'number':
        this.next();
        return { kind: 'literal', value: Number(t.text), ...at };
      case '-': {
        this.next();
        const n = this.expect('number');
        return { kind: 'literal', value: -Number(n.text), ...at };
      }
      case '!': {
        this.next();
        const b = this.expect('identifier');
        if (b.text !== 'true' && b.text !== 'false') this.fail(b, 'BCP279', TYPE_EXPECTED);
        return { kind: 'literal', value: b.text !== 'true', ...at };
      }
      case '(':
        return this.parenthesized(() => this.typeExpression());
      case '{':
        return this.objectType();
      case '[':
        return this.tupleType();
      default:
        this.fail(t, 'BCP279', TYPE_EXPECTED);
    }
  }

  private objectType(): TypeExpr {
    const open = this.next();
    return this.withoutParens(() => {
      const properties: TypeProperty[] = [];
      let additional: { type: TypeExpr; decorators: Decorator[] } | undefined;
      this.skipNewlines();
      while (this.peek().kind !== '}') {
        const decorators = this.decorators();
        const k = this.peek();
        if (k.kind === '*') {
          this.next();
          this.expect(':', '":"');
          additional = { type: this.typeExpression(), decorators };
        } else {
          const key = this.propertyKey();
          properties.push({ key, type: this.typeExpression(), decorators, line: k.line, column: k.column });
        }
        if (this.peek().kind === ',') this.next();
        else if (this.peek().kind !== '}' && this.peek().kind !== 'newline')
          this.fail(this.peek(), 'BCP019', 'Expected a new line character at this location.');
        this.skipNewlines();
      }
      this.next();
      return { kind: 'object', properties, ...(additional ? { additional } : {}), line: open.line, column: open.column } as TypeExpr;
    });
  }

  private tupleType(): TypeExpr {
    const open = this.next();
    return this.withoutParens(() => {
      const items: Array<{ type: TypeExpr; decorators: Decorator[] }> = [];
      this.skipNewlines();
      while (this.peek().kind !== ']') {
        const decorators = this.decorators();
        items.push({ type: this.typeExpression(), decorators });
        if (this.peek().kind === ',') this.next();
        this.skipNewlines();
      }
      this.next();
      return { kind: 'tuple', items, line: open.line, column: open.column } as TypeExpr;
    });
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
        // Bicep writes safe access as `.?name`.
        let safe = t.kind === '?.';
        if (this.peek().kind === '?') {
          this.next();
          safe = true;
        }
        const name = this.expect('identifier');
        if (this.peek().kind === '(' && expr.kind === 'ident') {
          // namespace.function(…): az.resourceGroup(), sys.concat()
          expr = { kind: 'call', namespace: expr.name, name: name.text, args: this.callArgs(), line: expr.line, column: expr.column };
        } else expr = { kind: 'member', target: expr, name: name.text, safe, line: expr.line, column: expr.column };
      } else if (t.kind === '[' && this.tokens[this.at]!.kind === '[') {
        this.next();
        this.parenDepth++;
        const safe = this.peek().kind === '?';
        if (safe) this.next();
        const index = this.expression();
        this.parenDepth--;
        this.expect(']', '"]"');
        expr = { kind: 'index', target: expr, index, safe, line: expr.line, column: expr.column };
      } else if (t.kind === '!' && this.tokens[this.at]!.kind === '!') {
        // The non-null assertion changes the type only.
        this.next();
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
        const lambda = this.lambdaParams();
        if (lambda) return this.lambda(lambda, t);
        return this.parenthesized(() => this.expression());
      }
      case '{':
        return this.object();
      case '[':
        if (this.peek(1).kind === 'identifier' && this.peek(1).text === 'for') return this.forExpression(false);
        return this.array();
      case 'identifier': {
        this.next();
        if (this.peek().kind === '=>') return this.lambda([t.text], t);
        if (t.text === 'true' || t.text === 'false') return { kind: 'bool', value: t.text === 'true', line: t.line, column: t.column };
        if (t.text === 'null') return { kind: 'null', line: t.line, column: t.column };
        if (this.peek().kind === '(') return { kind: 'call', name: t.text, args: this.callArgs(), line: t.line, column: t.column };
        return { kind: 'ident', name: t.text, line: t.line, column: t.column };
      }
      default:
        this.fail(t, 'BCP009', 'Expected a literal value, an array, an object, a parenthesized expression, or a function call at this location.');
    }
  }

  /** An object member's name (an identifier or a plain string) and its colon. */
  private propertyKey(): string {
    const k = this.peek();
    let key: string;
    if (k.kind === 'identifier') key = this.next().text;
    else if (k.kind === 'string' && (k.holes?.length ?? 0) === 0) key = this.next().segments![0]!;
    else this.fail(k, 'BCP022', 'Expected a property name at this location.');
    this.expect(':', '":"');
    return key;
  }

  /** `( … )` around what `inner` parses; newlines inside do not end anything. */
  private parenthesized<T>(inner: () => T): T {
    this.next();
    this.parenDepth++;
    const result = inner();
    this.parenDepth--;
    this.expect(')', '")"');
    return result;
  }

  /** `(a, b) =>` or `() =>` ahead: the parameter names (the tokens are consumed), else undefined. */
  private lambdaParams(): string[] | undefined {
    let i = 1;
    const names: string[] = [];
    for (;;) {
      const t = this.peek(i);
      if (t.kind === ')') break;
      if (t.kind !== 'identifier') return undefined;
      names.push(t.text);
      const sep = this.peek(i + 1);
      if (sep.kind === ',') i += 2;
      else if (sep.kind === ')') {
        i += 1;
        break;
      } else return undefined;
    }
    if (this.peek(i + 1).kind !== '=>') return undefined;
    for (let k = 0; k <= i; k++) this.next();
    return names;
  }

  /** After the parameters: `=> body`. */
  private lambda(params: string[], at: Token): Expr {
    this.expect('=>', '"=>"');
    this.deeper();
    const body = this.expression();
    this.nesting--;
    return { kind: 'lambda', params, body, line: at.line, column: at.column };
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
        } else if (k.kind === '...') {
          this.next();
          properties.push({ key: '', spread: true, value: this.expression(), line: k.line, column: k.column });
        } else {
          const key = this.propertyKey();
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
        const k = this.peek();
        if (k.kind === '...') {
          this.next();
          items.push({ kind: 'spread', value: this.expression(), line: k.line, column: k.column });
        } else items.push(this.expression());
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
