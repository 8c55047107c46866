// A template of 2021, as templates in the wild still pin it (docs/aks-rules.md §1.4): a VNet at Microsoft.Network
// 2020-11-01, an Azure CNI cluster (in the VNet AKS makes: a subnet of the template's would need the cluster identity
// to hold subnets/join on it first) and a second pool at Microsoft.ContainerService 2021-03-01, deployed with the
// real az (Debian 2.45, through the repository's shim) and read back at that version; the same template at a
// preview AKS has retired fails as ARM fails it, NoRegisteredProviderFound.
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AZ, runRealAz } from './real-az-env.js';
import { type RealAzSession, realAzSession } from './real-az-session.js';

const noRealAz = existsSync(AZ) ? false : `${AZ} is not installed`;

function template(aksVersion: string, clusterExtra: Record<string, unknown> = {}) {
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
          ...clusterExtra,
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
  let session: RealAzSession;
  /** `az deployment group create` of the template at `aksVersion`, written to a file, for cluster `name`. */
  const deploy = (name: string, aksVersion: string, extra: string[] = [], clusterExtra: Record<string, unknown> = {}) => {
    const path = join(session.azHome, `${name}.json`);
    writeFileSync(path, JSON.stringify(template(aksVersion, clusterExtra)));
    const args = ['deployment', 'group', 'create', '-g', 'rg2021', '-n', name, '--template-file', path, '--parameters', `clusterName=${name}`];
    return runRealAz(session.env, [...args, ...extra]);
  };

  before(async () => {
    session = await realAzSession('rg2021');
  });
  after(() => session.close());

  test('az deployment group create at 2021-03-01: the cluster and its pool, read back at 2021-03-01', async () => {
    const r = await deploy('aks2021', '2021-03-01', ['--query', 'properties.provisioningState', '-o', 'tsv']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Succeeded\n');

    const id = `/subscriptions/${session.server.identity.subscriptionId}/resourceGroups/rg2021/providers/Microsoft.ContainerService/managedClusters/aks2021`;
    const shown = await runRealAz(session.env, ['resource', 'show', '--ids', id, '--api-version', '2021-03-01']);
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

    const pools = await runRealAz(session.env, ['aks', 'nodepool', 'list', '-g', 'rg2021', '--cluster-name', 'aks2021', '--query', '[].name', '-o', 'tsv']);
    assert.equal(pools.code, 0, pools.stderr);
    assert.equal(pools.stdout, 'system\nuser\n');
  });

  test('az deployment group what-if of the same template: no change for the VNet, the cluster and its pool', async () => {
    const path = join(session.azHome, 'aks2021-again.json');
    writeFileSync(path, JSON.stringify(template('2021-03-01')));
    const r = await runRealAz(session.env, ['deployment', 'group', 'what-if', '-g', 'rg2021', '--template-file', path, '--parameters', 'clusterName=aks2021']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /= Microsoft\.ContainerService\/managedClusters\/aks2021 \[2021-03-01\]/);
    assert.match(r.stdout, /= Microsoft\.ContainerService\/managedClusters\/aks2021\/agentPools\/user \[2021-03-01\]/);
    assert.doesNotMatch(r.stdout, /^\s+~ /m, r.stdout);
    assert.match(r.stdout, /Resource changes: 3 no change\./);
  });

  test('the same template at a retired preview: NoRegisteredProviderFound, as ARM answers it', async () => {
    const r = await deploy('akspreview', '2022-03-02-preview');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /NoRegisteredProviderFound/);
    assert.match(r.stderr, /No registered resource provider found for location 'eastus' and API version '2022-03-02-preview' for type 'managedClusters'\./);
    const absent = await runRealAz(session.env, ['aks', 'show', '-g', 'rg2021', '-n', 'akspreview']);
    assert.equal(absent.code, 3, absent.stderr);
  });

  // Unknown members (docs/aks-rules.md §1.5): a 2021-03-01 template carrying storageProfile (a member from 2022-04-01
  // on) deploys, the member ignored; at 2024-02-01 a member that version lacks fails the deployment with the RP's
  // UnmarshalError.
  test('az deployment group create with a member the version lacks: ignored at 2021-03-01, UnmarshalError at 2024-02-01', async () => {
    const ok = await deploy('aksstor', '2021-03-01', ['--query', 'properties.provisioningState', '-o', 'tsv'], {
      storageProfile: { diskCSIDriver: { enabled: false } },
    });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout, 'Succeeded\n');
    const id = `/subscriptions/${session.server.identity.subscriptionId}/resourceGroups/rg2021/providers/Microsoft.ContainerService/managedClusters/aksstor`;
    const shown = await runRealAz(session.env, [
      'resource',
      'show',
      '--ids',
      id,
      '--api-version',
      '2022-04-01',
      '--query',
      'properties.storageProfile.diskCSIDriver.enabled',
    ]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(shown.stdout.trim(), 'true', 'the ignored member was not stored: AKS default stands');

    // (2024-02-01 has no dockerBridgeCidr either: removed in 2023-04-01, so the profile goes without it.)
    const refused = await deploy('aksunm', '2024-02-01', [], {
      networkProfile: { networkPlugin: 'azure', serviceCidr: '10.20.0.0/16', dnsServiceIP: '10.20.0.10' },
      storageProfil: {},
    });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /UnmarshalError/);
    assert.match(refused.stderr, /json: unknown field \\?"storageProfil\\?" Check that the field is in the right location/);
  });
});
