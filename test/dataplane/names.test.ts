// Names and generated rules that need no root: interface names fit IFNAMSIZ and are stable, prefixes are
// checked, NSG rules become the nft matches Azure's semantics call for.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultPrefix, IF, macFor, NetnsNames } from '../../src/dataplane/netns/names.js';
import { nsgRuleLines } from '../../src/dataplane/netns/nsg.js';
import { checkTopology } from '../../src/dataplane/netns/topology-check.js';
import { CLUSTER_ID, topology } from './harness.js';

describe('netns names', () => {
  it('interface names fit in 15 characters and are deterministic', () => {
    const id = `/subscriptions/x/resourceGroups/${'r'.repeat(90)}/providers/Microsoft.Network/virtualNetworks/v/subnets/s`;
    for (const name of [IF.subnetBridge(id), IF.hostPort(id), IF.routerPort(id), IF.podVeth('azv', id), IF.podVeth('veth', id)]) {
      assert.ok(name.length <= 15, name);
    }
    assert.equal(IF.subnetBridge(id), IF.subnetBridge(id.toUpperCase()));
    assert.notEqual(IF.hostPort('a'), IF.hostPort('b'));
    assert.match(macFor('x'), /^02(:[0-9a-f]{2}){5}$/);
  });

  it('prefixes namespaces per instance and refuses a prefix that could match another', () => {
    const n = new NetnsNames('ak1a2b');
    assert.equal(n.internet(), 'ak1a2b-inet');
    assert.ok(n.owns(n.pod('p')) && !n.owns('ak1a2bc-inet'));
    assert.match(defaultPrefix('/root/.aksemu'), /^ak[0-9a-z]{4}$/);
    assert.throws(() => new NetnsNames('ak-1'), /invalid data plane prefix/);
  });
});

describe('NSG rules as nft', () => {
  const vnet = ['10.224.0.0/12', '10.244.0.0/24'];
  const rule = { name: 'r', priority: 100, sourcePorts: ['*'], destinationPorts: ['*'], sourcePrefixes: ['*'], destinationPrefixes: ['*'] };
  it('service tags: VirtualNetwork is the address space plus route prefixes, Internet everything else', () => {
    assert.deepEqual(nsgRuleLines({ ...rule, direction: 'Outbound', access: 'Allow', protocol: '*', destinationPrefixes: ['Internet'] }, vnet), [
      'ip daddr != { 10.224.0.0/12, 10.244.0.0/24 } counter return comment "r 100"',
    ]);
    assert.deepEqual(nsgRuleLines({ ...rule, direction: 'Inbound', access: 'Allow', protocol: '*', sourcePrefixes: ['AzureLoadBalancer'] }, vnet), []);
  });
  it('protocol and ports; inbound Allow accepts, Deny drops', () => {
    assert.deepEqual(
      nsgRuleLines(
        { ...rule, direction: 'Inbound', access: 'Deny', protocol: 'Tcp', sourcePrefixes: ['10.0.0.4', '10.1.0.0/16'], destinationPorts: ['80', '8000-8080'] },
        vnet,
      ),
      ['ip saddr { 10.0.0.4/32, 10.1.0.0/16 } meta l4proto tcp th dport { 80, 8000-8080 } counter drop comment "r 100"'],
    );
    assert.throws(() => nsgRuleLines({ ...rule, direction: 'Inbound', access: 'Deny', protocol: 'Gre' }, vnet), /unsupported protocol 'Gre'/);
  });
});

describe('topology checks', () => {
  it('names the host whose address is outside its subnet or reserved', () => {
    const t = topology(() => ({ clusterId: CLUSTER_ID, wiring: 'none' }));
    t.vnets[0]!.hosts[0]!.ip = '10.224.0.2';
    assert.throws(() => checkTopology(t), /host aks-nodepool1-12345678-vmss000000: 10\.224\.0\.2 is not a usable address of subnet 10\.224\.0\.0\/16/);
  });
});
