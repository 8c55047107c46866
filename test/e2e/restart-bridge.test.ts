// Issue 25's crash-and-restart test on a bring-your-own bridge conflist (restart-harness.ts has the suite): the
// reference bridge + host-local on each node's /24 (byo-cni-overlay-shape.ts), with the pods' routes between nodes
// in the subnet's route table (a UDR per node, next hop the node, as a BYO CNI without an overlay is run on Azure),
// so everything between nodes is in ARM and nothing but the server has to come back. host-local keeps the
// addresses in the nodes' /var/lib/cni. Root only.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ByoCniWorld, byoSkipReason } from './byo-cni-harness.js';
import { testConflist, testNodeSubnet } from './byo-cni-overlay-shape.js';
import { RG, SUBNET, VNET } from './dataplane-harness.js';
import { bearer, https } from './harness.js';
import { restartSuite } from './restart-harness.js';

restartSuite(
  'BYO bridge conflist: pods, Services and DNS come back after a restart and after a SIGKILL (aksemu start --dataplane netns)',
  {
    cluster: 'byo',
    world: () => new ByoCniWorld(),
    async setUp(world) {
      await world.setUp({ name: 'byo' });
      const nodes = await world.nodeNames();
      const nodeIps = await world.nodeIps();
      // aksemu's az has no `route-table route create`: the routes go in the route table's own PUT, as ARM takes them.
      const routes = nodeIps.map((ip, i) => ({
        name: `node${i}`,
        properties: { addressPrefix: testNodeSubnet(i), nextHopType: 'VirtualAppliance', nextHopIpAddress: ip },
      }));
      const path = `/subscriptions/${world.server.identity.subscriptionId}/resourceGroups/${RG}/providers/Microsoft.Network/routeTables/pods?api-version=2023-09-01`;
      const put = await https(world.server, 'PUT', path, {
        headers: { ...(await bearer(world.server)), 'content-type': 'application/json' },
        body: JSON.stringify({ location: 'eastus', properties: { routes } }),
      });
      assert.ok(put.status === 200 || put.status === 201, `PUT route table: ${put.status} ${put.text}`);
      await world.az(['network', 'vnet', 'subnet', 'update', '-g', RG, '--vnet-name', VNET, '-n', SUBNET, '--route-table', 'pods']);
      nodes.forEach((node, i) => {
        mkdirSync(world.confDir(node), { recursive: true });
        writeFileSync(join(world.confDir(node), '10-test-overlay.conflist'), testConflist(i));
      });
      await world.waitNodesReady();
    },
  },
  byoSkipReason(),
);
