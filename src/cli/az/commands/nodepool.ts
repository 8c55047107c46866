// az aks nodepool add/list/show/scale/delete/upgrade/stop/start/get-upgrades (agentPools, api-version 2022-11-01; docs/clients.md §3.7).
import { validateAutoscaler, validateMaxSurge, validateNodepoolName } from '../../../aks/az-validators.js';
import { validateKubernetesVersion, validateSubnetId } from '../aks-validators.js';
import { API } from '../api-versions.js';
import { flag, num, str, type ArgDef, type ParsedArgs } from '../args.js';
import { longRunning, type CommandDef, type Invocation } from '../command.js';
import type { AgentPoolResource } from '../bodies.js';
import { AzCliError } from '../errors.js';
import { toAzView, withoutReadOnly } from '../models/model.js';
import { agentPoolProperties } from './aks-body.js';
import { upgradeProfile } from './aks-power.js';
import { AUTOSCALER_ARGS, clusterPath } from './aks.js';
import { poolListTable, poolShowTable } from './aks-tables.js';
import { listAll, NO_WAIT, RESOURCE_GROUP } from './common.js';
import { sameId } from '../../../ids/compare.js';

const CLUSTER_NAME: ArgDef = { dest: 'clusterName', options: ['--cluster-name'], required: true, help: 'The cluster name' };
const POOL_NAME: ArgDef = { dest: 'name', options: ['--nodepool-name', '--name', '-n'], required: true, help: 'The node pool name' };
const POOL = [RESOURCE_GROUP, CLUSTER_NAME, POOL_NAME];

const view = (body: unknown) => toAzView('cs.AgentPool', body);

function poolsPath(ctx: Invocation, args: ParsedArgs): string {
  return `${clusterPath(ctx, str(args, 'resourceGroup')!, str(args, 'clusterName')!)}/agentPools`;
}

function poolPath(ctx: Invocation, args: ParsedArgs): string {
  return `${poolsPath(ctx, args)}/${encodeURIComponent(str(args, 'name')!)}`;
}

async function getPool(ctx: Invocation, args: ParsedArgs): Promise<AgentPoolResource> {
  return (await ctx.client().send({ method: 'GET', path: poolPath(ctx, args), apiVersion: API.containerService, accept: [200] })).body as AgentPoolResource;
}

async function listPools(ctx: Invocation, args: ParsedArgs): Promise<AgentPoolResource[]> {
  return (await listAll(ctx, poolsPath(ctx, args), API.containerService)) as AgentPoolResource[];
}

/** az lists the pools first and refuses a name not among them (delete, stop, start). */
async function requireExistingPool(ctx: Invocation, args: ParsedArgs): Promise<void> {
  const name = str(args, 'name')!;
  const pools = await listPools(ctx, args);
  if (!pools.some((p) => sameId(String(p['name']), name))) {
    throw new AzCliError(`Node pool ${name} doesnt exist, use 'aks nodepool list' to get current node pool list`);
  }
}

/** aks_agentpool_stop / aks_agentpool_start: the pool as read, with powerState.code set, PUT back; prints the pool. */
function powerCommand(verb: 'stop' | 'start'): CommandDef {
  return {
    name: `aks nodepool ${verb}`,
    help: verb === 'stop' ? 'Stop running agent pool in the managed Kubernetes cluster.' : 'Start stopped agent pool in the managed Kubernetes cluster.',
    args: [...POOL, { dest: 'aksCustomHeaders', options: ['--aks-custom-headers'], help: 'Ignored, as az 2.45 ignores it here' }, NO_WAIT],
    async run(ctx, args) {
      await requireExistingPool(ctx, args);
      const pool = await getPool(ctx, args);
      (pool['properties'] ??= {})['powerState'] = { code: verb === 'stop' ? 'Stopped' : 'Running' };
      return putPool(ctx, args, withoutReadOnly('cs.AgentPool', pool));
    },
  };
}

async function putPool(ctx: Invocation, args: ParsedArgs, body: unknown): Promise<unknown> {
  const result = await longRunning(
    ctx,
    { method: 'PUT', path: poolPath(ctx, args), apiVersion: API.containerService, body, accept: [200, 201] },
    flag(args, 'noWait'),
  );
  return result === undefined ? undefined : view(result);
}

