// ipam.ts on its own, against a real SQLite store: allocation order, all-or-nothing, rolled-back
// transactions, restarts, NICs and the model's view of a subnet.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import {
  addressesInUse,
  addServiceAssociationLink,
  AddressSpaceExhaustedError,
  allocateAddresses,
  deleteNic,
  freeAddressCount,
  putNic,
  putNics,
  releaseOwner,
  releaseOwnersUnder,
  subnetInfo,
} from '../../src/providers/network/ipam.js';
import { associateRouteTable, putRouteTable, putVirtualNetwork } from '../../src/providers/network/managed.js';
import type { NetworkInterface } from '../../src/providers/network/models.js';
import { writeNetworkInterface } from '../../src/providers/network/nicModel.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';

const SUB = '/subscriptions/00000000-0000-0000-0000-000000000001';
const RG = `${SUB}/resourceGroups/rg`;
const MC = `${SUB}/resourceGroups/MC_rg_c_eastus`;
const VNET = `${RG}/providers/Microsoft.Network/virtualNetworks/v`;
const NODES = `${VNET}/subnets/nodes`;
const SMALL = `${VNET}/subnets/small`;
const nicId = (name: string) => `${MC}/providers/Microsoft.Network/networkInterfaces/${name}`;

function seed(store: Store): void {
  store.transaction(() => {
    for (const id of [RG, MC]) {
      store.put(id, {
        id,
        name: id.split('/').pop(),
        type: 'Microsoft.Resources/resourceGroups',
        location: 'eastus',
        properties: { provisioningState: 'Succeeded' },
      });
    }
    putVirtualNetwork(store, {
      id: VNET,
      location: 'eastus',
      addressPrefixes: ['10.0.0.0/16'],
      subnets: [
        { name: 'nodes', addressPrefix: '10.0.1.0/24' },
        { name: 'small', addressPrefix: '10.0.2.0/29' },
      ],
    });
  });
}

