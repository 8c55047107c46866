// What-if of an unchanged template (issue 30, docs/clients.md §3.10): deploy a cluster with two pools in its
// agentPoolProfiles and a third as an agentPools resource, then what-if the same template: NoChange for each, as ARM's
// what-if answers once it has left out the members the service fills in (read-only ones such as provisioningState,
// powerState, fqdn, nodeImageVersion, and the defaults AKS gives: osDiskSizeGB, maxPods, the network profile's
// ranges…). A real change still shows, as a Modify of just that member, its path through the pool's index.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { az } from '../az/helpers.js';
import { arm } from '../arm/helpers.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { API, azBody, deploy, deploymentPath } from './harness.js';

function template(userCount: number, aksVersion = '2025-10-01') {
  return {
    $schema: 'https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#',
    contentVersion: '1.0.0.0',
    parameters: { clusterName: { type: 'string', defaultValue: 'wi' } },
    resources: [
      {
        type: 'Microsoft.ContainerService/managedClusters',
        apiVersion: aksVersion,
        name: "[parameters('clusterName')]",
        location: '[resourceGroup().location]',
        identity: { type: 'SystemAssigned' },
        properties: {
          dnsPrefix: "[parameters('clusterName')]",
          agentPoolProfiles: [
            { name: 'system', count: 1, vmSize: 'Standard_DS2_v2', mode: 'System', osType: 'Linux', osSKU: 'AzureLinux' },
            { name: 'user', count: userCount, vmSize: 'Standard_DS2_v2', mode: 'User', osType: 'Linux', type: 'VirtualMachineScaleSets' },
          ],
          networkProfile: { networkPlugin: 'azure', networkPluginMode: 'overlay', podCidr: '10.244.0.0/16' },
        },
      },
      {
        type: 'Microsoft.ContainerService/managedClusters/agentPools',
        apiVersion: aksVersion,
        name: "[concat(parameters('clusterName'), '/extra')]",
        dependsOn: ["[resourceId('Microsoft.ContainerService/managedClusters', parameters('clusterName'))]"],
        properties: { count: 1, vmSize: 'Standard_DS2_v2', mode: 'User' },
      },
    ],
  };
}

describe('what-if of an unchanged template', () => {
  let home: string;
  let server: TestServer;
  let sub: string;
  before(async () => {
    home = tempHome();
    server = await startTestServer({ home, lroDelayMs: 0 });
    sub = server.identity.subscriptionId;
    const rg = await arm(server, 'PUT', `/subscriptions/${sub}/resourcegroups/rgwi?api-version=2021-04-01`, { body: { location: 'eastus' } });
    assert.equal(rg.status, 201);
  });
  after(async () => {
    await server.close();
    removeHome(home);
  });

  test('deploy, then what-if the same template: NoChange for the cluster and its pools; a changed count is one Modify', async () => {
    const { final } = await deploy(server, sub, 'rgwi', 'd1', azBody(JSON.stringify(template(2))));
    assert.equal(final.body.properties.provisioningState, 'Succeeded', JSON.stringify(final.body.properties.error));

    const same = await arm(server, 'POST', `${deploymentPath(sub, 'rgwi', 'd1')}/whatIf?${API}`, { raw: azBody(JSON.stringify(template(2))) });
    assert.equal(same.status, 200, JSON.stringify(same.body));
    const byId = (id: RegExp) => same.body.properties.changes.find((c: { resourceId: string }) => id.test(c.resourceId));
    const cluster = byId(/managedClusters\/wi$/);
    assert.equal(cluster.changeType, 'NoChange', JSON.stringify(cluster.delta, null, 1));
    const pool = byId(/agentPools\/extra$/);
    assert.equal(pool.changeType, 'NoChange', JSON.stringify(pool.delta));

    const changed = await arm(server, 'POST', `${deploymentPath(sub, 'rgwi', 'd1')}/whatIf?${API}`, { raw: azBody(JSON.stringify(template(3))) });
    const modified = changed.body.properties.changes.find((c: { resourceId: string }) => /managedClusters\/wi$/.test(c.resourceId));
    assert.equal(modified.changeType, 'Modify');
    assert.deepEqual(modified.delta, [
      {
        path: 'properties.agentPoolProfiles',
        propertyChangeType: 'Array',
        children: [{ path: '1', propertyChangeType: 'Modify', children: [{ path: 'count', propertyChangeType: 'Modify', before: 2, after: 3 }] }],
      },
    ]);

    // aksemu az prints both as az does: no change for the unchanged file, the one member inside the pool's item.
    const file = (name: string, t: unknown) => {
      const path = join(home, name);
      writeFileSync(path, JSON.stringify(t));
      return path;
    };
    const quiet = await az(home, ['deployment', 'group', 'what-if', '-g', 'rgwi', '--template-file', file('same.json', template(2))]);
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.match(quiet.stdout, /  = Microsoft\.ContainerService\/managedClusters\/wi \[2025-10-01\]\n/);
    assert.match(quiet.stdout, /  = Microsoft\.ContainerService\/managedClusters\/wi\/agentPools\/extra \[2025-10-01\]\n/);
    assert.match(quiet.stdout, /Resource changes: 2 no change\.\n$/);
    const loud = await az(home, ['deployment', 'group', 'what-if', '-g', 'rgwi', '--template-file', file('more.json', template(3))]);
    assert.equal(loud.code, 0, loud.stderr);
    assert.match(loud.stdout, /      ~ properties\.agentPoolProfiles: \[\n        ~ 1:\n\n          ~ count: 2 => 3\n\n        \]\n/);
  });
});
