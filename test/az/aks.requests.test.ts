// The requests `aksemu az aks …` builds, checked against what az 2.45 sends (docs/clients.md §3.4–§3.8), with a
// fake ARM in-process (aks.e2e.test.ts runs the same commands against the real server).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeAz, on, BASE, SUB, SEED_AKS_CREATE, type Recorded } from './helpers.js';

const RG = `/subscriptions/${SUB}/resourceGroups/myResourceGroup`;
const MC = `${RG}/providers/Microsoft.ContainerService/managedClusters/myAKSCluster`;
const OP = `${BASE}/subscriptions/${SUB}/providers/Microsoft.ContainerService/locations/eastus/operations/op1?api-version=2022-11-01`;

function cluster(state: string, extra: Record<string, unknown> = {}) {
  return {
    id: MC.replace('resourceGroups', 'resourcegroups'),
    name: 'myAKSCluster',
    type: 'Microsoft.ContainerService/ManagedClusters',
    location: 'eastus',
    identity: { type: 'SystemAssigned', principalId: 'pid', tenantId: 'tid' },
    sku: { name: 'Basic', tier: 'Free' },
    properties: {
      provisioningState: state,
      kubernetesVersion: '1.25.5',
      currentKubernetesVersion: '1.25.5',
      fqdn: 'myaksclust-myresourcegroup-000000-abcd1234.hcp.eastus.azmk8s.io',
      servicePrincipalProfile: { clientId: 'msi' },
      maxAgentPools: 100,
      agentPoolProfiles: [
        { name: 'nodepool1', count: 3, vmSize: 'Standard_DS2_v2', osDiskSizeGB: 128, mode: 'System', provisioningState: state, enableAutoScaling: false },
      ],
      networkProfile: { networkPlugin: 'none', serviceCidr: '10.0.0.0/16', dnsServiceIP: '10.0.0.10' },
      ...extra,
    },
  };
}

/** PUT → 201 Creating + Azure-AsyncOperation; the operation is InProgress once, then Succeeded. */
function clusterLro(): ((r: Recorded) => ReturnType<ReturnType<typeof on>>)[] {
  let polls = 0;
  return [
    on('PUT', MC, { status: 201, headers: { 'azure-asyncoperation': OP, 'retry-after': '1' }, body: cluster('Creating') }),
    on('GET', new URL(OP).pathname, () => ({ status: 200, body: { status: polls++ === 0 ? 'InProgress' : 'Succeeded' } })),
    on('GET', MC, { status: 200, body: cluster('Succeeded') }),
  ];
}

const SEED = [...SEED_AKS_CREATE, '--ssh-key-value', 'ssh-rsa AAAAtest'];

