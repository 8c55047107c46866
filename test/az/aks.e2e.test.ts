// aksemu az aks … as a user runs it: the CLI as a child process against a real server started
// in-process. The seed's commands verbatim, the three network plugins (and overlay), the subnet role
// assignment az makes for the cluster identity, scale/upgrade/update, node pools, delete, --no-wait,
// and the server's rejections as az prints them.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { bearer, https, removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { az, azOk, SEED_AKS_CREATE } from './helpers.js';

let server: TestServer;
let home: string;
let sub: string;

const NETWORK_CONTRIBUTOR = '4d97b98b-1d4f-4787-a291-c67834d212e7';

const ok = (args: string[]) => azOk(home, args);

const json = async (args: string[]) => JSON.parse(await ok(args));

function subnetId(vnet: string, subnet: string, group = 'aksRG'): string {
  return `/subscriptions/${sub}/resourceGroups/${group}/providers/Microsoft.Network/virtualNetworks/${vnet}/subnets/${subnet}`;
}

/** The cluster as a newer client reads it, straight from the wire. */
async function wire(group: string, name: string, apiVersion: string): Promise<any> {
  const path = `/subscriptions/${sub}/resourceGroups/${group}/providers/Microsoft.ContainerService/managedClusters/${name}?api-version=${apiVersion}`;
  const res = await https(server, 'GET', path, { headers: await bearer(server) });
  assert.equal(res.status, 200, res.text);
  return res.json;
}

before(async () => {
  home = tempHome();
  server = await startTestServer({ home });
  sub = server.identity.subscriptionId;
  await ok(['group', 'create', '-l', 'eastus', '-n', 'aksRG', '-o', 'none']);
});

after(async () => {
  await server.close();
  removeHome(home);
});

test('the seed, verbatim: group create, then aks create --network-plugin none --generate-ssh-keys', async () => {
  const group = await json(['group', 'create', '--location', 'eastus', '--name', 'myResourceGroup']);
  assert.equal(group.properties.provisioningState, 'Succeeded');

  const c = await json([...SEED_AKS_CREATE]);
  assert.equal(c.provisioningState, 'Succeeded');
  assert.equal(c.networkProfile.networkPlugin, 'none');
  // az prints the SDK model's view: properties flattened, Python attribute names camel-cased, every
  // attribute present (null when not sent), resourceGroup added next to ids.
  assert.equal(c.properties, undefined);
  assert.equal(c.name, 'myAKSCluster');
  assert.equal(c.id, `/subscriptions/${sub}/resourcegroups/myResourceGroup/providers/Microsoft.ContainerService/managedClusters/myAKSCluster`);
  assert.equal(c.resourceGroup, 'myResourceGroup');
  assert.equal(c.type, 'Microsoft.ContainerService/managedClusters');
  assert.equal(c.location, 'eastus');
  assert.equal(c.enableRbac, true);
  assert.equal(c.dnsPrefix, `myAKSClust-myResourceGroup-${sub.slice(0, 6)}`);
  assert.match(c.fqdn, new RegExp(`^myAKSClust-myResourceGroup-${sub.slice(0, 6)}-[0-9a-f]{8}\\.hcp\\.eastus\\.azmk8s\\.io$`));
  assert.equal(c.nodeResourceGroup, 'MC_myResourceGroup_myAKSCluster_eastus');
  assert.deepEqual(c.servicePrincipalProfile, { clientId: 'msi' });
  assert.equal(c.identity.type, 'SystemAssigned');
  assert.match(c.identity.principalId, /^[0-9a-f-]{36}$/);
  assert.equal(c.aadProfile, null);
  assert.match(c.linuxProfile.ssh.publicKeys[0].keyData, /^ssh-rsa AAAA/);
  assert.equal(c.linuxProfile.adminUsername, 'azureuser');
  assert.equal(c.networkProfile.podCidr, null, '2022-11-01 returns no BYO CNI pod CIDR');
  assert.equal(c.networkProfile.serviceCidr, '10.0.0.0/16');
  assert.equal(c.networkProfile.dnsServiceIp, '10.0.0.10');
  // AKS reports the SKU as Azure names it (docs/aks-rules.md §3.7).
  assert.equal(c.networkProfile.loadBalancerSku, 'standard');
  assert.equal(c.agentPoolProfiles.length, 1);
  const pool = c.agentPoolProfiles[0];
  assert.equal(pool.name, 'nodepool1');
  assert.equal(pool.count, 3);
  assert.equal(pool.mode, 'System');
  assert.equal(pool.osDiskSizeGb, 128);
  assert.equal(pool.vmSize, 'Standard_DS2_v2');
  assert.equal(pool.maxPods, 250, 'BYO CNI: what real clusters report (docs/aks-rules.md §3.7)');
  assert.equal(pool.orchestratorVersion, c.kubernetesVersion);
  assert.equal(pool.provisioningState, 'Succeeded');
  assert.equal(pool.vnetSubnetId, undefined, 'az drops a null vnetSubnetId');
  // The CLI sent what az 2.45 sends.
  assert.ok(
    server.logLines.some((l) =>
      /^PUT \/subscriptions\/[^ ]+\/resourceGroups\/myResourceGroup\/providers\/Microsoft.ContainerService\/managedClusters\/myAKSCluster\?api-version=2022-11-01 201 /.test(
        l,
      ),
    ),
  );
});

