// The `aksemu` command: one commander program, each subcommand in its own module.
import type { Command } from 'commander';

/**
 * Each subcommand's module, in the order `aksemu --help` lists them. Loaded on demand: a command line that names
 * one loads only that one, so `aksemu az …` does not pay for the planner, the rule table or the data plane
 * (~150 ms of a process start); help, `help <command>` and an unknown command load them all.
 */
const SUBCOMMANDS: Record<string, () => Promise<(program: Command) => void>> = {
  az: async () => (await import('./az.js')).registerAz,
  'az-env': async () => (await import('./az-env.js')).registerAzEnv,
  cni: async () => (await import('./cni.js')).registerCni,
  dashboard: async () => (await import('./dashboard.js')).registerDashboard,
  plan: async () => (await import('./plan.js')).registerPlan,
  probe: async () => (await import('./probe.js')).registerProbe,
  rules: async () => (await import('./rules.js')).registerRules,
  'sdk-env': async () => (await import('./sdk-env.js')).registerSdkEnv,
  start: async () => (await import('./start.js')).registerStart,
};

/** The subcommands `argv` needs registered: the one it names, else every one. */
export function subcommandsFor(argv: string[]): string[] {
  const first = argv[0];
  return first !== undefined && Object.hasOwn(SUBCOMMANDS, first) ? [first] : Object.keys(SUBCOMMANDS);
}

export async function main(argv: string[]): Promise<number> {
  // `aksemu az …` without commander, which would hand azMain the same arguments (its `az` takes every token as it
  // comes, `--` apart: a line with one goes through commander as before). Commander's modules were ~60 M of such a
  // process's ~590 M instructions (docs/performance.md §5.2).
  if (argv[0] === 'az' && !argv.includes('--')) return (await import('./az.js')).azMain(argv.slice(1));
  const { Command, CommanderError } = await import('commander');
  const program = new Command('aksemu')
    .description('A local, offline emulator of Azure Kubernetes Service cluster networking')
    .exitOverride()
    .showHelpAfterError(false)
    // Wide enough that every command and option is one line of help, whatever the terminal says.
    .configureHelp({ helpWidth: 140 });
  const registers = await Promise.all(subcommandsFor(argv).map((name) => SUBCOMMANDS[name]!()));
  for (const register of registers) register(program);
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