test('aks create --network-plugin none: az 2.45 body, api-version, polling, final GET, printed cluster', async () => {
  const r = await fakeAz(SEED, clusterLro());
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    r.requests.map((q) => `${q.method} ${q.path}`),
    [`PUT ${MC}`, `GET ${new URL(OP).pathname}`, `GET ${new URL(OP).pathname}`, `GET ${MC}`],
  );
  const put = r.requests[0]!;
  assert.equal(put.query.get('api-version'), '2022-11-01');
  assert.equal(put.headers['commandname'], 'aks create');
  assert.equal(put.headers['parametersetname'], '--location --resource-group --name --network-plugin --generate-ssh-keys --ssh-key-value');
  assert.equal(
    JSON.stringify(put.body),
    JSON.stringify({
      location: 'eastus',
      identity: { type: 'SystemAssigned' },
      properties: {
        kubernetesVersion: '',
        dnsPrefix: `myAKSClust-myResourceGroup-${SUB.slice(0, 6)}`,
        agentPoolProfiles: [
          {
            count: 3,
            vmSize: 'Standard_DS2_v2',
            osDiskSizeGB: 0,
            osType: 'Linux',
            enableAutoScaling: false,
            type: 'VirtualMachineScaleSets',
            mode: 'System',
            orchestratorVersion: '',
            upgradeSettings: {},
            enableNodePublicIP: false,
            scaleSetPriority: 'Regular',
            scaleSetEvictionPolicy: 'Delete',
            spotMaxPrice: -1,
            nodeTaints: [],
            enableEncryptionAtHost: false,
            enableUltraSSD: false,
            enableFIPS: false,
            name: 'nodepool1',
          },
        ],
        linuxProfile: { adminUsername: 'azureuser', ssh: { publicKeys: [{ keyData: 'ssh-rsa AAAAtest' }] } },
        addonProfiles: {},
        enableRBAC: true,
        networkProfile: { networkPlugin: 'none', outboundType: 'loadBalancer', loadBalancerSku: 'standard' },
        disableLocalAccounts: false,
        storageProfile: {},
      },
    }),
  );
  const out = JSON.parse(r.stdout);
  // az's view: flattened, camel-cased Python names, model nulls, resourceGroup beside id.
  assert.equal(out.provisioningState, 'Succeeded');
  assert.equal(out.networkProfile.networkPlugin, 'none');
  assert.equal(out.networkProfile.dnsServiceIp, '10.0.0.10');
  assert.equal(out.enableRbac, null);
  assert.equal(out.resourceGroup, 'myResourceGroup');
  assert.equal(out.agentPoolProfiles[0].osDiskSizeGb, 128);
  assert.ok(!('vnetSubnetId' in out.agentPoolProfiles[0]), '_remove_nulls drops a null vnetSubnetId');
  assert.ok(!('tags' in out) && !('secret' in out.servicePrincipalProfile));
  assert.ok(r.stdout.startsWith('{\n  "aadProfile": null,\n  "addonProfiles": null,\n'));
});