test('the zh seed: --network-plugin none --pod-cidr "10.10.0.0/16"', async () => {
  const c = await json([
    'aks',
    'create',
    '--location',
    'eastus',
    '--resource-group',
    'myResourceGroup',
    '--name',
    'myAKSCluster2',
    '--network-plugin',
    'none',
    '--pod-cidr',
    '10.10.0.0/16',
    '--generate-ssh-keys',
  ]);
  assert.equal(c.provisioningState, 'Succeeded');
  assert.equal(c.networkProfile.networkPlugin, 'none');
  // Kept, and shown from 2026-04-01 on (the api-version policy of the server).
  assert.equal(c.networkProfile.podCidr, null);
  assert.equal((await wire('myResourceGroup', 'myAKSCluster2', '2026-04-01')).properties.networkProfile.podCidr, '10.10.0.0/16');
});

test('kubenet: show and list as tables, one route per node, scale follows', async () => {
  const c = await json(['aks', 'create', '-g', 'aksRG', '-n', 'kn', '--network-plugin', 'kubenet', '-c', '2', '--generate-ssh-keys']);
  assert.equal(c.networkProfile.networkPlugin, 'kubenet');
  assert.equal(c.networkProfile.podCidr, '10.244.0.0/16', 'az sends no podCidr: the server defaults it');
  assert.equal(c.provisioningState, 'Succeeded');

  const show = await ok(['aks', 'show', '-g', 'aksRG', '-n', 'kn', '-o', 'table']);
  const lines = show.split('\n');
  assert.match(lines[0]!, /^Name\s+Location\s+ResourceGroup\s+KubernetesVersion\s+CurrentKubernetesVersion\s+ProvisioningState\s+Fqdn$/);
  assert.match(lines[1]!, /^-+(\s+-+){6}$/);
  assert.match(
    lines[2]!,
    new RegExp(`^kn\\s+eastus\\s+aksRG\\s+${c.kubernetesVersion}\\s+${c.currentKubernetesVersion}\\s+Succeeded\\s+${c.fqdn.replace(/\./g, '\\.')}$`),
  );
  assert.equal(lines.length, 4);

  const list = await ok(['aks', 'list', '-o', 'table']);
  assert.deepEqual(
    list
      .split('\n')
      .slice(2, -1)
      .map((l) => l.split(/\s+/).slice(0, 3).join(' ')),
    ['kn eastus aksRG', 'myAKSCluster eastus myResourceGroup', 'myAKSCluster2 eastus myResourceGroup'],
  );
  assert.equal(await ok(['aks', 'list', '-g', 'aksRG', '--query', '[].name', '-o', 'tsv']), 'kn\n');

  const routes = ['network', 'route-table', 'list', '-g', 'MC_aksRG_kn_eastus', '--query', '[0].routes | length(@)'];
  assert.equal(await ok(routes), '2\n');
  const scaled = await json(['aks', 'scale', '-g', 'aksRG', '-n', 'kn', '-c', '3']);
  assert.equal(scaled.agentPoolProfiles[0].count, 3);
  assert.equal(scaled.provisioningState, 'Succeeded');
  assert.equal(await ok(routes), '3\n');
});

