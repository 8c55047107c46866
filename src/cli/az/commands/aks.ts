// az aks create/show/list/delete/scale/upgrade/update/get-versions (Microsoft.ContainerService,
// api-version 2022-11-01), with az 2.45's flags, client-side checks, bodies and output.
import { CliUsageError, validateAutoscaler, validateMaxSurge, validateNodepoolName } from '../../../aks/az-validators.js';
import { DUAL_STACK_FLAGS } from '../../../aks/network-flags.js';
import { validateClusterName, validateKubernetesVersion, validateNetworkPluginGiven, validateNetworkPolicy, validateSubnetId } from '../aks-validators.js';
import { API } from '../api-versions.js';
import { flag, list, num, str, type ArgDef, type ParsedArgs } from '../args.js';
import { longRunning, type CommandDef, type Invocation } from '../command.js';
import type { ClusterResource, PoolProfile } from '../bodies.js';
import { AzCliError } from '../errors.js';
import { pollLro } from '../lro-poller.js';
import { toAzView, withoutReadOnly } from '../models/model.js';
import { groupScope } from '../resource-id.js';
import { resolveSshKey } from '../ssh-key.js';
import { parseTags } from '../tags.js';
import { removeClusterNulls } from '../transforms.js';
import { defaultDnsPrefix, managedClusterBody } from './aks-body.js';
import { loadBalancerFlags, mergeOutboundFlags, natGatewayFlags, OUTBOUND_ARGS, validateOutboundArgs, validateOutboundFlags } from './aks-outbound.js';
import { aksListTable, aksShowTable, versionsTable } from './aks-tables.js';
import { groupLocation, listAll, LOCATION, NAME, NO_WAIT, OPTIONAL_RESOURCE_GROUP, RESOURCE_GROUP, TAGS, YES } from './common.js';
import { assignNetworkContributor, subnetHasNetworkContributor } from './role.js';

export function clusterPath(ctx: Invocation, resourceGroup: string, name: string): string {
  return `${groupScope(ctx.subscriptionId(), resourceGroup)}/providers/Microsoft.ContainerService/managedClusters/${encodeURIComponent(name)}`;
}

const clusterView = (body: unknown) => removeClusterNulls(toAzView('cs.ManagedCluster', body) as Record<string, unknown>);

export const AUTOSCALER_ARGS: ArgDef[] = [
  { dest: 'enableClusterAutoscaler', options: ['--enable-cluster-autoscaler', '-e'], type: 'flag', help: 'Enable the cluster autoscaler' },
  { dest: 'minCount', options: ['--min-count'], type: 'int', help: 'Minimum nodes for the autoscaler' },
  { dest: 'maxCount', options: ['--max-count'], type: 'int', help: 'Maximum nodes for the autoscaler' },
];

const CLUSTER = [RESOURCE_GROUP, { ...NAME, help: 'Name of the managed cluster' }];

async function getCluster(ctx: Invocation, args: ParsedArgs, apiVersion: string = API.containerService): Promise<ClusterResource> {
  const res = await ctx.client().send({ method: 'GET', path: clusterPath(ctx, str(args, 'resourceGroup')!, str(args, 'name')!), apiVersion, accept: [200] });
  return res.body as ClusterResource;
}

/** PUT of a cluster az read and changed: read-only members dropped, as the SDK serializes it. */
async function putCluster(
  ctx: Invocation,
  args: ParsedArgs,
  cluster: unknown,
  view: (b: unknown) => unknown,
  apiVersion: string = API.containerService,
  networkPluginMode?: string,
): Promise<unknown> {
  const path = clusterPath(ctx, str(args, 'resourceGroup')!, str(args, 'name')!);
  const body = withoutReadOnly('cs.ManagedCluster', cluster) as { properties?: { networkProfile?: Record<string, unknown> } };
  // az 2.45's model has no networkPluginMode: newer az sends it (aks create does the same).
  if (networkPluginMode !== undefined && body.properties) body.properties.networkProfile = { ...body.properties.networkProfile, networkPluginMode };
  const result = await longRunning(ctx, { method: 'PUT', path, apiVersion, body, accept: [200, 201] }, flag(args, 'noWait'));
  return result === undefined ? undefined : view(result);
}