test('aks create network profiles per flags (docs/clients.md §3.4.2 table)', async () => {
  const profile = async (flags: string[]) => {
    const r = await fakeAz(
      ['aks', 'create', '-g', 'myResourceGroup', '-n', 'myAKSCluster', '-l', 'eastus', '--ssh-key-value', 'ssh-rsa A', '--no-wait', ...flags],
      clusterLro(),
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.requests.length, 1, '--no-wait: only the PUT');
    assert.equal(r.stdout, '');
    return { body: r.requests[0]!.body, stderr: r.stderr };
  };
  assert.deepEqual((await profile(['--network-plugin', 'none', '--pod-cidr', '10.10.0.0/16'])).body.properties.networkProfile, {
    networkPlugin: 'none',
    podCidr: '10.10.0.0/16',
    outboundType: 'loadBalancer',
    loadBalancerSku: 'standard',
  });
  assert.deepEqual((await profile(['--network-plugin', 'kubenet'])).body.properties.networkProfile, {
    networkPlugin: 'kubenet',
    outboundType: 'loadBalancer',
    loadBalancerSku: 'standard',
  });
  assert.deepEqual((await profile([])).body.properties.networkProfile, {
    networkPlugin: 'kubenet',
    podCidr: '10.244.0.0/16',
    serviceCidr: '10.0.0.0/16',
    dnsServiceIP: '10.0.0.10',
    dockerBridgeCidr: '172.17.0.1/16',
    outboundType: 'loadBalancer',
    loadBalancerSku: 'standard',
  });
  // Newer az's dual-stack lists: split on commas, after loadBalancerSku in the SDK's order; no plugin sent.
  assert.equal(
    JSON.stringify((await profile(['--ip-families', 'ipv4,ipv6', '--pod-cidrs', '10.244.0.0/16,fd12:3456:789a::/64'])).body.properties.networkProfile),
    JSON.stringify({
      outboundType: 'loadBalancer',
      loadBalancerSku: 'standard',
      podCidrs: ['10.244.0.0/16', 'fd12:3456:789a::/64'],
      ipFamilies: ['ipv4', 'ipv6'],
    }),
  );
  assert.deepEqual((await profile(['--network-plugin', 'kubenet', '--ip-families', ''])).body.properties.networkProfile.ipFamilies, []);
  const subnet = `${RG}/providers/Microsoft.Network/virtualNetworks/myVnet/subnets/aks-subnet`;
  const azure = await profile([
    '--network-plugin',
    'azure',
    '--vnet-subnet-id',
    subnet,
    '--service-cidr',
    '10.0.0.0/16',
    '--dns-service-ip',
    '10.0.0.10',
    '-m',
    '30',
    '--skip-subnet-role-assignment',
  ]);
  assert.deepEqual(azure.body.properties.networkProfile, {
    networkPlugin: 'azure',
    serviceCidr: '10.0.0.0/16',
    dnsServiceIP: '10.0.0.10',
    outboundType: 'loadBalancer',
    loadBalancerSku: 'standard',
  });
  const pool = azure.body.properties.agentPoolProfiles[0];
  assert.deepEqual(Object.keys(pool).slice(0, 6), ['count', 'vmSize', 'osDiskSizeGB', 'vnetSubnetID', 'maxPods', 'osType']);
  assert.equal(pool.vnetSubnetID, subnet);
  assert.equal(pool.maxPods, 30);
  const podCidr = await profile(['--network-plugin', 'azure', '--pod-cidr', '10.244.0.0/16']);
  assert.equal(podCidr.body.properties.networkProfile.podCidr, '10.244.0.0/16');
  assert.equal(
    podCidr.stderr,
    'WARNING: When using --network-plugin azure without the preview feature --network-plugin-mode overlay the provided pod CIDR "10.244.0.0/16" will be overwritten with the subnet CIDR.\n',
  );
  const scaled = await profile([
    '--network-plugin',
    'kubenet',
    '-c',
    '5',
    '-s',
    'Standard_D4s_v3',
    '-k',
    '1.25',
    '--enable-cluster-autoscaler',
    '--min-count',
    '1',
    '--max-count',
    '5',
    '--max-surge',
    '33%',
    '--nodepool-name',
    'sys',
  ]);
  const p = scaled.body.properties.agentPoolProfiles[0];
  assert.deepEqual(
    [
      p.count,
      p.vmSize,
      p.orchestratorVersion,
      p.enableAutoScaling,
      p.minCount,
      p.maxCount,
      p.upgradeSettings,
      p.name,
      scaled.body.properties.kubernetesVersion,
    ],
    [5, 'Standard_D4s_v3', '1.25', true, 1, 5, { maxSurge: '33%' }, 'sys', '1.25'],
  );
});

test('aks create without -l reads the group location first', async () => {
  const r = await fakeAz(
    ['aks', 'create', '-g', 'myResourceGroup', '-n', 'myAKSCluster', '--ssh-key-value', 'ssh-rsa A', '--no-wait'],
    [on('GET', `/subscriptions/${SUB}/resourcegroups/myResourceGroup`, { status: 200, body: { location: 'westus2' } }), ...clusterLro()],
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.requests[0]!.query.get('api-version'), '2021-04-01');
  assert.equal(r.requests[1]!.body.location, 'westus2');
});