test('Azure CNI on a BYO subnet: az gives the cluster identity Network Contributor on it', async () => {
  await ok([
    'network',
    'vnet',
    'create',
    '-g',
    'aksRG',
    '-n',
    'myVnet',
    '--address-prefixes',
    '10.224.0.0/12',
    '--subnet-name',
    'aks-subnet',
    '--subnet-prefixes',
    '10.224.0.0/16',
    '-o',
    'none',
  ]);
  const subnet = subnetId('myVnet', 'aks-subnet');
  const c = await json([
    'aks',
    'create',
    '-g',
    'aksRG',
    '-n',
    'cni',
    '--network-plugin',
    'azure',
    '--vnet-subnet-id',
    subnet,
    '-c',
    '2',
    '--generate-ssh-keys',
  ]);
  assert.equal(c.provisioningState, 'Succeeded');
  assert.equal(c.networkProfile.networkPlugin, 'azure');
  assert.equal(c.agentPoolProfiles[0].vnetSubnetId, subnet);
  assert.equal(c.agentPoolProfiles[0].maxPods, 30);

  const assignments = await json(['role', 'assignment', 'list', '--scope', subnet]);
  assert.equal(assignments.length, 1);
  assert.equal(assignments[0].principalId, c.identity.principalId);
  assert.equal(assignments[0].roleDefinitionName, 'Network Contributor');
  assert.ok(assignments[0].roleDefinitionId.endsWith(NETWORK_CONTRIBUTOR));
  assert.equal(assignments[0].scope, subnet);

  // With the permission in place, the identity may change the cluster.
  const scaled = await json(['aks', 'scale', '-g', 'aksRG', '-n', 'cni', '-c', '3', '--nodepool-name', 'nodepool1']);
  assert.equal(scaled.agentPoolProfiles[0].count, 3);
});

test('--skip-subnet-role-assignment: no assignment, so the cluster identity cannot join the subnet later', async () => {
  await ok(['network', 'vnet', 'subnet', 'create', '-g', 'aksRG', '--vnet-name', 'myVnet', '-n', 'skip', '--address-prefixes', '10.225.0.0/24', '-o', 'none']);
  const subnet = subnetId('myVnet', 'skip');
  const c = await json([
    'aks',
    'create',
    '-g',
    'aksRG',
    '-n',
    'skip',
    '--network-plugin',
    'azure',
    '--vnet-subnet-id',
    subnet,
    '-c',
    '2',
    '--skip-subnet-role-assignment',
    '--generate-ssh-keys',
  ]);
  assert.equal(c.provisioningState, 'Succeeded');
  assert.deepEqual(await json(['role', 'assignment', 'list', '--scope', subnet]), []);

  const refused = await az(home, ['aks', 'scale', '-g', 'aksRG', '-n', 'skip', '-c', '3']);
  assert.equal(refused.code, 1);
  assert.equal(refused.stdout, '');
  assert.match(
    refused.stderr,
    new RegExp(
      `^ERROR: \\(LinkedAuthorizationFailed\\) The client '${c.identity.principalId}' with object id '${c.identity.principalId}' has permission to perform action ` +
        `'Microsoft.Compute/virtualMachineScaleSets/write' on scope '[^']+'; however, it does not have permission to perform action ` +
        `'Microsoft.Network/virtualNetworks/subnets/join/action' on the linked scope\\(s\\) '${subnet}' or the linked scope\\(s\\) are invalid\\.\\n` +
        'Code: LinkedAuthorizationFailed\\n',
    ),
  );
  assert.match(refused.stderr, /\nTarget: agentPoolProfile\.vnetSubnetID\n$/);

  // What az would have done: Network Contributor for the identity on the subnet. Then it works.
  await ok(['role', 'assignment', 'create', '--role', 'Network Contributor', '--assignee', c.identity.principalId, '--scope', subnet, '-o', 'none']);
  assert.equal(await ok(['aks', 'scale', '-g', 'aksRG', '-n', 'skip', '-c', '3', '--query', 'agentPoolProfiles[0].count']), '3\n');
});

