// `aksemu az …` end to end: find the command, parse its arguments (globals anywhere), run it
// against the server from endpoint.json, print the result or the error as az does, return the exit code.
import { readFileSync } from 'node:fs';
import { CliUsageError } from '../../aks/az-validators.js';
import { ArmClient } from './arm-client.js';
import { flag, parseArgs, str, type ArgDef } from './args.js';
import type { CommandDef, Invocation } from './command.js';
import { COMMANDS } from './commands/index.js';
import { confirmOrCancel } from './confirm.js';
import { readEndpoint, resolveHome, type Endpoint } from './endpoint.js';
import { AzCliError } from './errors.js';
import { applyQuery, OUTPUT_FORMATS, render, type OutputFormat } from './output.js';
import { spinner } from './progress.js';
import { addResourceGroup } from './transforms.js';
import { HttpsTransport, type Transport } from './transport.js';

interface AzIO {
  env: NodeJS.ProcessEnv;
  stdout: { write(s: string): unknown };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Tests inject a fake server here. */
  transport?: (endpoint: Endpoint) => Transport;
  endpoint?: Endpoint;
  sleep?: (ms: number) => Promise<void>;
}

const GLOBAL_ARGS: ArgDef[] = [
  { dest: '_output', options: ['--output', '-o'], choices: OUTPUT_FORMATS, help: 'Output format: json, jsonc, none, table, tsv, yaml, yamlc' },
  { dest: '_query', options: ['--query'], help: 'JMESPath query string' },
  { dest: '_subscription', options: ['--subscription'], help: "Subscription id (default: the server's)" },
  { dest: '_home', options: ['--home'], help: 'aksemu home with endpoint.json (default: $AKSEMU_HOME or ~/.aksemu)' },
  { dest: '_onlyShowErrors', options: ['--only-show-errors'], type: 'flag', help: 'Only show errors, suppressing warnings' },
  { dest: '_debug', options: ['--debug'], type: 'flag', help: 'Accepted for compatibility' },
  { dest: '_verbose', options: ['--verbose'], type: 'flag', help: 'Accepted for compatibility' },
  { dest: '_help', options: ['--help', '-h'], type: 'flag', help: 'Show this help message and exit' },
];

function findCommand(words: string[]): { command?: CommandDef; consumed: number } {
  let best: { command?: CommandDef; consumed: number } = { consumed: 0 };
  for (const command of COMMANDS) {
    const parts = command.name.split(' ');
    if (parts.length > words.length || parts.length <= best.consumed) continue;
    if (parts.every((p, i) => words[i] === p)) best = { command, consumed: parts.length };
  }
  return best;
}

function groupHelp(prefix: string[]): string | undefined {
  const under = COMMANDS.filter((c) => prefix.every((p, i) => c.name.split(' ')[i] === p) && c.name.split(' ').length > prefix.length);
  if (under.length === 0) return undefined;
  const lines = under.map((c) => `    ${c.name.slice(prefix.join(' ').length).trim().padEnd(24)}: ${c.help}`);
  return `\nGroup\n    ${['az', ...prefix].join(' ')}\n\nCommands:\n${lines.join('\n')}\n`;
}

function commandHelp(command: CommandDef): string {
  const lines = [...command.args, ...GLOBAL_ARGS].map((a) => `    ${[...a.options].join(' ').padEnd(34)}${a.required ? '[Required] ' : ''}: ${a.help ?? ''}`);
  return `\nCommand\n    az ${command.name} : ${command.help}\n\nArguments\n${lines.join('\n')}\n`;
}

export async function runAz(argv: string[], io: AzIO): Promise<number> {
  const error = (message: string) => io.stderr.write(`ERROR: ${message}\n`);
  let onlyErrors = false;
  const warn = (message: string) => {
    if (!onlyErrors) io.stderr.write(`WARNING: ${message}\n`);
  };
  try {
    const words: string[] = [];
    for (const token of argv) {
      if (token.startsWith('-')) break;
      words.push(token);
    }
    const { command, consumed } = findCommand(words);
    if (!command) {
      const help = groupHelp(words);
      if (help !== undefined) {
        io.stdout.write(help);
        return 0;
      }
      let known = 0;
      while (known < words.length && groupHelp(words.slice(0, known + 1)) !== undefined) known++;
      throw new AzCliError(`'${words[known] ?? argv[0]}' is misspelled or not recognized by the system.`, 2);
    }
    const prog = `az ${command.name}`;
    const rest = argv.slice(consumed);
    if (rest.includes('-h') || rest.includes('--help')) {
      io.stdout.write(commandHelp(command));
      return 0;
    }
    const { args, typed } = parseArgs(prog, [...command.args, ...GLOBAL_ARGS], rest);
    onlyErrors = flag(args, '_onlyShowErrors');
    const format = (str(args, '_output') ?? io.env['AZURE_CORE_OUTPUT'] ?? 'json') as OutputFormat;
    const query = str(args, '_query');

    let endpoint: Endpoint | undefined = io.endpoint;
    const getEndpoint = () => (endpoint ??= readEndpoint(resolveHome(str(args, '_home'), io.env)));
    let client: ArmClient | undefined;
    const ctx: Invocation = {
      prog,
      client: () => {
        if (!client) {
          const ep = getEndpoint();
          const transport = io.transport ? io.transport(ep) : new HttpsTransport(readFileSync(ep.caFile, 'utf8'));
          const invocation = { commandName: command.name, parameterSetName: typed.join(' ') };
          client = new ArmClient(ep, str(args, '_subscription') ?? ep.subscriptionId, transport, invocation);
        }
        return client;
      },
      subscriptionId: () => str(args, '_subscription') ?? getEndpoint().subscriptionId,
      home: () => resolveHome(str(args, '_home'), io.env),
      warn,
      confirm: (message, yes) => confirmOrCancel({ input: io.stdin, output: io.stderr, warn }, message, yes),
      progress: () => spinner(io.stderr as NodeJS.WriteStream),
      sleep: io.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    };
    const result = await command.run(ctx, args);
    // knack prints nothing for a None result, also when --query reduced it to None.
    if (result === undefined || result === null) return 0;
    addResourceGroup(result);
    const shown = query === undefined ? result : applyQuery(result, query);
    if (shown === null || shown === undefined) return 0;
    io.stdout.write(render(shown, format, { queryActive: query !== undefined, ...(command.table ? { table: command.table } : {}) }));
    return 0;
  } catch (err) {
    if (err instanceof AzCliError) {
      error(err.message);
      return err.exitCode;
    }
    if (err instanceof CliUsageError) {
      // azure-cli's argument validators: InvalidArgumentValueError, exit 1.
      error(err.message);
      return 1;
    }
    error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    return 1;
  }
}
