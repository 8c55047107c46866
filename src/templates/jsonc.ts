// A lenient JSON reader, as ARM reads templates (Newtonsoft): // and /* */ comments, trailing commas,
// unquoted and single-quoted property names, single-quoted strings, raw newlines inside strings.
// az 2.45 also splices the template file under an unquoted `template:` key (docs/clients.md §3.10). Every
// object and array remembers where it starts (1-based line and column), for ARM's error positions.
// Nesting is bounded as Newtonsoft's MaxDepth bounds it, so no text can exhaust the stack here or in
// anything that walks what it returns; keys are own data (a "__proto__" key is a key).
import { LIMITS } from './limits.js';
import { setOwn } from '../http/own.js';

interface Position {
  line: number;
  column: number;
}

export class JsoncError extends Error {
  constructor(
    readonly reason: string,
    readonly path: string,
    readonly line: number,
    readonly column: number,
  ) {
    // Newtonsoft's wording: "… Path 'a.b', line 3, position 7."
    super(`${reason} Path '${path}', line ${line}, position ${column}.`);
    this.name = 'JsoncError';
  }
}

const positions = new WeakMap<object, Position>();

const WORD = /[A-Za-z_$][\w$]*/y;
const KEY = /[A-Za-z_$][\w$-]*/y;
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const PLAIN_DOUBLE = /[^"\\\n]+/y;
const PLAIN_SINGLE = /[^'\\\n]+/y;

/** Where an object or array returned by parseJsonc started; undefined for values built elsewhere. */
export function positionOf(value: unknown): Position | undefined {
  return typeof value === 'object' && value !== null ? positions.get(value) : undefined;
}

export function parseJsonc(text: string): unknown {
  return new Reader(text).document();
}

class Reader {
  private i = 0;
  private line = 1;
  private lineStart = 0;
  private depth = 0;

  constructor(private readonly text: string) {}

  document(): unknown {
    this.skip();
    const value = this.value('');
    this.skip();
    if (this.i < this.text.length) this.fail('Additional text encountered after finished reading JSON content:', '');
    return value;
  }

  /** The text a sticky pattern matches at the reader's position (no copy of the rest of the text). */
  private match(pattern: RegExp): string | undefined {
    pattern.lastIndex = this.i;
    return pattern.exec(this.text)?.[0];
  }

  private pos(): Position {
    return { line: this.line, column: this.i - this.lineStart + 1 };
  }

  private fail(reason: string, path: string): never {
    const p = this.pos();
    throw new JsoncError(reason, path, p.line, p.column);
  }

  private advance(): string {
    const ch = this.text[this.i++]!;
    if (ch === '\n') {
      this.line++;
      this.lineStart = this.i;
    }
    return ch;
  }

  /** Whitespace and comments. */
  private skip(): void {
    for (;;) {
      const ch = this.text[this.i];
      if (ch === undefined) return;
      if (ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n' || ch === '\uFEFF') {
        this.advance();
      } else if (ch === '/' && this.text[this.i + 1] === '/') {
        while (this.i < this.text.length && this.text[this.i] !== '\n') this.advance();
      } else if (ch === '/' && this.text[this.i + 1] === '*') {
        const end = this.text.indexOf('*/', this.i + 2);
        if (end < 0) this.fail('Unexpected end while parsing comment.', '');
        while (this.i < end + 2) this.advance();
      } else return;
    }
  }

  private value(path: string): unknown {
    const ch = this.text[this.i];
    if (ch === undefined) this.fail('Unexpected end when reading JSON.', path);
    if (ch === '{' || ch === '[') {
      if (this.depth >= LIMITS.jsonDepth) this.fail(`The reader's MaxDepth of ${LIMITS.jsonDepth} has been exceeded.`, path);
      this.depth++;
      const container = ch === '{' ? this.object(path) : this.array(path);
      this.depth--;
      return container;
    }
    if (ch === '"' || ch === "'") return this.string(path);
    if (ch === '-' || (ch >= '0' && ch <= '9')) return this.number(path);
    const word = this.match(WORD);
    if (word === 'true' || word === 'false' || word === 'null') {
      for (let k = 0; k < word.length; k++) this.advance();
      return word === 'true' ? true : word === 'false' ? false : null;
    }
    this.fail(`Unexpected character encountered while parsing value: ${ch}.`, path);
  }

  private object(path: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    positions.set(out, this.pos());
    this.advance();
    for (;;) {
      this.skip();
      const ch = this.text[this.i];
      if (ch === '}') {
        this.advance();
        return out;
      }
      if (ch === undefined) this.fail('Unexpected end when reading JSON.', path);
      const key = this.key(path);
      this.skip();
      if (this.text[this.i] !== ':') this.fail(`Invalid character after parsing property name. Expected ':' but got: ${this.text[this.i] ?? 'EOF'}.`, path);
      this.advance();
      this.skip();
      const childPath = path === '' ? key : `${path}.${key}`;
      setOwn(out, key, this.value(childPath));
      this.skip();
      const next = this.text[this.i];
      if (next === ',') this.advance();
      else if (next !== '}') this.fail(`After parsing a value an unexpected character was encountered: ${next ?? 'EOF'}.`, childPath);
    }
  }

  private key(path: string): string {
    const ch = this.text[this.i];
    if (ch === '"' || ch === "'") return this.string(path);
    const word = this.match(KEY);
    if (!word) this.fail(`Invalid property identifier character: ${ch}.`, path);
    for (let k = 0; k < word.length; k++) this.advance();
    return word;
  }

  private array(path: string): unknown[] {
    const out: unknown[] = [];
    positions.set(out, this.pos());
    this.advance();
    for (;;) {
      this.skip();
      const ch = this.text[this.i];
      if (ch === ']') {
        this.advance();
        return out;
      }
      if (ch === undefined) this.fail('Unexpected end when reading JSON.', path);
      out.push(this.value(`${path}[${out.length}]`));
      this.skip();
      const next = this.text[this.i];
      if (next === ',') this.advance();
      else if (next !== ']') this.fail(`After parsing a value an unexpected character was encountered: ${next ?? 'EOF'}.`, path);
    }
  }

  private string(path: string): string {
    const quote = this.advance();
    const plain = quote === '"' ? PLAIN_DOUBLE : PLAIN_SINGLE;
    let out = '';
    for (;;) {
      // Runs of ordinary characters at once (no newline among them: the position moves by their length).
      const run = this.match(plain);
      if (run) {
        out += run;
        this.i += run.length;
      }
      const ch = this.text[this.i];
      if (ch === undefined) this.fail('Unterminated string. Expected delimiter: ' + quote + '.', path);
      this.advance();
      if (ch === quote) return out;
      if (ch !== '\\') {
        out += ch;
        continue;
      }
      const esc = this.advance();
      switch (esc) {
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'u': {
          const hex = this.text.slice(this.i, this.i + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('Invalid Unicode escape sequence.', path);
          for (let k = 0; k < 4; k++) this.advance();
          out += String.fromCharCode(parseInt(hex, 16));
          break;
        }
        default:
          out += esc;
      }
    }
  }

  private number(path: string): number {
    const match = this.match(NUMBER);
    if (!match) this.fail(`Input string '${this.text.slice(this.i, this.i + 10)}' is not a valid number.`, path);
    // A number holds no newline: the position moves by its length.
    this.i += match.length;
    return Number(match);
  }
}