async function create(ctx: Invocation, args: ParsedArgs): Promise<unknown> {
  const name = str(args, 'name')!;
  const rg = str(args, 'resourceGroup')!;
  // argument validators first, in az's order, then the decorator's checks; all before any request.
  validateClusterName(name);
  const kubernetesVersion = validateKubernetesVersion(str(args, 'kubernetesVersion'));
  validateNetworkPolicy(str(args, 'networkPolicy'));
  const subnetId = str(args, 'vnetSubnetId');
  validateSubnetId('--vnet-subnet-id', subnetId);
  const podSubnetId = str(args, 'podSubnetId');
  validateSubnetId('--pod-subnet-id', podSubnetId);
  validateSubnetId('--assign-identity', str(args, 'assignIdentity'));
  const nodepoolName = str(args, 'nodepoolName') ?? 'nodepool1';
  validateNodepoolName(nodepoolName);
  for (const key of ['minCount', 'maxCount'] as const) {
    const v = num(args, key);
    if (v !== undefined && (v < 0 || v > 1000)) throw new CliUsageError(`--${key === 'minCount' ? 'min' : 'max'}-count must be in the range [0,1000]`);
  }
  const maxSurge = str(args, 'maxSurge');
  if (maxSurge !== undefined) validateMaxSurge(maxSurge);
  const nodeCount = num(args, 'nodeCount') ?? 3;
  const enableAutoScaling = flag(args, 'enableClusterAutoscaler');
  validateAutoscaler({ enabled: enableAutoScaling, minCount: num(args, 'minCount'), maxCount: num(args, 'maxCount'), nodeCount });
  const networkPlugin = str(args, 'networkPlugin');
  const podCidr = str(args, 'podCidr');
  validateNetworkPluginGiven(networkPlugin, [
    podCidr,
    str(args, 'networkPluginMode'),
    str(args, 'serviceCidr'),
    str(args, 'dnsServiceIp'),
    str(args, 'networkPolicy'),
    str(args, 'dockerBridgeAddress'),
  ]);
  const outboundType = str(args, 'outboundType') ?? 'loadBalancer';
  if (outboundType === 'userDefinedRouting' && !subnetId) {
    throw new CliUsageError('--vnet-subnet-id must be specified for userDefinedRouting and it must be pre-configured with a route table with egress rules');
  }
  validateOutboundArgs(args);
  const loadBalancerProfile = loadBalancerFlags(args);
  const natGatewayProfile = natGatewayFlags(args);
  validateOutboundFlags(outboundType, loadBalancerProfile);
  // The network models (seven modules) are loaded only for this warning's check (docs/performance.md §5.2).
  if (
    podCidr !== undefined &&
    (await import('../../../aks/network-models/index.js')).networkModelFor(networkPlugin, str(args, 'networkPluginMode'))?.podCidr === 'ignored'
  ) {
    ctx.warn(
      `When using --network-plugin azure without the preview feature --network-plugin-mode overlay the provided pod CIDR "${podCidr}" will be overwritten with the subnet CIDR.`,
    );
  }
  const sshKey = flag(args, 'noSshKey')
    ? undefined
    : resolveSshKey({
        ...(str(args, 'sshKeyValue') === undefined ? {} : { value: str(args, 'sshKeyValue')! }),
        generate: flag(args, 'generateSshKeys'),
        aksemuHome: ctx.home(),
      });
  // A new key is made in the thread pool meanwhile; awaited for the body (an error before that is the one reported).
  sshKey?.catch(() => undefined);
  ctx.client().prefetchToken();

  const location = str(args, 'location') ?? (await groupLocation(ctx, rg));
  // --vnet-subnet-id: unless told to skip, give the cluster identity Network Contributor on the subnet.
  const roleWork = subnetId && !flag(args, 'skipSubnetRoleAssignment') ? !(await subnetHasNetworkContributor(ctx, subnetId)) : false;
  const body = managedClusterBody({
    location,
    ...(list(args, 'tags') === undefined ? {} : { tags: parseTags(list(args, 'tags'))! }),
    kubernetesVersion,
    dnsPrefix: str(args, 'dnsNamePrefix') ?? defaultDnsPrefix(name, rg, ctx.subscriptionId()),
    pool: {
      name: nodepoolName,
      count: nodeCount,
      vmSize: str(args, 'nodeVmSize') ?? 'Standard_DS2_v2',
      osType: 'Linux',
      mode: 'System',
      ...(subnetId ? { vnetSubnetId: subnetId } : {}),
      ...(podSubnetId ? { podSubnetId } : {}),
      ...(num(args, 'maxPods') === undefined ? {} : { maxPods: num(args, 'maxPods')! }),
      enableAutoScaling,
      ...(enableAutoScaling ? { minCount: num(args, 'minCount')!, maxCount: num(args, 'maxCount')! } : {}),
      ...(maxSurge === undefined ? {} : { maxSurge }),
      orchestratorVersion: kubernetesVersion,
    },
    ...(sshKey === undefined ? {} : { sshKey: await sshKey }),
    adminUsername: str(args, 'adminUsername') ?? 'azureuser',
    network: {
      ...(networkPlugin === undefined ? {} : { networkPlugin }),
      ...(str(args, 'networkPluginMode') === undefined ? {} : { networkPluginMode: str(args, 'networkPluginMode')! }),
      ...(str(args, 'networkPolicy') === undefined ? {} : { networkPolicy: str(args, 'networkPolicy')! }),
      ...(podCidr === undefined ? {} : { podCidr }),
      ...(str(args, 'serviceCidr') === undefined ? {} : { serviceCidr: str(args, 'serviceCidr')! }),
      ...(str(args, 'dnsServiceIp') === undefined ? {} : { dnsServiceIp: str(args, 'dnsServiceIp')! }),
      ...(str(args, 'dockerBridgeAddress') === undefined ? {} : { dockerBridgeAddress: str(args, 'dockerBridgeAddress')! }),
      ...Object.fromEntries(DUAL_STACK_FLAGS.flatMap(({ dest }) => (str(args, dest) === undefined ? [] : [[dest, str(args, dest)!]]))),
      outboundType,
      loadBalancerSku: str(args, 'loadBalancerSku') ?? 'standard',
      ...(loadBalancerProfile ? { loadBalancerProfile } : {}),
      ...(natGatewayProfile ? { natGatewayProfile } : {}),
    },
    ...(str(args, 'assignIdentity') === undefined ? {} : { assignIdentity: str(args, 'assignIdentity')! }),
  });

  const client = ctx.client();
  const path = clusterPath(ctx, rg, name);
  const apiVersion = str(args, 'networkPluginMode') === undefined ? API.containerService : API.containerServiceOverlay;
  const initial = await client.send({ method: 'PUT', path, apiVersion, body, accept: [200, 201] });
  if (roleWork && subnetId) {
    const current = await client.send({ method: 'GET', path, apiVersion, accept: [200] });
    // A user-assigned cluster acts as its identity's principal (docs/aks-rules.md §13), as az 2.45 reads it.
    const identity = (current.body as { identity?: { principalId?: string; userAssignedIdentities?: Record<string, { principalId?: string }> } }).identity;
    const principalId = identity?.principalId ?? Object.values(identity?.userAssignedIdentities ?? {})[0]?.principalId;
    if (principalId) await assignNetworkContributor(ctx, subnetId, principalId);
    else ctx.warn('Could not create a role assignment for subnet. Are you an Owner on this subscription?');
  }
  // put_mc: when post-processing (the subnet role assignment) is needed, az polls the operation
  // to its end whatever --no-wait says.
  if (flag(args, 'noWait') && !roleWork) return undefined;
  const result = await pollLro(client, 'PUT', client.url(path, apiVersion), initial, { progress: ctx.progress(), sleep: (ms) => ctx.sleep(ms) });
  return clusterView(result);
}

