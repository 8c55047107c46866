// The `aksemu` command: one commander program, each subcommand in its own module.
import { Command, CommanderError } from 'commander';
import { registerAz } from './az.js';
import { registerAzEnv } from './az-env.js';
import { registerCni } from './cni.js';
import { registerDashboard } from './dashboard.js';
import { registerPlan } from './plan.js';
import { registerProbe } from './probe.js';
import { registerRules } from './rules.js';
import { registerSdkEnv } from './sdk-env.js';
import { registerStart } from './start.js';

export async function main(argv: string[]): Promise<number> {
  const program = new Command('aksemu')
    .description('A local, offline emulator of Azure Kubernetes Service cluster networking')
    .exitOverride()
    .showHelpAfterError(false)
    // Wide enough that every command and option is one line of help, whatever the terminal says.
    .configureHelp({ helpWidth: 140 });
  registerAz(program);
  registerAzEnv(program);
  registerCni(program);
  registerDashboard(program);
  registerPlan(program);
  registerProbe(program);
  registerRules(program);
  registerSdkEnv(program);
  registerStart(program);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // commander has already printed its message (or the help text) to stderr/stdout.
      return err.exitCode === 0 ? 0 : 2;
    }
    process.stderr.write(`aksemu: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
