// A template of 2021, as templates in the wild still pin it (docs/aks-rules.md §1.4): a VNet at Microsoft.Network
// 2020-11-01, an Azure CNI cluster (in the VNet AKS makes: a subnet of the template's would need the cluster identity
// to hold subnets/join on it first) and a second pool at Microsoft.ContainerService 2021-03-01, deployed with the
// real az (Debian 2.45, through the repository's shim) and read back at that version; the same template at a
// preview AKS has retired fails as ARM fails it, NoRegisteredProviderFound.
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AZ_SHIM_DIR } from '../../src/cli/az-env.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { AZ, loginRealAz, runRealAz } from './real-az-env.js';

const noRealAz = existsSync(AZ) ? false : `${AZ} is not installed`;

function template(aksVersion: string) {
  return {
    $schema: 'https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#',
    contentVersion: '1.0.0.0',
    parameters: { clusterName: { type: 'string' } },
    resources: [
      {
        type: 'Microsoft.Network/virtualNetworks',
        apiVersion: '2020-11-01',
        name: 'vnet2021',
        location: '[resourceGroup().location]',
        properties: { addressSpace: { addressPrefixes: ['10.10.0.0/16'] }, subnets: [{ name: 'nodes', properties: { addressPrefix: '10.10.0.0/22' } }] },
      },
      {
        type: 'Microsoft.ContainerService/managedClusters',
        apiVersion: aksVersion,
        name: "[parameters('clusterName')]",
        location: '[resourceGroup().location]',
        dependsOn: ["[resourceId('Microsoft.Network/virtualNetworks', 'vnet2021')]"],
        identity: { type: 'SystemAssigned' },
        properties: {
          dnsPrefix: "[parameters('clusterName')]",
          agentPoolProfiles: [
            {
              name: 'system',
              count: 1,
              vmSize: 'Standard_DS2_v2',
              mode: 'System',
              type: 'VirtualMachineScaleSets',
            },
          ],
          networkProfile: { networkPlugin: 'azure', serviceCidr: '10.20.0.0/16', dnsServiceIP: '10.20.0.10', dockerBridgeCidr: '172.17.0.1/16' },
        },
      },
      {
        type: 'Microsoft.ContainerService/managedClusters/agentPools',
        apiVersion: aksVersion,
        name: "[concat(parameters('clusterName'), '/user')]",
        dependsOn: ["[resourceId('Microsoft.ContainerService/managedClusters', parameters('clusterName'))]"],
        properties: {
          count: 2,
          vmSize: 'Standard_DS2_v2',
          mode: 'User',
          type: 'VirtualMachineScaleSets',
        },
      },
    ],
  };
}

describe('a 2021 template deployed with the real az', { skip: noRealAz }, () => {
  let server: TestServer;
  let home: string;
  let azHome: string;
  let env: NodeJS.ProcessEnv;
  const file = (name: string, body: unknown) => {
    const path = join(azHome, name);
    writeFileSync(path, JSON.stringify(body));
    return path;
  };

  before(async () => {
    home = tempHome();
    azHome = tempHome();
    server = await startTestServer({ home });
    env = await loginRealAz(azHome, server, { pythonPath: AZ_SHIM_DIR });
    const r = await runRealAz(env, ['group', 'create', '-l', 'eastus', '-n', 'rg2021', '-o', 'none']);
    assert.equal(r.code, 0, r.stderr);
  });
  after(async () => {
    await server.close();
    removeHome(home);
    removeHome(azHome);
  });

  test('az deployment group create at 2021-03-01: the cluster and its pool, read back at 2021-03-01', async () => {
    const r = await runRealAz(env, [
      'deployment',
      'group',
      'create',
      '-g',
      'rg2021',
      '-n',
      'aks2021',
      '--template-file',
      file('aks2021.json', template('2021-03-01')),
      '--parameters',
      'clusterName=aks2021',
      '--query',
      'properties.provisioningState',
      '-o',
      'tsv',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Succeeded\n');

    const id = `/subscriptions/${server.identity.subscriptionId}/resourceGroups/rg2021/providers/Microsoft.ContainerService/managedClusters/aks2021`;
    const shown = await runRealAz(env, ['resource', 'show', '--ids', id, '--api-version', '2021-03-01']);
    assert.equal(shown.code, 0, shown.stderr);
    const cluster = JSON.parse(shown.stdout);
    assert.equal(cluster.properties.networkProfile.networkPlugin, 'azure');
    assert.equal(cluster.properties.networkProfile.dockerBridgeCidr, '172.17.0.1/16');
    // 2021-03-01 has neither the plugin mode nor the dataplane (2023-02-01) nor the current version (2022-04-01).
    assert.equal(cluster.properties.networkProfile.networkPluginMode, undefined);
    assert.equal(cluster.properties.networkProfile.networkDataplane, undefined);
    assert.equal(cluster.properties.currentKubernetesVersion, undefined);
    assert.deepEqual(
      cluster.properties.agentPoolProfiles.map((p: { name: string; count: number }) => [p.name, p.count]),
      [
        ['system', 1],
        ['user', 2],
      ],
    );

    const pools = await runRealAz(env, ['aks', 'nodepool', 'list', '-g', 'rg2021', '--cluster-name', 'aks2021', '--query', '[].name', '-o', 'tsv']);
    assert.equal(pools.code, 0, pools.stderr);
    assert.equal(pools.stdout, 'system\nuser\n');
  });

  test('the same template at a retired preview: NoRegisteredProviderFound, as ARM answers it', async () => {
    const r = await runRealAz(env, [
      'deployment',
      'group',
      'create',
      '-g',
      'rg2021',
      '-n',
      'akspreview',
      '--template-file',
      file('akspreview.json', template('2022-03-02-preview')),
      '--parameters',
      'clusterName=akspreview',
    ]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /NoRegisteredProviderFound/);
    assert.match(r.stderr, /No registered resource provider found for location 'eastus' and API version '2022-03-02-preview' for type 'managedClusters'\./);
    const absent = await runRealAz(env, ['aks', 'show', '-g', 'rg2021', '-n', 'akspreview']);
    assert.equal(absent.code, 3, absent.stderr);
  });
});
