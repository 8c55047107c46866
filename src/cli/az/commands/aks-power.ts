// az aks stop/start (begin_stop/begin_start: the poller's result is None, so az prints nothing) and
// get-upgrades (get_upgrade_profile, with aks_upgrades_table_format for -o table); az 2.45's acs/commands.py.
import { API } from '../api-versions.js';
import { flag, str, type ParsedArgs } from '../args.js';
import { longRunning, type CommandDef, type Invocation } from '../command.js';
import { toAzView } from '../models/model.js';
import { clusterPath } from './aks.js';
import { upgradesTable } from './aks-tables.js';
import { NAME, NO_WAIT, RESOURCE_GROUP } from './common.js';

const CLUSTER = [RESOURCE_GROUP, { ...NAME, help: 'Name of the managed cluster' }];

function path(ctx: Invocation, args: ParsedArgs): string {
  return clusterPath(ctx, str(args, 'resourceGroup')!, str(args, 'name')!);
}

/** get_upgrade_profile of a cluster or a pool (`resource`), in az's view of its model. */
export async function upgradeProfile(ctx: Invocation, resource: string, model: string): Promise<unknown> {
  const res = await ctx.client().send({ method: 'GET', path: `${resource}/upgradeProfiles/default`, apiVersion: API.containerService, accept: [200] });
  return toAzView(model, res.body);
}

function powerCommand(verb: 'stop' | 'start'): CommandDef {
  return {
    name: `aks ${verb}`,
    help: verb === 'stop' ? 'Stop a managed cluster.' : 'Start a previously stopped managed cluster.',
    args: [...CLUSTER, NO_WAIT],
    async run(ctx, args) {
      await longRunning(
        ctx,
        { method: 'POST', path: `${path(ctx, args)}/${verb}`, apiVersion: API.containerService, accept: [202, 204] },
        flag(args, 'noWait'),
      );
      return undefined;
    },
  };
}

export const aksPowerCommands: CommandDef[] = [
  powerCommand('stop'),
  powerCommand('start'),
  {
    name: 'aks get-upgrades',
    help: 'Get the upgrade versions available for a managed Kubernetes cluster.',
    args: CLUSTER,
    table: upgradesTable,
    run: (ctx, args) => upgradeProfile(ctx, path(ctx, args), 'cs.ManagedClusterUpgradeProfile'),
  },
];