test('InsufficientSubnetSize on a /24 at 9 nodes, as az prints it; nothing is created', async () => {
  await ok(['network', 'vnet', 'subnet', 'create', '-g', 'aksRG', '--vnet-name', 'myVnet', '-n', 'small', '--address-prefixes', '10.226.0.0/24', '-o', 'none']);
  const r = await az(home, [
    'aks',
    'create',
    '-g',
    'aksRG',
    '-n',
    'big',
    '--network-plugin',
    'azure',
    '--vnet-subnet-id',
    subnetId('myVnet', 'small'),
    '--node-count',
    '9',
    '--generate-ssh-keys',
  ]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  const message = 'Pre-allocated IPs 279 exceeds IPs available 251 in Subnet Cidr 10.226.0.0/24, Subnet Name small. http://aka.ms/aks/insufficientsubnetsize';
  assert.equal(r.stderr, `ERROR: (InsufficientSubnetSize) ${message}\nCode: InsufficientSubnetSize\nMessage: ${message}\nTarget: agentPoolProfile.count\n`);

  const missing = await az(home, ['aks', 'show', '-g', 'aksRG', '-n', 'big']);
  assert.equal(missing.code, 3);
  assert.equal(missing.stdout, '');
  const notFound =
    "The Resource 'Microsoft.ContainerService/managedClusters/big' under resource group 'aksRG' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix";
  assert.equal(missing.stderr, `ERROR: (ResourceNotFound) ${notFound}\nCode: ResourceNotFound\nMessage: ${notFound}\n`);
  assert.deepEqual(await json(['role', 'assignment', 'list', '--scope', subnetId('myVnet', 'small')]), [], 'no role work after a refused PUT');

  // Client-side checks stop before any request, with az's words and exit codes.
  const plugin = await az(home, ['aks', 'create', '-g', 'aksRG', '-n', 'x', '--network-plugin', 'foo']);
  assert.equal(plugin.code, 2);
  assert.equal(plugin.stderr, "ERROR: az aks create: 'foo' is not a valid value for '--network-plugin'. Allowed values: kubenet, azure, none.\n");
  const explicit = await az(home, ['aks', 'create', '-g', 'aksRG', '-n', 'x', '--pod-cidr', '10.10.0.0/16']);
  assert.equal(explicit.code, 1);
  assert.equal(explicit.stderr, 'ERROR: Please explicitly specify the network plugin type\n');
});

test('upgrade -k 1.33 --yes, autoscaler on/update/off with aks update, get-versions', async () => {
  const up = await json(['aks', 'upgrade', '-g', 'aksRG', '-n', 'kn', '-k', '1.33', '--yes']);
  assert.equal(up.provisioningState, 'Succeeded');
  assert.equal(up.kubernetesVersion, '1.33');
  assert.match(up.currentKubernetesVersion, /^1\.33\.\d+$/);
  for (const p of up.agentPoolProfiles) {
    assert.equal(p.orchestratorVersion, '1.33');
    assert.equal(p.currentOrchestratorVersion, up.currentKubernetesVersion);
  }
  const unconfirmed = await az(home, ['aks', 'upgrade', '-g', 'aksRG', '-n', 'kn', '-k', '1.33']);
  assert.equal(unconfirmed.code, 1);
  assert.equal(unconfirmed.stderr, 'WARNING: Unable to prompt for confirmation as no tty available. Use --yes.\nERROR: Operation cancelled.\n');

  const q = ['--query', 'agentPoolProfiles[].[enableAutoScaling, minCount, maxCount, count]', '-o', 'tsv'];
  assert.equal(
    await ok(['aks', 'update', '-g', 'aksRG', '-n', 'kn', '--enable-cluster-autoscaler', '--min-count', '1', '--max-count', '5', ...q]),
    'True\t1\t5\t3\n',
  );
  assert.equal(
    await ok(['aks', 'update', '-g', 'aksRG', '-n', 'kn', '--update-cluster-autoscaler', '--min-count', '2', '--max-count', '6', ...q]),
    'True\t2\t6\t3\n',
  );
  const scaleRefused = await az(home, ['aks', 'scale', '-g', 'aksRG', '-n', 'kn', '-c', '4']);
  assert.equal(scaleRefused.code, 1);
  assert.equal(scaleRefused.stderr, 'ERROR: Cannot scale cluster autoscaler enabled node pool.\n');
  assert.equal(await ok(['aks', 'update', '-g', 'aksRG', '-n', 'kn', '--disable-cluster-autoscaler', ...q]), 'False\tNone\tNone\t3\n');

  const versions = await ok(['aks', 'get-versions', '-l', 'eastus', '-o', 'table']);
  const rows = versions.split('\n');
  assert.match(rows[0]!, /^KubernetesVersion\s+Upgrades$/);
  assert.ok(
    rows.some((r) => /^1\.32\.\d+\s+1\.33\.\d+/.test(r)),
    versions,
  );
  const listed = await json(['aks', 'get-versions', '-l', 'eastus']);
  assert.ok(listed.orchestrators.some((o: { orchestratorVersion: string }) => o.orchestratorVersion === up.currentKubernetesVersion));
  assert.equal(listed.orchestrators[0].orchestratorType, 'Kubernetes');
});

test('node pools: add, list, show, scale, upgrade, delete; aks scale then needs --nodepool-name', async () => {
  const added = await json(['aks', 'nodepool', 'add', '-g', 'aksRG', '--cluster-name', 'kn', '-n', 'pool2', '-c', '2', '-k', '1.32']);
  assert.equal(added.name, 'pool2');
  assert.equal(added.count, 2);
  assert.equal(added.mode, 'User');
  assert.equal(added.provisioningState, 'Succeeded');
  assert.equal(added.typePropertiesType, 'VirtualMachineScaleSets');
  assert.match(added.currentOrchestratorVersion, /^1\.32\.\d+$/);
  const clash = await az(home, ['aks', 'nodepool', 'add', '-g', 'aksRG', '--cluster-name', 'kn', '-n', 'pool2']);
  assert.equal(clash.code, 1);
  assert.equal(clash.stderr, "ERROR: Node pool pool2 already exists, please try a different name, use 'aks nodepool list' to get current list of node pool\n");

  const table = await ok(['aks', 'nodepool', 'list', '-g', 'aksRG', '--cluster-name', 'kn', '-o', 'table']);
  const lines = table.split('\n');
  assert.match(lines[0]!, /^Name\s+OsType\s+KubernetesVersion\s+VmSize\s+OsDiskSizeGB\s+Count\s+MaxPods\s+ProvisioningState\s+Mode$/);
  assert.match(lines[2]!, /^nodepool1\s+Linux\s+1\.33\s+Standard_DS2_v2\s+128\s+3\s+110\s+Succeeded\s+System$/);
  assert.match(lines[3]!, /^pool2\s+Linux\s+1\.32\s+Standard_DS2_v2\s+128\s+2\s+110\s+Succeeded\s+User$/);
  assert.equal(await ok(['aks', 'nodepool', 'show', '-g', 'aksRG', '--cluster-name', 'kn', '-n', 'pool2', '--query', 'count']), '2\n');

  assert.equal(await ok(['aks', 'nodepool', 'scale', '-g', 'aksRG', '--cluster-name', 'kn', '-n', 'pool2', '-c', '4', '--query', 'count']), '4\n');
  const same = await az(home, ['aks', 'nodepool', 'scale', '-g', 'aksRG', '--cluster-name', 'kn', '-n', 'pool2', '-c', '4']);
  assert.equal(same.code, 1);
  assert.equal(same.stderr, 'ERROR: The new node count is the same as the current node count.\n');
  const upgraded = await json(['aks', 'nodepool', 'upgrade', '-g', 'aksRG', '--cluster-name', 'kn', '-n', 'pool2', '-k', '1.33']);
  assert.equal(upgraded.orchestratorVersion, '1.33');
  assert.match(upgraded.currentOrchestratorVersion, /^1\.33\.\d+$/);
  assert.equal(upgraded.count, 4, 'the surge nodes are gone after the upgrade');
  assert.equal(await ok(['network', 'route-table', 'list', '-g', 'MC_aksRG_kn_eastus', '--query', '[0].routes | length(@)']), '7\n');

  const ambiguous = await az(home, ['aks', 'scale', '-g', 'aksRG', '-n', 'kn', '-c', '2']);
  assert.equal(ambiguous.code, 1);
  assert.equal(
    ambiguous.stderr,
    'ERROR: There are more than one node pool in the cluster. Please specify nodepool name or use az aks nodepool command to scale node pool\n',
  );
  assert.equal(
    await ok(['aks', 'scale', '-g', 'aksRG', '-n', 'kn', '-c', '2', '--nodepool-name', 'pool2', '--query', 'agentPoolProfiles[?name==`pool2`].count | [0]']),
    '2\n',
  );

  assert.equal(await ok(['aks', 'nodepool', 'delete', '-g', 'aksRG', '--cluster-name', 'kn', '-n', 'pool2']), '');
  assert.equal(await ok(['aks', 'nodepool', 'list', '-g', 'aksRG', '--cluster-name', 'kn', '--query', '[].name', '-o', 'tsv']), 'nodepool1\n');
  const gone = await az(home, ['aks', 'nodepool', 'delete', '-g', 'aksRG', '--cluster-name', 'kn', '-n', 'pool2']);
  assert.equal(gone.code, 1);
  assert.equal(gone.stderr, "ERROR: Node pool pool2 doesnt exist, use 'aks nodepool list' to get current node pool list\n");
  assert.equal(await ok(['network', 'route-table', 'list', '-g', 'MC_aksRG_kn_eastus', '--query', '[0].routes | length(@)']), '3\n');
});

test('--network-plugin-mode overlay: sent with api-version 2026-04-01; az 2.45 commands keep the mode', async () => {
  const c = await json([
    'aks',
    'create',
    '-g',
    'aksRG',
    '-n',
    'ov',
    '--network-plugin',
    'azure',
    '--network-plugin-mode',
    'overlay',
    '--pod-cidr',
    '192.168.0.0/16',
    '-c',
    '2',
    '--generate-ssh-keys',
  ]);
  assert.equal(c.provisioningState, 'Succeeded');
  assert.equal(c.networkProfile.networkPlugin, 'azure');
  assert.equal(c.networkProfile.networkPluginMode, 'overlay');
  assert.equal(c.networkProfile.podCidr, '192.168.0.0/16');
  assert.equal(c.agentPoolProfiles[0].maxPods, 250);
  assert.ok(server.logLines.some((l) => /^PUT \S+\/managedClusters\/ov\?api-version=2026-04-01 201 /.test(l)));
  // No warning: the pod CIDR is used with overlay.
  // Later commands speak 2022-11-01, which has no networkPluginMode; the cluster stays overlay.
  assert.equal(await ok(['aks', 'scale', '-g', 'aksRG', '-n', 'ov', '-c', '3', '--query', 'agentPoolProfiles[0].count']), '3\n');
  assert.equal(await ok(['aks', 'nodepool', 'add', '-g', 'aksRG', '--cluster-name', 'ov', '-n', 'user1', '-c', '1', '--query', 'maxPods']), '250\n');
  const after = await wire('aksRG', 'ov', '2026-04-01');
  assert.equal(after.properties.networkProfile.networkPluginMode, 'overlay');
  assert.equal(after.properties.networkProfile.podCidr, '192.168.0.0/16');

  const noPlugin = await az(home, ['aks', 'create', '-g', 'aksRG', '-n', 'x', '--network-plugin-mode', 'overlay']);
  assert.equal(noPlugin.code, 1);
  assert.equal(noPlugin.stderr, 'ERROR: Please explicitly specify the network plugin type\n');
});

test('--no-wait returns at once; delete --yes waits until gone; delete needs --yes without a terminal', async () => {
  assert.equal(await ok(['aks', 'create', '-g', 'aksRG', '-n', 'nw', '--network-plugin', 'kubenet', '-c', '1', '--generate-ssh-keys', '--no-wait']), '');
  let state = '';
  for (let i = 0; i < 50 && state !== 'Succeeded'; i++) {
    state = JSON.parse(await ok(['aks', 'show', '-g', 'aksRG', '-n', 'nw', '--query', 'provisioningState']));
    if (state !== 'Succeeded') {
      assert.equal(state, 'Creating');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  assert.equal(state, 'Succeeded');

  const refused = await az(home, ['aks', 'delete', '-g', 'aksRG', '-n', 'nw']);
  assert.equal(refused.code, 1);
  assert.equal(refused.stderr, 'WARNING: Unable to prompt for confirmation as no tty available. Use --yes.\nERROR: Operation cancelled.\n');
  assert.equal(await ok(['aks', 'delete', '-g', 'aksRG', '-n', 'nw', '--yes']), '');
  assert.equal((await az(home, ['aks', 'show', '-g', 'aksRG', '-n', 'nw'])).code, 3);
  // The node resource group went with it.
  assert.equal(await ok(['group', 'exists', '-n', 'MC_aksRG_nw_eastus']), 'false\n');

  assert.equal(await ok(['aks', 'delete', '-g', 'aksRG', '-n', 'skip', '--yes', '--no-wait']), '');
  let code: number | null = 0;
  for (let i = 0; i < 50 && code !== 3; i++) {
    code = (await az(home, ['aks', 'show', '-g', 'aksRG', '-n', 'skip', '-o', 'none'])).code;
    if (code !== 3) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.equal(code, 3);
});