/** The one pool `aks scale`/`aks update` act on (aks_scale's rules). */
function singlePool(cluster: ClusterResource, nodepoolName: string | undefined, forUpdate: boolean): PoolProfile {
  const pools = cluster['properties']?.['agentPoolProfiles'] ?? [];
  if (pools.length > 1 && !nodepoolName) {
    throw new AzCliError(
      forUpdate
        ? 'There are more than one node pool in the cluster. Please use "az aks nodepool" command to update per node pool auto scaler settings'
        : 'There are more than one node pool in the cluster. Please specify nodepool name or use az aks nodepool command to scale node pool',
    );
  }
  const pool = pools.find((p) => p['name'] === nodepoolName || (!nodepoolName && pools.length === 1));
  if (!pool) throw new AzCliError(`The nodepool "${nodepoolName ?? ''}" was not found.`);
  return pool;
}

export const aksCommands: CommandDef[] = [
  {
    name: 'aks create',
    help: 'Create a new managed Kubernetes cluster.',
    args: [
      ...CLUSTER,
      LOCATION,
      TAGS,
      { dest: 'networkPlugin', options: ['--network-plugin'], choices: ['kubenet', 'azure', 'none'], help: 'The Kubernetes network plugin' },
      { dest: 'networkPluginMode', options: ['--network-plugin-mode'], choices: ['overlay'], help: 'Network plugin mode (newer az; not in az 2.45)' },
      { dest: 'networkPolicy', options: ['--network-policy'], help: 'azure | calico | cilium' },
      { dest: 'podCidr', options: ['--pod-cidr'], help: 'Pod CIDR (kubenet, none)' },
      { dest: 'serviceCidr', options: ['--service-cidr'], help: 'Service CIDR' },
      { dest: 'dnsServiceIp', options: ['--dns-service-ip'], help: 'Kubernetes DNS service IP' },
      ...DUAL_STACK_FLAGS.map((f) => ({ dest: f.dest, options: [f.option], help: f.help })),
      { dest: 'dockerBridgeAddress', options: ['--docker-bridge-address'], help: 'Docker bridge address' },
      { dest: 'maxPods', options: ['--max-pods', '-m'], type: 'int', help: 'Maximum pods per node' },
      { dest: 'nodeCount', options: ['--node-count', '-c'], type: 'int', help: 'Nodes in the first pool (default 3)' },
      { dest: 'nodeVmSize', options: ['--node-vm-size', '-s'], help: 'VM size (default Standard_DS2_v2)' },
      { dest: 'vnetSubnetId', options: ['--vnet-subnet-id'], help: 'Resource id of an existing subnet for the nodes' },
      { dest: 'podSubnetId', options: ['--pod-subnet-id'], help: "Resource id of an existing subnet for the pods' addresses (Azure CNI)" },
      { dest: 'kubernetesVersion', options: ['--kubernetes-version', '-k'], help: "Kubernetes version (default: the server's)" },
      { dest: 'nodepoolName', options: ['--nodepool-name'], help: 'First pool name (default nodepool1)' },
      { dest: 'generateSshKeys', options: ['--generate-ssh-keys'], type: 'flag', help: 'Generate an SSH key pair if none exists' },
      { dest: 'sshKeyValue', options: ['--ssh-key-value'], help: 'Public key text or file' },
      { dest: 'noSshKey', options: ['--no-ssh-key', '-x'], type: 'flag', help: 'Do not use or create an SSH key' },
      { dest: 'adminUsername', options: ['--admin-username', '-u'], help: 'Linux admin user (default azureuser)' },
      { dest: 'dnsNamePrefix', options: ['--dns-name-prefix', '-p'], help: 'DNS prefix (default from name, group, subscription)' },
      ...AUTOSCALER_ARGS,
      { dest: 'maxSurge', options: ['--max-surge'], help: 'Upgrade surge, e.g. 1 or 33%' },
      { dest: 'loadBalancerSku', options: ['--load-balancer-sku'], choices: ['basic', 'standard'], help: 'Load balancer SKU' },
      {
        dest: 'outboundType',
        options: ['--outbound-type'],
        choices: ['loadBalancer', 'userDefinedRouting', 'managedNATGateway', 'userAssignedNATGateway'],
        help: 'Outbound type',
      },
      ...OUTBOUND_ARGS,
      { dest: 'assignIdentity', options: ['--assign-identity'], help: 'User-assigned identity resource id' },
      { dest: 'skipSubnetRoleAssignment', options: ['--skip-subnet-role-assignment'], type: 'flag', help: 'Skip the subnet role assignment' },
      NO_WAIT,
      YES,
    ],
    run: create,
  },
  {
    name: 'aks show',
    help: 'Show the details for a managed Kubernetes cluster.',
    args: CLUSTER,
    table: aksShowTable,
    async run(ctx, args) {
      return clusterView(await getCluster(ctx, args));
    },
  },
  {
    name: 'aks list',
    help: 'List managed Kubernetes clusters.',
    args: [OPTIONAL_RESOURCE_GROUP],
    table: aksListTable,
    async run(ctx, args) {
      const rg = str(args, 'resourceGroup');
      const scope = rg === undefined ? `/subscriptions/${ctx.subscriptionId()}` : groupScope(ctx.subscriptionId(), rg);
      return (await listAll(ctx, `${scope}/providers/Microsoft.ContainerService/managedClusters`, API.containerService)).map(clusterView);
    },
  },
  {
    name: 'aks delete',
    help: 'Delete a managed Kubernetes cluster.',
    args: [...CLUSTER, NO_WAIT, YES],
    async run(ctx, args) {
      await ctx.confirm('Are you sure you want to perform this operation?', flag(args, 'yes'));
      const path = clusterPath(ctx, str(args, 'resourceGroup')!, str(args, 'name')!);
      await longRunning(ctx, { method: 'DELETE', path, apiVersion: API.containerService, accept: [202, 204] }, flag(args, 'noWait'));
      return undefined;
    },
  },
  {
    name: 'aks scale',
    help: 'Scale the node pool in a managed Kubernetes cluster.',
    args: [
      ...CLUSTER,
      { dest: 'nodeCount', options: ['--node-count', '-c'], type: 'int', required: true, help: 'Number of nodes' },
      { dest: 'nodepoolName', options: ['--nodepool-name'], help: 'Node pool name' },
      NO_WAIT,
    ],
    async run(ctx, args) {
      const cluster = await getCluster(ctx, args);
      const pool = singlePool(cluster, str(args, 'nodepoolName'), false);
      if (pool['enableAutoScaling']) throw new AzCliError('Cannot scale cluster autoscaler enabled node pool.');
      pool['count'] = num(args, 'nodeCount');
      // "null out the SP profile because otherwise validation complains"
      delete cluster['properties']['servicePrincipalProfile'];
      return putCluster(ctx, args, cluster, (b) => toAzView('cs.ManagedCluster', b));
    },
  },
  {
    name: 'aks upgrade',
    help: 'Upgrade a managed Kubernetes cluster to a newer version.',
    args: [
      ...CLUSTER,
      { dest: 'kubernetesVersion', options: ['--kubernetes-version', '-k'], help: 'Version to upgrade to' },
      { dest: 'controlPlaneOnly', options: ['--control-plane-only'], type: 'flag', help: 'Upgrade only the control plane' },
      { dest: 'nodeImageOnly', options: ['--node-image-only'], type: 'flag', help: 'Only upgrade node images' },
      NO_WAIT,
      YES,
    ],
    async run(ctx, args) {
      const version = validateKubernetesVersion(str(args, 'kubernetesVersion'));
      const yes = flag(args, 'yes');
      await ctx.confirm('Kubernetes may be unavailable during cluster upgrades.\n Are you sure you want to perform this operation?', yes);
      if (version !== '' && flag(args, 'nodeImageOnly')) {
        throw new AzCliError(
          'Conflicting flags. Upgrading the Kubernetes version will also upgrade node image version. If you only want to upgrade the node version please use the "--node-image-only" option only.',
        );
      }
      if (flag(args, 'nodeImageOnly')) throw new AzCliError('--node-image-only is not supported by aksemu yet.');
      const cluster = await getCluster(ctx, args);
      const props = cluster['properties'];
      if (props['kubernetesVersion'] === version && props['provisioningState'] === 'Succeeded') {
        ctx.warn(
          `The cluster is already on version ${version} and is not in a failed state. No operations will occur when upgrading to the same version if the cluster is not in a failed state.`,
        );
      }
      props['kubernetesVersion'] = version;
      if (!flag(args, 'controlPlaneOnly')) {
        await ctx.confirm(
          `Since control-plane-only argument is not specified, this will upgrade the control plane AND all nodepools to version ${version}. Continue?`,
          yes,
        );
        for (const pool of props['agentPoolProfiles'] ?? []) {
          pool['orchestratorVersion'] = version;
          delete pool['creationData'];
        }
      } else {
        await ctx.confirm(
          `Since control-plane-only argument is specified, this will upgrade only the control plane to ${version}. Node pool will not change. Continue?`,
          yes,
        );
      }
      delete props['servicePrincipalProfile'];
      return putCluster(ctx, args, cluster, clusterView);
    },
  },
  {
    name: 'aks update',
    help: 'Update a managed Kubernetes cluster (cluster autoscaler, tags, the migration to Azure CNI Overlay).',
    args: [
      ...CLUSTER,
      ...AUTOSCALER_ARGS,
      { dest: 'disableClusterAutoscaler', options: ['--disable-cluster-autoscaler', '-d'], type: 'flag', help: 'Disable the cluster autoscaler' },
      { dest: 'updateClusterAutoscaler', options: ['--update-cluster-autoscaler', '-u'], type: 'flag', help: 'Change the autoscaler min/max' },
      // The migration to Azure CNI Overlay (update-azure-cni: from kubenet with --network-plugin azure, from node subnet with --pod-cidr).
      {
        dest: 'networkPlugin',
        options: ['--network-plugin'],
        choices: ['azure'],
        help: 'Migrate a kubenet cluster to Azure CNI (with --network-plugin-mode overlay)',
      },
      { dest: 'networkPluginMode', options: ['--network-plugin-mode'], choices: ['overlay'], help: 'Migrate to Azure CNI Overlay' },
      { dest: 'podCidr', options: ['--pod-cidr'], help: 'Pod CIDR (overlay: migrating from node subnet, or expanding it)' },
      ...OUTBOUND_ARGS,
      TAGS,
      NO_WAIT,
      YES,
    ],
    async run(ctx, args) {
      const enable = flag(args, 'enableClusterAutoscaler');
      const disable = flag(args, 'disableClusterAutoscaler');
      const update = flag(args, 'updateClusterAutoscaler');
      const tags = parseTags(list(args, 'tags'));
      if ([enable, disable, update].filter(Boolean).length > 1) {
        throw new AzCliError('Can only specify one of "--enable-cluster-autoscaler", "--disable-cluster-autoscaler" and "--update-cluster-autoscaler"');
      }
      const network = { networkPlugin: str(args, 'networkPlugin'), networkPluginMode: str(args, 'networkPluginMode'), podCidr: str(args, 'podCidr') };
      const networkAsked = Object.values(network).some((v) => v !== undefined);
      validateOutboundArgs(args);
      const outboundAsked = loadBalancerFlags(args) !== undefined || natGatewayFlags(args) !== undefined;
      if (!enable && !disable && !update && tags === undefined && !networkAsked && !outboundAsked) {
        throw new AzCliError(
          'Please specify one or more of "--enable-cluster-autoscaler" or "--disable-cluster-autoscaler" or "--update-cluster-autoscaler" or "--tags" or "--network-plugin-mode" or "--pod-cidr".',
        );
      }
      const min = num(args, 'minCount');
      const max = num(args, 'maxCount');
      if (enable || update) validateAutoscaler({ enabled: true, minCount: min, maxCount: max });
      // networkPluginMode is in the api-versions of newer az (as for aks create with it).
      const apiVersion = networkAsked ? API.containerServiceOverlay : API.containerService;
      const cluster = await getCluster(ctx, args, apiVersion);
      if (enable || disable || update) {
        const pool = singlePool(cluster, undefined, true);
        if (enable && pool['enableAutoScaling']) {
          ctx.warn(
            'Cluster autoscaler is already enabled for this node pool.\nPlease run "az aks --update-cluster-autoscaler" if you want to update min-count or max-count.',
          );
          return undefined;
        }
        if (update && !pool['enableAutoScaling'])
          throw new AzCliError(
            'Cluster autoscaler is not enabled for this node pool.\nRun "az aks nodepool update --enable-cluster-autoscaler" to enable cluster with min-count and max-count.',
          );
        if (disable && !pool['enableAutoScaling']) {
          ctx.warn('Cluster autoscaler is already disabled for this node pool.');
          return undefined;
        }
        if (disable) {
          pool['enableAutoScaling'] = false;
          delete pool['minCount'];
          delete pool['maxCount'];
        } else {
          pool['enableAutoScaling'] = true;
          pool['minCount'] = min;
          pool['maxCount'] = max;
        }
      }
      if (tags !== undefined) cluster['tags'] = tags;
      if (networkAsked) {
        const props = cluster['properties'];
        const profile = (props['networkProfile'] ?? {}) as Record<string, unknown>;
        for (const [k, v] of Object.entries(network)) if (v !== undefined) profile[k] = v;
        // The list form the GET returned says the same as the single value az sends (it sends both).
        if (network.podCidr !== undefined && Array.isArray(profile['podCidrs'])) profile['podCidrs'] = [network.podCidr];
        props['networkProfile'] = profile;
      }
      if (outboundAsked) {
        const props = cluster['properties'];
        const profile = (props['networkProfile'] ?? {}) as Record<string, unknown>;
        mergeOutboundFlags(profile, args);
        props['networkProfile'] = profile;
      }
      return putCluster(ctx, args, cluster, clusterView, apiVersion, network.networkPluginMode);
    },
  },
  {
    name: 'aks get-versions',
    help: 'Get the versions available for creating a managed Kubernetes cluster.',
    args: [{ ...LOCATION, required: true, help: 'Location' }],
    table: versionsTable,
    async run(ctx, args) {
      const location = str(args, 'location')!.replace(/\s+/g, '').toLowerCase();
      const res = await ctx.client().send({
        method: 'GET',
        path: `/subscriptions/${ctx.subscriptionId()}/providers/Microsoft.ContainerService/locations/${location}/orchestrators`,
        apiVersion: API.orchestrators,
        query: { 'resource-type': 'managedClusters' },
        accept: [200],
      });
      return toAzView('cs2017.OrchestratorVersionProfileListResult', res.body);
    },
  },
];
