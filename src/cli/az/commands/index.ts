// Every `aksemu az` command, by az name.
import type { CommandDef } from '../command.js';
import { aksCommands } from './aks.js';
import { aksPowerCommands } from './aks-power.js';
import { bicepCommands } from './bicep.js';
import { credentialCommands } from './credentials.js';
import { deploymentCommands } from './deployment.js';
import { groupCommands } from './group.js';
import { networkCommands } from './network.js';
import { networkOutboundCommands } from './network-outbound.js';
import { nodepoolCommands } from './nodepool.js';
import { roleCommands } from './role.js';
import { vmCommands } from './vm.js';

export const COMMANDS: CommandDef[] = [
  ...groupCommands,
  ...networkCommands,
  ...networkOutboundCommands,
  ...roleCommands,
  ...aksCommands,
  ...aksPowerCommands,
  ...credentialCommands,
  ...nodepoolCommands,
  ...deploymentCommands,
  ...bicepCommands,
  ...vmCommands,
];
