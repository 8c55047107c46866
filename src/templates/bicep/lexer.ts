// Bicep tokens. Newlines are tokens (Bicep statements and object/array items end at line ends);
// strings are '…' with ${…} interpolation (the holes keep their source text and position and are
// parsed as expressions by the parser) or '''…''' verbatim multi-line strings.
import { BicepError } from './diagnostics.js';

export type TokenKind =
  | 'identifier'
  | 'number'
  | 'string'
  | 'newline'
  | 'eof'
  | '{'
  | '}'
  | '['
  | ']'
  | '('
  | ')'
  | ','
  | ':'
  | '.'
  | '?'
  | '??'
  | '?.'
  | '='
  | '=='
  | '!='
  | '=~'
  | '!~'
  | '<'
  | '<='
  | '>'
  | '>='
  | '+'
  | '-'
  | '*'
  | '/'
  | '%'
  | '!'
  | '&&'
  | '||'
  | '@'
  | '::'
  | '=>'
  | '...'
  | '|';

interface Hole {
  source: string;
  line: number;
  column: number;
}

export interface Token {
  kind: TokenKind;
  text: string;
  line: number;
  column: number;
  /** For strings: literal segments and holes, alternating (segments.length === holes.length + 1). */
  segments?: string[];
  holes?: Hole[];
}

const OPERATORS = [
  '...',
  '=>',
  '??',
  '?.',
  '==',
  '!=',
  '=~',
  '!~',
  '<=',
  '>=',
  '&&',
  '||',
  '::',
  '{',
  '}',
  '[',
  ']',
  '(',
  ')',
  ',',
  ':',
  '.',
  '?',
  '=',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '!',
  '@',
  '|',
];

/** `#disable-next-line BCPxxx`, `#disable-diagnostics …`, `#restore-diagnostics …`: linter directives, which change no output. */
const DIRECTIVE = /^#(disable-next-line|disable-diagnostics|restore-diagnostics)(?![\w-])/;

export function tokenize(text: string, lineOffset = 0, columnOffset = 0): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const pos = (at: number) => ({ line: line + lineOffset, column: at - lineStart + 1 + (line === 1 ? columnOffset : 0) });
  const newline = (at: number) => {
    line++;
    lineStart = at + 1;
  };
  const badEscape = (at: number) =>
    new BicepError(
      'BCP006',
      `The specified escape sequence is not recognized. Only the following escape sequences are allowed: "\\$", "\\'", "\\\\", "\\n", "\\r", "\\t", "\\u{...}".`,
      pos(at).line,
      pos(at).column,
    );
  while (i < text.length) {
    const ch = text[i]!;
    const start = pos(i);
    if (ch === ' ' || ch === '\t' || ch === '\r' || ch === '\uFEFF') {
      i++;
    } else if (ch === '\n') {
      tokens.push({ kind: 'newline', text: '\n', ...start });
      newline(i);
      i++;
    } else if (ch === '#' && DIRECTIVE.test(text.slice(i, i + 24))) {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (ch === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0)
        throw new BicepError(
          'BCP002',
          'The multi-line comment at this location is not terminated. Terminate it with the */ character sequence.',
          start.line,
          start.column,
        );
      for (let k = i; k < end; k++) if (text[k] === '\n') newline(k);
      i = end + 2;
    } else if (text.startsWith("'''", i)) {
      const end = text.indexOf("'''", i + 3);
      if (end < 0)
        throw new BicepError('BCP140', "The multi-line string at this location is not terminated. Terminate it with \"'''\".", start.line, start.column);
      // A verbatim string drops one newline right after the opening quotes.
      let body = text.slice(i + 3, end);
      if (body.startsWith('\r\n')) body = body.slice(2);
      else if (body.startsWith('\n')) body = body.slice(1);
      for (let k = i; k < end; k++) if (text[k] === '\n') newline(k);
      tokens.push({ kind: 'string', text: text.slice(i, end + 3), ...start, segments: [body], holes: [] });
      i = end + 3;
    } else if (ch === "'") {
      const segments: string[] = [];
      const holes: Hole[] = [];
      let current = '';
      let j = i + 1;
      for (;;) {
        const c = text[j];
        if (c === undefined || c === '\n') {
          throw new BicepError('BCP004', 'The string at this location is not terminated due to an unexpected new line character.', start.line, start.column);
        }
        if (c === "'") break;
        if (c === '\\') {
          const e = text[j + 1];
          const map: Record<string, string> = { n: '\n', r: '\r', t: '\t', '\\': '\\', "'": "'", $: '$' };
          if (e === 'u' && text[j + 2] === '{') {
            const close = text.indexOf('}', j + 3);
            const hex = close < 0 ? '' : text.slice(j + 3, close);
            const code = /^[0-9a-fA-F]{1,6}$/.test(hex) ? parseInt(hex, 16) : Number.NaN;
            if (!(code <= 0x10ffff)) {
              throw badEscape(j);
            }
            current += String.fromCodePoint(code);
            j = close + 1;
            continue;
          }
          if (e === undefined || map[e] === undefined) {
            throw badEscape(j);
          }
          current += map[e];
          j += 2;
          continue;
        }
        if (c === '$' && text[j + 1] === '{') {
          // The hole runs to the matching brace, skipping braces inside nested strings.
          let depth = 1;
          let k = j + 2;
          let inString = false;
          while (k < text.length && depth > 0) {
            const d = text[k]!;
            if (d === '\n') break;
            if (inString) {
              if (d === '\\') k++;
              else if (d === "'") inString = false;
            } else if (d === "'") inString = true;
            else if (d === '{') depth++;
            else if (d === '}') depth--;
            k++;
          }
          if (depth > 0)
            throw new BicepError('BCP004', 'The string at this location is not terminated due to an unexpected new line character.', start.line, start.column);
          const p = pos(j + 2);
          holes.push({ source: text.slice(j + 2, k - 1), line: p.line, column: p.column });
          segments.push(current);
          current = '';
          j = k;
          continue;
        }
        current += c;
        j++;
      }
      segments.push(current);
      tokens.push({ kind: 'string', text: text.slice(i, j + 1), ...start, segments, holes });
      i = j + 1;
    } else if (/[0-9]/.test(ch)) {
      const m = /^\d+/.exec(text.slice(i))!;
      tokens.push({ kind: 'number', text: m[0], ...start });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(ch)) {
      const m = /^[A-Za-z_][\w]*/.exec(text.slice(i))!;
      tokens.push({ kind: 'identifier', text: m[0], ...start });
      i += m[0].length;
    } else {
      const op = OPERATORS.find((o) => text.startsWith(o, i));
      if (!op) throw new BicepError('BCP001', `The following token is not recognized: "${ch}".`, start.line, start.column);
      tokens.push({ kind: op as TokenKind, text: op, ...start });
      i += op.length;
    }
  }
  tokens.push({ kind: 'eof', text: '', ...pos(i) });
  return tokens;
}
