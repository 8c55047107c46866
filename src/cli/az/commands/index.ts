// Every `aksemu az` command, by az name, in modules by the command's first word (its az command group). A command
// line loads only the modules of the word it starts with: `az aks create` does not pay for the template compiler
// or the YAML of `az deployment` (part of every command's process start before).
import type { CommandDef } from '../command.js';

interface CommandModule {
  /** The first word of every command in the module. */
  word: string;
  load: () => Promise<CommandDef[]>;
}

/** In the order `aksemu az` lists them. */
export const COMMAND_MODULES: readonly CommandModule[] = [
  { word: 'group', load: async () => (await import('./group.js')).groupCommands },
  { word: 'network', load: async () => (await import('./network.js')).networkCommands },
  { word: 'network', load: async () => (await import('./network-outbound.js')).networkOutboundCommands },
  { word: 'role', load: async () => (await import('./role.js')).roleCommands },
  { word: 'aks', load: async () => (await import('./aks.js')).aksCommands },
  { word: 'aks', load: async () => (await import('./aks-power.js')).aksPowerCommands },
  { word: 'aks', load: async () => (await import('./credentials.js')).credentialCommands },
  { word: 'aks', load: async () => (await import('./nodepool.js')).nodepoolCommands },
  { word: 'deployment', load: async () => (await import('./deployment.js')).deploymentCommands },
  { word: 'bicep', load: async () => (await import('./bicep.js')).bicepCommands },
  { word: 'vm', load: async () => (await import('./vm.js')).vmCommands },
];

/** The commands a command line starting with `word` can name: that group's, or every one when no group is named so. */
export async function commandsFor(word: string | undefined): Promise<CommandDef[]> {
  const group = COMMAND_MODULES.filter((m) => m.word === word);
  const lists = await Promise.all((group.length > 0 ? group : COMMAND_MODULES).map((m) => m.load()));
  return lists.flat();
}
