// Just enough of a POSIX shell to read what CNI install scripts pass to `sh -c`: words with '…', "…" and \
// quoting, $VAR / ${VAR} expansion from the container's environment, `#` comments, and command lists joined by
// `;`, newlines, `&&` and `||`, pipelines of simple commands (`a | b`), and `while` / `until` / `if` blocks. Nothing is executed here: the caller runs each
// simple command (processes.ts for containers, init-containers.ts for the CNI installers).

export type Connector = ';' | '&&' | '||' | '|';

export interface ShellCommand {
  /** How this command joins the previous one (`;` for the first; `|`: it reads the previous one's output). */
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
    // `$?` is the last status (an interactive shell passes it as the variable `?`).
    const m = /^(?:[A-Za-z_][A-Za-z0-9_]*|\?)/.exec(script.slice(i + 1));
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
    } else if (c === '|') {
      endCommand('|');
      i++;
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

/** A command list with its compound commands found: `while|until LIST; do LIST; done` and `if LIST; then LIST; [else LIST;] fi`. */
type Node =
  | { type: 'simple'; connector: Connector; argv: string[]; pipe?: string[][] }
  | { type: 'loop'; connector: Connector; until: boolean; test: Node[]; body: Node[] }
  | { type: 'if'; connector: Connector; test: Node[]; then: Node[]; else: Node[] };

const KEYWORDS = new Set(['while', 'until', 'do', 'done', 'if', 'then', 'else', 'fi']);

/** Builds the tree; the reserved words open and close blocks wherever they start a command. */
function tree(commands: ShellCommand[]): Node[] {
  let i = 0;
  // Words are consumed from the front of the current command; a command emptied that way is skipped.
  let words: string[] | undefined;
  let connector: Connector = ';';
  const peek = (): string | undefined => {
    while (i < commands.length) {
      if (words === undefined) {
        words = [...commands[i]!.argv];
        connector = commands[i]!.connector;
      }
      if (words.length > 0) return words[0];
      i++;
      words = undefined;
    }
    return undefined;
  };
  const take = (): void => {
    words!.shift();
  };
  const list = (ends: string[]): Node[] => {
    const out: Node[] = [];
    for (;;) {
      const word = peek();
      if (word === undefined) {
        if (ends.length === 0) return out;
        throw new ShellSyntaxError(`unexpected end of file (expecting "${ends[0]}")`);
      }
      if (ends.includes(word)) return out;
      const joined = connector;
      if (word === 'while' || word === 'until') {
        take();
        const test = list(['do']);
        take();
        const body = list(['done']);
        take();
        out.push({ type: 'loop', connector: joined, until: word === 'until', test, body });
      } else if (word === 'if') {
        take();
        const test = list(['then']);
        take();
        const then = list(['else', 'fi']);
        const otherwise = peek() === 'else' ? (take(), list(['fi'])) : [];
        take();
        out.push({ type: 'if', connector: joined, test, then, else: otherwise });
      } else if (KEYWORDS.has(word)) {
        throw new ShellSyntaxError(`unexpected "${word}"`);
      } else {
        const node: Node = { type: 'simple', connector: joined, argv: words! };
        out.push(node);
        i++;
        words = undefined;
        // The commands it pipes into: stages of one pipeline.
        while (commands[i]?.connector === '|') (node.pipe ??= []).push(commands[i++]!.argv);
      }
    }
  };
  return list([]);
}

/** `exit N` anywhere in the script. */
class Exit {
  constructor(readonly status: number) {}
}

/**
 * Runs a command list as sh does: `a && b` runs b only when a succeeded, `a || b` only when it failed; a
 * pipeline's status is its last stage's (`pipeline` runs it); with
 * errexit (`set -e`, `sh -e`) a failure outside such a test stops the list; `while`, `until` and `if` blocks
 * run their lists. Returns the last exit status, and whether `exit` ended it (an interactive shell then ends
 * too). Throws ShellSyntaxError for an unbalanced block.
 */
export async function runScript(
  commands: ShellCommand[],
  run: (argv: string[]) => Promise<number>,
  errexit = false,
  pipeline: (stages: string[][]) => Promise<number> = async () => {
    throw new ShellSyntaxError('pipelines are not supported here');
  },
  /** The status before the list ($?: a bare `exit` first in an interactive shell's line ends with it). */
  last = 0,
): Promise<{ status: number; exited: boolean }> {
  const state = { errexit };
  const exec = async (nodes: Node[], tested: boolean, initial = 0): Promise<number> => {
    let status = initial;
    for (const [i, node] of nodes.entries()) {
      if ((node.connector === '&&' && status !== 0) || (node.connector === '||' && status === 0)) continue;
      const inTest = tested || ['&&', '||'].includes(nodes[i + 1]?.connector ?? ';');
      if (node.type === 'loop') {
        status = 0;
        while (((await exec(node.test, true)) === 0) !== node.until) status = await exec(node.body, inTest);
        continue;
      }
      if (node.type === 'if') {
        status = (await exec(node.test, true)) === 0 ? await exec(node.then, inTest) : await exec(node.else, inTest);
        continue;
      }
      const [name, ...rest] = node.argv;
      if (name === 'set') {
        for (const flag of rest) if (/^-[a-z]*e/.test(flag)) state.errexit = true;
        status = 0;
        continue;
      }
      if (name === 'exit') throw new Exit(Number(rest[0] ?? status) || 0);
      status = node.pipe ? await pipeline([node.argv, ...node.pipe]) : await run(node.argv);
      if (state.errexit && status !== 0 && !inTest) throw new Exit(status);
    }
    return status;
  };
  try {
    return { status: await exec(tree(commands), false, last), exited: false };
  } catch (e) {
    if (e instanceof Exit) return { status: e.status, exited: true };
    throw e;
  }
}

/** runList, for a script that ends with its last command or `exit`: the status only. */
export async function runList(...args: Parameters<typeof runScript>): Promise<number> {
  return (await runScript(...args)).status;
}