describe('ipam', () => {
  let dir: string;
  let file: string;
  let store: Store;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'aksemu-ipam-'));
    file = join(dir, 'state.db');
    store = new SqliteStore(file);
    seed(store);
  });

  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('addresses ascend from .4, per owner, and free counts follow', () => {
    assert.equal(freeAddressCount(store, NODES), 251);
    assert.deepEqual(allocateAddresses(store, NODES, 'a', 3), ['10.0.1.4', '10.0.1.5', '10.0.1.6']);
    assert.deepEqual(allocateAddresses(store, NODES, 'b', 1), ['10.0.1.7']);
    assert.deepEqual(allocateAddresses(store, NODES, 'a', 1), ['10.0.1.8']);
    assert.equal(freeAddressCount(store, NODES), 246);
    assert.deepEqual(
      addressesInUse(store, NODES).map((u) => `${u.owner}:${u.address}`),
      ['a:10.0.1.4', 'a:10.0.1.5', 'a:10.0.1.6', 'a:10.0.1.8', 'b:10.0.1.7'],
    );
    assert.equal(releaseOwner(store, 'a'), 4);
    assert.deepEqual(allocateAddresses(store, NODES, 'c', 2), ['10.0.1.4', '10.0.1.5']);
  });

  test('all or nothing: a request larger than what is free takes nothing and throws the typed error', () => {
    // A /29 has 8 − 5 = 3 usable addresses.
    assert.deepEqual(allocateAddresses(store, SMALL, 'a', 2), ['10.0.2.4', '10.0.2.5']);
    assert.throws(
      () => allocateAddresses(store, SMALL, 'b', 2),
      (err: unknown) =>
        err instanceof AddressSpaceExhaustedError &&
        err.code === 'SubnetIsFull' &&
        err.available === 1 &&
        err.message === 'Subnet small with address prefix 10.0.2.0/29 does not have enough capacity for 2 IP addresses.',
    );
    assert.deepEqual(allocateAddresses(store, SMALL, 'b', 1), ['10.0.2.6']);
    assert.throws(() => allocateAddresses(store, SMALL, 'c', 1), AddressSpaceExhaustedError);
  });

  test('a rolled-back transaction leaves no address taken, in the store or in memory', () => {
    allocateAddresses(store, NODES, 'first', 1);
    assert.throws(() =>
      store.transaction(() => {
        assert.deepEqual(allocateAddresses(store, NODES, 'doomed', 3), ['10.0.1.5', '10.0.1.6', '10.0.1.7']);
        throw new Error('the cluster create failed later');
      }),
    );
    assert.equal(subnetInfo(store, NODES)!.ipsInUse, 1);
    assert.deepEqual(allocateAddresses(store, NODES, 'next', 1), ['10.0.1.5']);

    // The same inside a nested transaction (a savepoint) whose outer transaction goes on.
    store.transaction(() => {
      try {
        store.transaction(() => {
          allocateAddresses(store, NODES, 'inner', 2);
          throw new Error('inner step failed');
        });
      } catch {
        // the outer work continues
      }
      assert.deepEqual(allocateAddresses(store, NODES, 'outer', 1), ['10.0.1.6']);
    });
    assert.deepEqual(
      addressesInUse(store, NODES)
        .map((u) => u.owner)
        .sort(),
      ['first', 'next', 'outer'],
    );
  });

  test('a NIC write that fails half-way, in a transaction that goes on to commit, leaves the pool as the store has it', () => {
    putNic(store, { id: nicId('n0'), subnetId: SMALL, addresses: allocateAddresses(store, SMALL, nicId('n0'), 1) });
    putNic(store, { id: nicId('n1'), subnetId: SMALL, addresses: allocateAddresses(store, SMALL, nicId('n1'), 1) });
    store.transaction(() => {
      // n1 gives back .5 in memory, then asks for three dynamic addresses where two are free.
      const dynamic = (name: string) => ({ name, properties: { subnet: { id: SMALL } } });
      assert.throws(
        () =>
          writeNetworkInterface(
            store,
            nicId('n1'),
            { location: 'eastus', properties: { ipConfigurations: [dynamic('a'), dynamic('b'), dynamic('c')] } },
            'Succeeded',
          ),
        AddressSpaceExhaustedError,
      );
    });
    // .5 is still n1's on disk, so it must not be handed out.
    assert.deepEqual(allocateAddresses(store, SMALL, 'x', 1), ['10.0.2.6']);
    assert.deepEqual(
      addressesInUse(store, SMALL).map((u) => `${u.owner.split('/').pop()}:${u.address}`),
      ['n0:10.0.2.4', 'n1:10.0.2.5', 'x:10.0.2.6'],
    );
  });

  test('after a restart the pools are rebuilt from the store', () => {
    allocateAddresses(store, NODES, 'a', 2);
    putNic(store, { id: nicId('n1'), subnetId: NODES, addresses: allocateAddresses(store, NODES, nicId('n1'), 3) });
    allocateAddresses(store, NODES, 'gone', 1);
    releaseOwner(store, 'gone');
    store.close();

    store = new SqliteStore(file);
    assert.equal(subnetInfo(store, NODES)!.ipsInUse, 5);
    assert.deepEqual(allocateAddresses(store, NODES, 'b', 2), ['10.0.1.9', '10.0.1.10']);
    const nic = store.get<NetworkInterface>(nicId('n1'))!;
    assert.deepEqual(
      nic.properties.ipConfigurations.map((c) => c.properties.privateIPAddress),
      ['10.0.1.6', '10.0.1.7', '10.0.1.8'],
    );
  });

  test('putNic: primary first, secondaries after (Azure CNI pod IPs), back-references, kubenet tags, releaseOwner', () => {
    const id = nicId('aks-nodepool1-12345678-vmss000000-nic');
    const addresses = allocateAddresses(store, NODES, id, 4);
    const nic = putNic(store, { id, subnetId: NODES, addresses, tags: { 'aksemu-kubenet-cluster': '/subscriptions/x/cluster1' } });
    assert.equal(nic.location, 'eastus');
    assert.deepEqual(
      nic.properties.ipConfigurations.map((c) => [c.name, c.properties.privateIPAddress, c.properties.primary]),
      [
        ['ipconfig1', '10.0.1.4', true],
        ['ipconfig2', '10.0.1.5', false],
        ['ipconfig3', '10.0.1.6', false],
        ['ipconfig4', '10.0.1.7', false],
      ],
    );
    const info = subnetInfo(store, NODES.toUpperCase())!;
    assert.equal(info.id, NODES);
    assert.equal(info.ipsInUse, 4);
    assert.deepEqual(info.kubenetClusterIds, ['/subscriptions/x/cluster1']);
    assert.equal(subnetInfo(store, NODES, { excludeOwnerPrefix: MC.toLowerCase() })!.ipsInUse, 0);
    assert.deepEqual(
      addressesInUse(store, NODES).map((u) => u.ipConfigurationId?.split('/').pop()),
      ['ipconfig1', 'ipconfig2', 'ipconfig3', 'ipconfig4'],
    );

    // Addresses another owner holds cannot be put on a NIC.
    allocateAddresses(store, NODES, 'someone', 1);
    assert.throws(() => putNic(store, { id: nicId('other'), subnetId: NODES, addresses: ['10.0.1.8'] }), /already allocated to resource someone/);

    // releaseOwner of a NIC id releases its addresses and removes the NIC.
    assert.equal(releaseOwner(store, id), 4);
    assert.equal(store.get(id), undefined);
    assert.deepEqual(subnetInfo(store, NODES)!.kubenetClusterIds, []);
    assert.equal(deleteNic(store, id), false);
  });

  test("putNics: a batch reads its owners' subnets once, and each NIC still gives back what it held elsewhere", () => {
    const [a, b, c] = ['a', 'b', 'c'].map(nicId) as [string, string, string];
    const free = freeAddressCount(store, SMALL);
    const onNodes = allocateAddresses(store, NODES, a, 1);
    allocateAddresses(store, SMALL, a, 1);
    const forB = allocateAddresses(store, NODES, b, 2);
    assert.equal(freeAddressCount(store, SMALL), free - 1);
    const nics = store.transaction(() =>
      putNics(store, [
        { id: a, subnetId: NODES, addresses: onNodes },
        { id: b, subnetId: NODES, addresses: forB },
        { id: c, subnetId: NODES, addresses: allocateAddresses(store, NODES, c, 1) },
      ]),
    );
    assert.deepEqual(
      nics.map((n) => n.properties.ipConfigurations.map((x) => x.properties.privateIPAddress)),
      [['10.0.1.4'], ['10.0.1.5', '10.0.1.6'], ['10.0.1.7']],
    );
    // a's address in the small subnet, which none of its ip configurations uses, is free again.
    assert.equal(freeAddressCount(store, SMALL), free);
    assert.equal(subnetInfo(store, NODES)!.ipsInUse, 4);

    // The same NIC twice in a batch: the second write reads what the first left (a on the small subnet, which it did
    // not hold when the batch began), and gives it back.
    store.transaction(() =>
      putNics(store, [
        { id: a, subnetId: SMALL, addresses: ['10.0.2.4'] },
        { id: a.toUpperCase(), subnetId: NODES, addresses: onNodes },
      ]),
    );
    assert.equal(freeAddressCount(store, SMALL), free);
    assert.equal(subnetInfo(store, NODES)!.ipsInUse, 4);
  });

  test('deleteNic and releaseOwnersUnder give addresses back', () => {
    for (const n of ['a', 'b', 'c']) putNic(store, { id: nicId(n), subnetId: NODES, addresses: allocateAddresses(store, NODES, nicId(n), 2) });
    assert.equal(deleteNic(store, nicId('b')), true);
    assert.equal(subnetInfo(store, NODES)!.ipsInUse, 4);
    assert.equal(releaseOwnersUnder(store, MC), 4);
    assert.equal(subnetInfo(store, NODES)!.ipsInUse, 0);
  });

  test('subnetInfo: the model view of the VNet, delegations, external resources, route table; undefined when missing', () => {
    addServiceAssociationLink(store, SMALL, {
      name: 'aci',
      linkedResourceType: 'Microsoft.ContainerInstance/containerGroups',
      link: `${RG}/providers/Microsoft.ContainerInstance/containerGroups/cg`,
    });
    const table = putRouteTable(store, {
      id: `${MC}/providers/Microsoft.Network/routeTables/aks-agentpool-12345678-routetable`,
      location: 'eastus',
      routes: [{ name: 'aks-nodepool1-12345678-vmss000000', addressPrefix: '10.244.0.0/24', nextHopType: 'VirtualAppliance', nextHopIpAddress: '10.0.1.4' }],
    });
    associateRouteTable(store, NODES, table.id);
    const info = subnetInfo(store, NODES)!;
    assert.equal(info.name, 'nodes');
    assert.deepEqual(info.addressPrefixes, ['10.0.1.0/24']);
    assert.equal(info.location, 'eastus');
    assert.equal(info.routeTableId, table.id);
    assert.deepEqual(info.vnet, {
      id: VNET,
      name: 'v',
      addressSpace: ['10.0.0.0/16'],
      provisioningState: 'Succeeded',
      location: 'eastus',
      subnets: [
        { id: NODES, name: 'nodes', addressPrefixes: ['10.0.1.0/24'] },
        { id: SMALL, name: 'small', addressPrefixes: ['10.0.2.0/29'] },
      ],
    });
    assert.deepEqual(subnetInfo(store, SMALL)!.externalResources, [`${RG}/providers/Microsoft.ContainerInstance/containerGroups/cg`]);
    assert.equal(subnetInfo(store, `${VNET}/subnets/none`), undefined);
  });
});
