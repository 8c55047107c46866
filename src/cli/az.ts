// `aksemu az …`: an az-style client (Azure CLI 2.45 names, flags, output and errors) of the running
// aksemu server. Arguments go to our own argparse-style parser, so commander only routes here.
import type { Command } from 'commander';
import { startKeyEarly } from './az/ssh-key.js';

/**
 * Runs `aksemu az <args>` in this process: its exit code, also left in process.exitCode. A key that
 * `--generate-ssh-keys` may need is started before the command's modules load, so that it is made meanwhile
 * (docs/performance.md §5.2); they are imported here, not with this module, for that.
 */
export async function azMain(args: string[]): Promise<number> {
  startKeyEarly(args, process.env);
  const { runAz } = await import('./az/run.js');
  process.exitCode = await runAz(args, { env: process.env, stdout: process.stdout, stderr: process.stderr, stdin: process.stdin });
  return process.exitCode;
}

export function registerAz(program: Command): void {
  program
    .command('az')
    .description('Run az 2.45 commands against the running server, e.g. aksemu az aks list')
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument('[args...]')
    .action(async (args: string[], _opts: unknown, cmd: Command) => {
      await azMain(cmd.args.length > 0 ? cmd.args : args);
    });
}