test('aks create: az 2.45 client-side errors, no request sent (docs/clients.md §3.12)', async () => {
  const cases: [string[], string, number][] = [
    [['--pod-cidr', '10.0.0.0/16'], 'ERROR: Please explicitly specify the network plugin type\n', 1],
    [['--network-plugin', 'foo'], "ERROR: az aks create: 'foo' is not a valid value for '--network-plugin'. Allowed values: kubenet, azure, none.\n", 2],
    [['--max-pods', 'abc'], "ERROR: argument --max-pods/-m: invalid int value: 'abc'\n", 2],
    [['--vnet-subnet-id', 'not-an-id'], 'ERROR: --vnet-subnet-id is not a valid Azure resource ID.\n', 1],
    [['--nodepool-name', 'toolongname1234'], 'ERROR: --nodepool-name can contain at most 12 characters\n', 1],
    [['--nodepool-name', 'pool-1'], 'ERROR: --nodepool-name should contain only alphanumeric characters\n', 1],
    [['--network-plugin', 'azure', '--network-policy', 'Calico'], 'ERROR: --network-policy should be provided in lowercase\n', 1],
    [
      ['--kubernetes-version', '1.x'],
      'ERROR: --kubernetes-version should be the full version number or major.minor version number, such as "1.7.12" or "1.7"\n',
      1,
    ],
    [['--enable-cluster-autoscaler'], 'ERROR: Please specify both min-count and max-count when --enable-cluster-autoscaler enabled\n', 1],
    [
      ['--enable-cluster-autoscaler', '--min-count', '5', '--max-count', '3'],
      'ERROR: Value of min-count should be less than or equal to value of max-count\n',
      1,
    ],
    [['--min-count', '-1'], 'ERROR: --min-count must be in the range [0,1000]\n', 1],
    [
      ['--outbound-type', 'userDefinedRouting'],
      'ERROR: --vnet-subnet-id must be specified for userDefinedRouting and it must be pre-configured with a route table with egress rules\n',
      1,
    ],
  ];
  for (const [flags, message, code] of cases) {
    const r = await fakeAz(['aks', 'create', '-g', 'rg', '-n', 'c', '-l', 'eastus', '--ssh-key-value', 'ssh-rsa A', ...flags], []);
    assert.equal(r.stderr, message, flags.join(' '));
    assert.equal(r.code, code, flags.join(' '));
    assert.equal(r.requests.length, 0);
  }
  const badName = await fakeAz(['aks', 'create', '-g', 'rg', '-n', 'bad name!', '-l', 'eastus'], []);
  assert.equal(badName.stderr, 'ERROR: --name cannot exceed 63 characters and can only contain letters, numbers, underscores (_) or dashes (-).\n');
});

test('aks create --vnet-subnet-id: atScope check, then Network Contributor for the cluster identity', async () => {
  const subnet = `${RG}/providers/Microsoft.Network/virtualNetworks/myVnet/subnets/aks-subnet`;
  const ncId = `/subscriptions/${SUB}/providers/Microsoft.Authorization/roleDefinitions/4d97b98b-1d4f-4787-a291-c67834d212e7`;
  const r = await fakeAz(
    [
      'aks',
      'create',
      '-g',
      'myResourceGroup',
      '-n',
      'myAKSCluster',
      '-l',
      'eastus',
      '--ssh-key-value',
      'ssh-rsa A',
      '--network-plugin',
      'azure',
      '--vnet-subnet-id',
      subnet,
    ],
    [
      on('GET', `${subnet}/providers/Microsoft.Authorization/roleAssignments`, { status: 200, body: { value: [] } }),
      on('GET', `${subnet}/providers/Microsoft.Authorization/roleDefinitions`, {
        status: 200,
        body: { value: [{ id: ncId, properties: { roleName: 'Network Contributor' } }] },
      }),
      (q) => (q.method === 'PUT' && q.path.startsWith(`${subnet}/providers/Microsoft.Authorization/roleAssignments/`) ? { status: 201, body: {} } : undefined),
      ...clusterLro(),
    ],
  );
  assert.equal(r.code, 0, r.stderr);
  const seq = r.requests.map(
    (q) =>
      `${q.method} ${q.path
        .replace(subnet, '{subnet}')
        .replace(MC, '{mc}')
        .replace(/roleAssignments\/[0-9a-f-]{36}$/, 'roleAssignments/{guid}')}`,
  );
  assert.deepEqual(seq.slice(0, 5), [
    'GET {subnet}/providers/Microsoft.Authorization/roleAssignments',
    'PUT {mc}',
    'GET {mc}',
    'GET {subnet}/providers/Microsoft.Authorization/roleDefinitions',
    'PUT {subnet}/providers/Microsoft.Authorization/roleAssignments/{guid}',
  ]);
  assert.equal(r.requests[0]!.query.get('$filter'), 'atScope()');
  assert.equal(r.requests[0]!.query.get('api-version'), '2020-04-01-preview');
  assert.equal(r.requests[3]!.query.get('$filter'), "roleName eq 'Network Contributor'");
  assert.deepEqual(r.requests[4]!.body, { properties: { roleDefinitionId: ncId, principalId: 'pid' } });
});

