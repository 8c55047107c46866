// `aksemu az …`: an az-style client (Azure CLI 2.45 names, flags, output and errors) of the running
// aksemu server. Arguments go to our own argparse-style parser, so commander only routes here.
import type { Command } from 'commander';
import { runAz } from './az/run.js';

export function registerAz(program: Command): void {
  program
    .command('az')
    .description('Run az 2.45 commands against the running server, e.g. aksemu az aks list')
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument('[args...]')
    .action(async (args: string[], _opts: unknown, cmd: Command) => {
      process.exitCode = await runAz(cmd.args.length > 0 ? cmd.args : args, {
        env: process.env,
        stdout: process.stdout,
        stderr: process.stderr,
        stdin: process.stdin,
      });
    });
}
