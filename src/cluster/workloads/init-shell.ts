// Just enough of a POSIX shell to read what CNI install scripts pass to `sh -c`: words with '…', "…" and \
// quoting, $VAR / ${VAR} expansion from the container's environment, `#` comments, and command lists joined by
// `;`, newlines, `&&` and `||`. Nothing is executed here: the caller runs each simple command.

export type Connector = ';' | '&&' | '||';

export interface ShellCommand {
  /** How this command joins the previous one (`;` for the first). */
  connector: Connector;
  argv: string[];
}

export class ShellSyntaxError extends Error {}

/** Splits a script into simple commands. Throws ShellSyntaxError for an unterminated quote. */
export function parseScript(script: string, env: Record<string, string>): ShellCommand[] {
  const commands: ShellCommand[] = [];
  let argv: string[] = [];
  let word: string | undefined;
  let connector: Connector = ';';
  const endWord = () => {
    if (word !== undefined) argv.push(word);
    word = undefined;
  };
  const endCommand = (next: Connector) => {
    endWord();
    if (argv.length > 0) commands.push({ connector, argv });
    argv = [];
    connector = next;
  };
  const expand = (i: number): [string, number] => {
    // At a `$`: ${NAME}, $NAME, or a lone `$`.
    if (script[i + 1] === '{') {
      const close = script.indexOf('}', i + 2);
      if (close < 0) throw new ShellSyntaxError('bad substitution');
      return [env[script.slice(i + 2, close)] ?? '', close + 1];
    }
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(script.slice(i + 1));
    if (!m) return ['$', i + 1];
    return [env[m[0]] ?? '', i + 1 + m[0].length];
  };
  let i = 0;
  while (i < script.length) {
    const c = script[i]!;
    if (c === "'") {
      const close = script.indexOf("'", i + 1);
      if (close < 0) throw new ShellSyntaxError('unterminated quoted string');
      word = (word ?? '') + script.slice(i + 1, close);
      i = close + 1;
    } else if (c === '"') {
      let text = '';
      i++;
      for (;;) {
        if (i >= script.length) throw new ShellSyntaxError('unterminated quoted string');
        const d = script[i]!;
        if (d === '"') break;
        if (d === '\\' && '"\\$`\n'.includes(script[i + 1] ?? '')) {
          text += script[i + 1];
          i += 2;
        } else if (d === '$') {
          const [value, next] = expand(i);
          text += value;
          i = next;
        } else {
          text += d;
          i++;
        }
      }
      word = (word ?? '') + text;
      i++;
    } else if (c === '\\') {
      if (script[i + 1] !== '\n') word = (word ?? '') + (script[i + 1] ?? '');
      i += 2;
    } else if (c === '$') {
      const [value, next] = expand(i);
      word = (word ?? '') + value;
      i = next;
    } else if (c === '#' && word === undefined) {
      while (i < script.length && script[i] !== '\n') i++;
    } else if (c === '&' && script[i + 1] === '&') {
      endCommand('&&');
      i += 2;
    } else if (c === '|' && script[i + 1] === '|') {
      endCommand('||');
      i += 2;
    } else if (c === ';' || c === '\n') {
      endCommand(';');
      i++;
    } else if (c === ' ' || c === '\t') {
      endWord();
      i++;
    } else {
      word = (word ?? '') + c;
      i++;
    }
  }
  endCommand(';');
  return commands;
}

/**
 * Runs a command list as sh does: `a && b` runs b only when a succeeded, `a || b` only when it failed; with
 * errexit (`set -e`, `sh -e`) a failure outside such a test stops the list. Returns the last exit status.
 */
export async function runList(commands: ShellCommand[], run: (argv: string[]) => Promise<number>, errexit = false): Promise<number> {
  let status = 0;
  let exit = errexit;
  for (const [i, cmd] of commands.entries()) {
    if ((cmd.connector === '&&' && status !== 0) || (cmd.connector === '||' && status === 0)) continue;
    const [name, ...rest] = cmd.argv;
    if (name === 'set') {
      for (const flag of rest) if (/^-[a-z]*e/.test(flag)) exit = true;
      status = 0;
      continue;
    }
    if (name === 'exit') return Number(rest[0] ?? status) || 0;
    status = await run(cmd.argv);
    const tested = ['&&', '||'].includes(commands[i + 1]?.connector ?? ';');
    if (exit && status !== 0 && !tested) return status;
  }
  return status;
}
