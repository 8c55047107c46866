// An argparse-style parser for az's command lines: long and short options anywhere, `--opt=value`,
// space-separated lists (nargs='+'), store_true flags, and argparse's/az's messages for bad input.
import { AzUsageError } from './errors.js';
import { sameId } from '../../ids/compare.js';

export interface ArgDef {
  /** Key in the parsed result. */
  dest: string;
  /** As az lists them, e.g. ['--resource-group', '-g']. */
  options: string[];
  type?: 'string' | 'int' | 'flag' | 'list';
  required?: boolean;
  /** az's enum arguments: matched case-insensitively, reported with az's wording. */
  choices?: readonly string[];
  help?: string;
}

export type ParsedArgs = Record<string, string | number | boolean | string[] | undefined>;

interface ParseResult {
  args: ParsedArgs;
  /** The options as typed, in order: az's ParameterSetName header. */
  typed: string[];
}

/** argparse's view: '-x' and '--x' are options; a lone '-' (stdin/stdout) and negative numbers are values. */
function isOption(token: string): boolean {
  return token.startsWith('-') && token !== '-' && !/^-\d/.test(token);
}

function display(def: ArgDef): string {
  return def.options.join('/');
}

export function parseArgs(prog: string, defs: ArgDef[], argv: string[]): ParseResult {
  const byOption = new Map<string, ArgDef>();
  for (const def of defs) for (const option of def.options) byOption.set(option, def);
  const args: ParsedArgs = {};
  const typed: string[] = [];
  const unrecognized: string[] = [];

  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    let name = token;
    let inline: string | undefined;
    const eq = token.indexOf('=');
    if (token.startsWith('--') && eq > 0) {
      name = token.slice(0, eq);
      inline = token.slice(eq + 1);
    }
    const def = isOption(token) ? byOption.get(name) : undefined;
    if (!def) {
      unrecognized.push(token);
      continue;
    }
    typed.push(name);
    const takeValues = (): string[] => {
      if (inline !== undefined) return [inline];
      const values: string[] = [];
      while (i + 1 < argv.length && !isOption(argv[i + 1]!)) {
        values.push(argv[++i]!);
        if (def.type !== 'list') break;
      }
      return values;
    };
    if (def.type === 'flag') {
      if (inline !== undefined) throw new AzUsageError(`argument ${display(def)}: ignored explicit argument '${inline}'`);
      args[def.dest] = true;
      continue;
    }
    const values = takeValues();
    if (values.length === 0) {
      throw new AzUsageError(`argument ${display(def)}: expected ${def.type === 'list' ? 'at least one argument' : 'one argument'}`);
    }
    if (def.type === 'list') {
      args[def.dest] = values;
      continue;
    }
    const value = values[0]!;
    if (def.type === 'int') {
      if (!/^\s*[+-]?\d+\s*$/.test(value)) throw new AzUsageError(`argument ${display(def)}: invalid int value: '${value}'`);
      args[def.dest] = Number(value);
      continue;
    }
    if (def.choices) {
      const match = def.choices.find((c) => sameId(c, value));
      if (match === undefined) {
        throw new AzUsageError(`${prog}: '${value}' is not a valid value for '${def.options[0]}'. Allowed values: ${def.choices.join(', ')}.`);
      }
      args[def.dest] = match;
      continue;
    }
    args[def.dest] = value;
  }

  if (unrecognized.length > 0) throw new AzUsageError(`unrecognized arguments: ${unrecognized.join(' ')}`);
  const missing = defs.filter((d) => d.required && args[d.dest] === undefined);
  if (missing.length > 0) throw new AzUsageError(`the following arguments are required: ${missing.map(display).join(', ')}`);
  return { args, typed };
}

export function str(args: ParsedArgs, dest: string): string | undefined {
  const v = args[dest];
  return typeof v === 'string' ? v : undefined;
}

export function num(args: ParsedArgs, dest: string): number | undefined {
  const v = args[dest];
  return typeof v === 'number' ? v : undefined;
}

export function flag(args: ParsedArgs, dest: string): boolean {
  return args[dest] === true;
}

export function list(args: ParsedArgs, dest: string): string[] | undefined {
  const v = args[dest];
  return Array.isArray(v) ? v : undefined;
}