export const nodepoolCommands: CommandDef[] = [
  {
    name: 'aks nodepool add',
    help: 'Add a node pool to the managed Kubernetes cluster.',
    args: [
      ...POOL,
      { dest: 'nodeCount', options: ['--node-count', '-c'], type: 'int', help: 'Number of nodes (default 3)' },
      { dest: 'nodeVmSize', options: ['--node-vm-size', '-s'], help: 'VM size (default Standard_DS2_v2)' },
      { dest: 'maxPods', options: ['--max-pods', '-m'], type: 'int', help: 'Maximum pods per node' },
      { dest: 'vnetSubnetId', options: ['--vnet-subnet-id'], help: 'Resource id of the subnet for the nodes' },
      { dest: 'podSubnetId', options: ['--pod-subnet-id'], help: "Resource id of the subnet for the pods' addresses (Azure CNI)" },
      { dest: 'osType', options: ['--os-type'], choices: ['Linux', 'Windows'], help: 'OS type (default Linux)' },
      { dest: 'mode', options: ['--mode'], choices: ['System', 'User'], help: 'Node pool mode (default User)' },
      { dest: 'kubernetesVersion', options: ['--kubernetes-version', '-k'], help: 'Kubernetes version of the pool' },
      ...AUTOSCALER_ARGS,
      { dest: 'maxSurge', options: ['--max-surge'], help: 'Upgrade surge, e.g. 1 or 33%' },
      NO_WAIT,
    ],
    async run(ctx, args) {
      const name = str(args, 'name')!;
      validateNodepoolName(name);
      validateSubnetId('--vnet-subnet-id', str(args, 'vnetSubnetId'));
      validateSubnetId('--pod-subnet-id', str(args, 'podSubnetId'));
      const version = validateKubernetesVersion(str(args, 'kubernetesVersion'));
      const maxSurge = str(args, 'maxSurge');
      if (maxSurge !== undefined) validateMaxSurge(maxSurge);
      const enableAutoScaling = flag(args, 'enableClusterAutoscaler');
      const count = num(args, 'nodeCount') ?? 3;
      validateAutoscaler({ enabled: enableAutoScaling, minCount: num(args, 'minCount'), maxCount: num(args, 'maxCount'), nodeCount: count });
      const existing = await listPools(ctx, args);
      if (existing.some((p) => p['name'] === name)) {
        throw new AzCliError(`Node pool ${name} already exists, please try a different name, use 'aks nodepool list' to get current list of node pool`);
      }
      const properties = agentPoolProperties(
        {
          count,
          vmSize: str(args, 'nodeVmSize') ?? 'Standard_DS2_v2',
          osType: str(args, 'osType') ?? 'Linux',
          mode: (str(args, 'mode') as 'System' | 'User' | undefined) ?? 'User',
          ...(str(args, 'vnetSubnetId') ? { vnetSubnetId: str(args, 'vnetSubnetId')! } : {}),
          ...(str(args, 'podSubnetId') ? { podSubnetId: str(args, 'podSubnetId')! } : {}),
          ...(num(args, 'maxPods') === undefined ? {} : { maxPods: num(args, 'maxPods')! }),
          enableAutoScaling,
          ...(enableAutoScaling ? { minCount: num(args, 'minCount')!, maxCount: num(args, 'maxCount')! } : {}),
          ...(maxSurge === undefined ? {} : { maxSurge }),
          ...(version === '' ? {} : { orchestratorVersion: version }),
        },
        true,
      );
      return putPool(ctx, args, { properties });
    },
  },
  {
    name: 'aks nodepool list',
    help: 'List node pools in the managed Kubernetes cluster.',
    args: [RESOURCE_GROUP, CLUSTER_NAME],
    table: poolListTable,
    async run(ctx, args) {
      return (await listPools(ctx, args)).map(view);
    },
  },
  {
    name: 'aks nodepool show',
    help: 'Show the details for a node pool in the managed Kubernetes cluster.',
    args: POOL,
    table: poolShowTable,
    async run(ctx, args) {
      return view(await getPool(ctx, args));
    },
  },
  {
    name: 'aks nodepool scale',
    help: 'Scale the node pool in a managed Kubernetes cluster.',
    args: [...POOL, { dest: 'nodeCount', options: ['--node-count', '-c'], type: 'int', help: 'Number of nodes (default 3)' }, NO_WAIT],
    async run(ctx, args) {
      const count = num(args, 'nodeCount') ?? 3;
      const pool = await getPool(ctx, args);
      const props = (pool['properties'] ??= {});
      if (count === props['count']) throw new AzCliError('The new node count is the same as the current node count.');
      if (props['enableAutoScaling']) throw new AzCliError('Cannot scale cluster autoscaler enabled node pool.');
      props['count'] = count;
      return putPool(ctx, args, withoutReadOnly('cs.AgentPool', pool));
    },
  },
  {
    name: 'aks nodepool upgrade',
    help: 'Upgrade the node pool in a managed Kubernetes cluster.',
    args: [
      ...POOL,
      { dest: 'kubernetesVersion', options: ['--kubernetes-version', '-k'], help: 'Version to upgrade to' },
      { dest: 'nodeImageOnly', options: ['--node-image-only'], type: 'flag', help: 'Only upgrade node images' },
      { dest: 'maxSurge', options: ['--max-surge'], help: 'Upgrade surge, e.g. 1 or 33%' },
      NO_WAIT,
    ],
    async run(ctx, args) {
      const version = validateKubernetesVersion(str(args, 'kubernetesVersion'));
      const maxSurge = str(args, 'maxSurge');
      if (maxSurge !== undefined) validateMaxSurge(maxSurge);
      if (version !== '' && flag(args, 'nodeImageOnly')) {
        throw new AzCliError(
          'Conflicting flags. Upgrading the Kubernetes version will also upgrade node image version. If you only want to upgrade the node version please use the "--node-image-only" option only.',
        );
      }
      if (flag(args, 'nodeImageOnly')) throw new AzCliError('--node-image-only is not supported by aksemu yet.');
      const pool = await getPool(ctx, args);
      const props = (pool['properties'] ??= {});
      props['orchestratorVersion'] = version;
      delete props['creationData'];
      props['upgradeSettings'] ??= {};
      if (maxSurge !== undefined) props['upgradeSettings']['maxSurge'] = maxSurge;
      return putPool(ctx, args, withoutReadOnly('cs.AgentPool', pool));
    },
  },
  {
    name: 'aks nodepool delete',
    help: 'Delete the agent pool in the managed Kubernetes cluster.',
    args: [...POOL, NO_WAIT],
    async run(ctx, args) {
      await requireExistingPool(ctx, args);
      await longRunning(ctx, { method: 'DELETE', path: poolPath(ctx, args), apiVersion: API.containerService, accept: [202, 204] }, flag(args, 'noWait'));
      return undefined;
    },
  },
  powerCommand('stop'),
  powerCommand('start'),
  {
    name: 'aks nodepool get-upgrades',
    help: 'Get the available upgrade versions for an agent pool of the managed Kubernetes cluster.',
    args: POOL,
    run: (ctx, args) => upgradeProfile(ctx, poolPath(ctx, args), 'cs.AgentPoolUpgradeProfile'),
  },
];