test('aks show / list: exit 3 on 404, table views', async () => {
  const missing = await fakeAz(
    ['aks', 'show', '-g', 'myResourceGroup', '-n', 'nope'],
    [
      () => ({
        status: 404,
        body: {
          error: {
            code: 'ResourceNotFound',
            message: "The Resource 'Microsoft.ContainerService/managedClusters/nope' under resource group 'myResourceGroup' was not found.",
          },
        },
      }),
    ],
  );
  assert.equal(missing.code, 3);
  assert.match(missing.stderr, /^ERROR: \(ResourceNotFound\) The Resource .* was not found\.\nCode: ResourceNotFound\nMessage: /);
  const list = await fakeAz(
    ['aks', 'list', '-o', 'table'],
    [on('GET', `/subscriptions/${SUB}/providers/Microsoft.ContainerService/managedClusters`, { status: 200, body: { value: [cluster('Succeeded')] } })],
  );
  assert.equal(list.code, 0, list.stderr);
  assert.equal(
    list.stdout,
    'Name          Location    ResourceGroup    KubernetesVersion    CurrentKubernetesVersion    ProvisioningState    Fqdn\n' +
      '------------  ----------  ---------------  -------------------  --------------------------  -------------------  ---------------------------------------------------------------\n' +
      'myAKSCluster  eastus      myResourceGroup  1.25.5               1.25.5                      Succeeded            myaksclust-myresourcegroup-000000-abcd1234.hcp.eastus.azmk8s.io\n',
  );
  const byGroup = await fakeAz(
    ['aks', 'list', '-g', 'myResourceGroup'],
    [on('GET', `${RG}/providers/Microsoft.ContainerService/managedClusters`, { status: 200, body: { value: [] } })],
  );
  assert.equal(byGroup.stdout, '[]\n');
});

test('aks delete: confirmation, 202 + async operation, no final GET; a failed operation prints its error', async () => {
  const refused = await fakeAz(['aks', 'delete', '-g', 'myResourceGroup', '-n', 'myAKSCluster'], []);
  assert.equal(refused.code, 1);
  assert.equal(refused.stderr, 'WARNING: Unable to prompt for confirmation as no tty available. Use --yes.\nERROR: Operation cancelled.\n');
  assert.equal(refused.requests.length, 0);
  const ok = await fakeAz(
    ['aks', 'delete', '-g', 'myResourceGroup', '-n', 'myAKSCluster', '--yes'],
    [
      on('DELETE', MC, { status: 202, headers: { 'azure-asyncoperation': OP, location: `${BASE}/elsewhere`, 'retry-after': '1' } }),
      on('GET', new URL(OP).pathname, { status: 200, body: { status: 'Succeeded' } }),
    ],
  );
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(
    ok.requests.map((q) => q.method),
    ['DELETE', 'GET'],
  );
  const failed = await fakeAz(
    ['aks', 'delete', '-g', 'myResourceGroup', '-n', 'myAKSCluster', '-y'],
    [
      on('DELETE', MC, { status: 202, headers: { 'azure-asyncoperation': OP } }),
      on('GET', new URL(OP).pathname, { status: 200, body: { status: 'Failed', error: { code: 'X', message: 'Y' } } }),
    ],
  );
  assert.equal(failed.code, 1);
  assert.equal(failed.stderr, 'ERROR: (X) Y\nCode: X\nMessage: Y\n');
  const badStatus = await fakeAz(['aks', 'delete', '-g', 'myResourceGroup', '-n', 'myAKSCluster', '-y'], [on('DELETE', MC, { status: 200, body: {} })]);
  assert.equal(badStatus.stderr, "ERROR: Operation returned an invalid status 'OK'\nContent: {}\n");
});

