// ARM template expressions: a JSON string "[...]" is an expression, "[[..." is the literal text
// "[...". Inside: 'strings' ('' escapes a quote), integers, function calls name(args), property
// access .name and indexing [expr]. Token names and messages are ARM's ("expected token
// 'RightParenthesis' and actual 'EndOfData'").
import { templateSentences } from '../../arm/errors.js';
import { LIMITS, limitExceeded } from '../limits.js';

export type Expr =
  | { kind: 'literal'; value: string | number | boolean | null }
  | { kind: 'call'; name: string; args: Expr[] }
  | { kind: 'property'; target: Expr; name: string }
  | { kind: 'index'; target: Expr; index: Expr };

/** A problem in the template language; the engine wraps it in ARM's InvalidTemplate sentence. */
export class TemplateLanguageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateLanguageError';
  }
}

type TokenType =
  | 'LeftParenthesis'
  | 'RightParenthesis'
  | 'LeftSquareBracket'
  | 'RightSquareBracket'
  | 'Comma'
  | 'Dot'
  | 'Identifier'
  | 'String'
  | 'Integer'
  | 'EndOfData';

interface Token {
  type: TokenType;
  text: string;
  value?: string | number;
}

const PUNCTUATION: Record<string, TokenType> = {
  '(': 'LeftParenthesis',
  ')': 'RightParenthesis',
  '[': 'LeftSquareBracket',
  ']': 'RightSquareBracket',
  ',': 'Comma',
  '.': 'Dot',
};

/** True when a JSON string value is an expression (not a "[[" escape). */
export function isExpression(value: string): boolean {
  return value.length >= 2 && value.startsWith('[') && value.endsWith(']') && !value.startsWith('[[');
}

/** The literal a non-expression string stands for: "[[x]" is "[x]". */
export function unescapeLiteral(value: string): string {
  return value.startsWith('[[') ? value.slice(1) : value;
}

function tokenize(source: string, whole: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const fail = (detail: string): never => {
    throw new TemplateLanguageError(templateSentences.unparsable(whole, detail));
  };
  while (i < source.length) {
    const ch = source[i]!;
    if (/\s/.test(ch)) {
      i++;
    } else if (PUNCTUATION[ch]) {
      tokens.push({ type: PUNCTUATION[ch]!, text: ch });
      i++;
    } else if (ch === "'") {
      let value = '';
      let j = i + 1;
      for (;;) {
        if (j >= source.length) fail(`the string literal starting at position '${i}' is not terminated.`);
        if (source[j] === "'") {
          if (source[j + 1] === "'") {
            value += "'";
            j += 2;
            continue;
          }
          break;
        }
        value += source[j++];
      }
      tokens.push({ type: 'String', text: source.slice(i, j + 1), value });
      i = j + 1;
    } else if (/[0-9-]/.test(ch)) {
      const m = /^-?\d+(\.\d+)?/.exec(source.slice(i));
      if (!m) fail(`the character '${ch}' at position '${i}' is not expected.`);
      // ARM's integers are 64-bit; beyond 2^53 a number here would no longer be the one written.
      if (!m![1] && !Number.isSafeInteger(Number(m![0]))) fail(`the integer literal '${m![0]}' at position '${i}' is out of range.`);
      tokens.push({ type: 'Integer', text: m![0], value: Number(m![0]) });
      i += m![0].length;
    } else if (/[A-Za-z_$]/.test(ch)) {
      const m = /^[A-Za-z_$][\w$]*/.exec(source.slice(i))!;
      tokens.push({ type: 'Identifier', text: m[0] });
      i += m[0].length;
    } else {
      fail(`the character '${ch}' at position '${i}' is not expected.`);
    }
  }
  tokens.push({ type: 'EndOfData', text: '' });
  return tokens;
}

/** Parses the text of a "[...]" string (brackets included). */
export function parseExpression(text: string): Expr {
  if (text.length > LIMITS.expressionLength) {
    throw new TemplateLanguageError(limitExceeded('language expression length', LIMITS.expressionLength, text.length));
  }
  const inner = text.slice(1, -1);
  const tokens = tokenize(inner, inner);
  let at = 0;
  // Calls and indexes nest by recursion: bounded, so no expression reaches the end of the stack.
  let nesting = 0;
  const deeper = (): void => {
    if (++nesting > LIMITS.expressionNesting) throw new TemplateLanguageError(limitExceeded('language expression nesting depth', LIMITS.expressionNesting));
  };
  const peek = () => tokens[at]!;
  const expect = (type: TokenType): Token => {
    const token = tokens[at]!;
    if (token.type !== type) throw new TemplateLanguageError(templateSentences.unparsable(inner, templateSentences.expectedToken(type, token.type)));
    at++;
    return token;
  };

  const primary = (): Expr => {
    const token = peek();
    if (token.type === 'String' || token.type === 'Integer') {
      at++;
      return { kind: 'literal', value: token.value! };
    }
    if (token.type === 'Identifier') {
      at++;
      if (peek().type !== 'LeftParenthesis') {
        // Bicep and hand-written templates use the bare words; ARM knows them as functions too.
        if (token.text === 'true' || token.text === 'false') return { kind: 'literal', value: token.text === 'true' };
        if (token.text === 'null') return { kind: 'literal', value: null };
      }
      // A user-defined function: namespace.name(…), one token of each.
      let name = token.text;
      if (peek().type === 'Dot' && tokens[at + 1]?.type === 'Identifier' && tokens[at + 2]?.type === 'LeftParenthesis') {
        name = `${name}.${tokens[at + 1]!.text}`;
        at += 2;
      }
      expect('LeftParenthesis');
      deeper();
      const args: Expr[] = [];
      if (peek().type !== 'RightParenthesis') {
        args.push(expression());
        while (peek().type === 'Comma') {
          at++;
          args.push(expression());
        }
      }
      expect('RightParenthesis');
      nesting--;
      return { kind: 'call', name, args };
    }
    throw new TemplateLanguageError(templateSentences.unparsable(inner, templateSentences.expectedToken('Identifier', token.type)));
  };

  const expression = (): Expr => {
    // Each .name or [index] wraps what precedes it: the tree deepens along the chain too.
    const entry = nesting;
    let expr = primary();
    for (;;) {
      const token = peek();
      if (token.type === 'Dot') {
        at++;
        deeper();
        expr = { kind: 'property', target: expr, name: expect('Identifier').text };
      } else if (token.type === 'LeftSquareBracket') {
        at++;
        deeper();
        const index = expression();
        expect('RightSquareBracket');
        expr = { kind: 'index', target: expr, index };
      } else {
        nesting = entry;
        return expr;
      }
    }
  };

  const result = expression();
  expect('EndOfData');
  return result;
}