test('aks scale / upgrade / update: GET, then PUT of the read object without read-only members', async () => {
  const put = (r: Recorded) => ({
    status: 200,
    headers: { 'azure-asyncoperation': OP },
    body: { ...cluster('Updating'), properties: { ...cluster('Updating').properties, ...r.body.properties } },
  });
  const handlers = () => [
    on('GET', MC, { status: 200, body: cluster('Succeeded') }),
    on('PUT', MC, put),
    on('GET', new URL(OP).pathname, { status: 200, body: { status: 'Succeeded' } }),
  ];
  const scale = await fakeAz(['aks', 'scale', '-g', 'myResourceGroup', '-n', 'myAKSCluster', '-c', '4'], handlers());
  assert.equal(scale.code, 0, scale.stderr);
  const body = scale.requests[1]!.body;
  assert.equal(body.properties.agentPoolProfiles[0].count, 4);
  assert.ok(!('provisioningState' in body.properties) && !('fqdn' in body.properties) && !('id' in body));
  assert.ok(!('servicePrincipalProfile' in body.properties));
  assert.ok(!('provisioningState' in body.properties.agentPoolProfiles[0]));
  assert.deepEqual(body.identity, { type: 'SystemAssigned' });

  const upgrade = await fakeAz(['aks', 'upgrade', '-g', 'myResourceGroup', '-n', 'myAKSCluster', '-k', '1.26.0', '--yes'], handlers());
  assert.equal(upgrade.code, 0, upgrade.stderr);
  assert.equal(upgrade.requests[1]!.body.properties.kubernetesVersion, '1.26.0');
  assert.equal(upgrade.requests[1]!.body.properties.agentPoolProfiles[0].orchestratorVersion, '1.26.0');
  const noYes = await fakeAz(['aks', 'upgrade', '-g', 'myResourceGroup', '-n', 'myAKSCluster', '-k', '1.26.0'], handlers());
  assert.equal(noYes.code, 1);
  assert.equal(noYes.requests.length, 0);

  const update = await fakeAz(
    ['aks', 'update', '-g', 'myResourceGroup', '-n', 'myAKSCluster', '--enable-cluster-autoscaler', '--min-count', '1', '--max-count', '4'],
    handlers(),
  );
  assert.equal(update.code, 0, update.stderr);
  const pool = update.requests[1]!.body.properties.agentPoolProfiles[0];
  assert.deepEqual([pool.enableAutoScaling, pool.minCount, pool.maxCount], [true, 1, 4]);
});

test('aks get-versions: orchestrators at api-version 2019-04-01 with resource-type, az table', async () => {
  const r = await fakeAz(
    ['aks', 'get-versions', '-l', 'eastus', '-o', 'table'],
    [
      on('GET', `/subscriptions/${SUB}/providers/Microsoft.ContainerService/locations/eastus/orchestrators`, {
        status: 200,
        body: {
          id: 'x',
          name: 'default',
          type: 'Microsoft.ContainerService/locations/orchestrators',
          properties: {
            orchestrators: [
              { orchestratorType: 'Kubernetes', orchestratorVersion: '1.24.9', upgrades: [{ orchestratorType: 'Kubernetes', orchestratorVersion: '1.25.5' }] },
              { orchestratorType: 'Kubernetes', orchestratorVersion: '1.25.5', default: true, upgrades: null },
            ],
          },
        },
      }),
    ],
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.requests[0]!.query.get('api-version'), '2019-04-01');
  assert.equal(r.requests[0]!.query.get('resource-type'), 'managedClusters');
  assert.equal(
    r.stdout,
    'KubernetesVersion    Upgrades\n-------------------  --------------\n1.25.5               None available\n1.24.9               1.25.5\n',
  );
});

test('aks create --vnet-subnet-id --no-wait: az still waits, because the role assignment is post-processing (put_mc)', async () => {
  const subnet = `${RG}/providers/Microsoft.Network/virtualNetworks/myVnet/subnets/aks-subnet`;
  const ncId = `/subscriptions/${SUB}/providers/Microsoft.Authorization/roleDefinitions/4d97b98b-1d4f-4787-a291-c67834d212e7`;
  const handlers = [
    on('GET', `${subnet}/providers/Microsoft.Authorization/roleAssignments`, { status: 200, body: { value: [] } }),
    on('GET', `${subnet}/providers/Microsoft.Authorization/roleDefinitions`, {
      status: 200,
      body: { value: [{ id: ncId, properties: { roleName: 'Network Contributor' } }] },
    }),
    (q: Recorded) =>
      q.method === 'PUT' && q.path.startsWith(`${subnet}/providers/Microsoft.Authorization/roleAssignments/`) ? { status: 201, body: {} } : undefined,
    ...clusterLro(),
  ];
  const base = [
    'aks',
    'create',
    '-g',
    'myResourceGroup',
    '-n',
    'myAKSCluster',
    '-l',
    'eastus',
    '--ssh-key-value',
    'ssh-rsa A',
    '--network-plugin',
    'azure',
    '--vnet-subnet-id',
    subnet,
    '--no-wait',
  ];
  const r = await fakeAz(base, handlers);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.requests.at(-1)!.method, 'GET');
  assert.ok(
    r.requests.some((q) => q.path === new URL(OP).pathname),
    'the operation was polled',
  );
  assert.notEqual(r.stdout, '');
  // Without role work, --no-wait is only the PUT.
  const skipped = await fakeAz([...base, '--skip-subnet-role-assignment'], clusterLro());
  assert.equal(skipped.code, 0, skipped.stderr);
  assert.deepEqual(
    skipped.requests.map((q) => `${q.method} ${q.path}`),
    [`PUT ${MC}`],
  );
  assert.equal(skipped.stdout, '');
});

test('aks create --network-plugin-mode overlay: the one request az 2.45 cannot make goes out at 2026-04-01', async () => {
  const r = await fakeAz(
    [
      'aks',
      'create',
      '-g',
      'myResourceGroup',
      '-n',
      'myAKSCluster',
      '-l',
      'eastus',
      '--ssh-key-value',
      'ssh-rsa A',
      '--network-plugin',
      'azure',
      '--network-plugin-mode',
      'overlay',
      '--pod-cidr',
      '192.168.0.0/16',
    ],
    [
      on('PUT', MC, {
        status: 201,
        headers: { 'azure-asyncoperation': OP.replace('2022-11-01', '2026-04-01'), 'retry-after': '1' },
        body: cluster('Creating'),
      }),
      on('GET', new URL(OP).pathname, { status: 200, body: { status: 'Succeeded' } }),
      on('GET', MC, { status: 200, body: cluster('Succeeded') }),
    ],
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '', 'no pod CIDR warning with overlay');
  assert.deepEqual(
    r.requests.map((q) => q.query.get('api-version')),
    ['2026-04-01', '2026-04-01', '2026-04-01'],
  );
  assert.deepEqual(r.requests[0]!.body.properties.networkProfile, {
    networkPlugin: 'azure',
    networkPluginMode: 'overlay',
    podCidr: '192.168.0.0/16',
    outboundType: 'loadBalancer',
    loadBalancerSku: 'standard',
  });
});
