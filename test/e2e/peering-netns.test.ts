// VNet peering on the netns data plane (docs/dataplane.md §3.7, docs/aks-rules.md §11 V1): a VM in one VNet does
// not reach a VM in another until both sides of a peering are Connected, then it does and the far VM sees its
// address, also through an NSG's default rules; when one side is deleted (the other Disconnected) it no longer does. All through aksemu az against a
// server with the netns driver; every namespace of the run is removed by name afterwards. Root only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataplaneWorld, eventually, PORT, RG, skipReason, VM, VNET } from './dataplane-harness.js';

const VM2 = { name: 'vm2', ip: '10.1.0.100' };

describe('VNet peering on the netns data plane', { skip: skipReason() }, () => {
  let world: DataplaneWorld;
  const peer = (name: string, vnet: string, remote: string) =>
    world.az(['network', 'vnet', 'peering', 'create', '-g', RG, '-n', name, '--vnet-name', vnet, '--remote-vnet', remote, '--allow-vnet-access']);
  const reaches = async () => (await world.probe(`vm/${VM.name}`, `${VM2.ip}:${PORT}`, undefined, 1000)).connected;

  before(async () => {
    world = new DataplaneWorld();
    await world.start();
    await world.network();
    await world.az([
      'network',
      'vnet',
      'create',
      '-g',
      RG,
      '-n',
      'vnet2',
      '--address-prefixes',
      '10.1.0.0/16',
      '--subnet-name',
      'web',
      '--subnet-prefixes',
      '10.1.0.0/24',
    ]);
    await world.vm(VM2.name, 'vnet2', 'web', VM2.ip);
  });
  after(async () => {
    await world?.close();
    world?.assertClean();
  });

  it('not before peering, nor with one side only; Connected: the far VM sees the near VM; Disconnected: no longer', async () => {
    await eventually(async () => (await world.probe(`vm/${VM2.name}`, `${VM2.ip}:${PORT}`, undefined, 1000)).connected, 30_000, 'vm2 to be wired');
    assert.equal(await reaches(), false, 'two VNets without a peering do not reach each other');

    const a = await peer('one-two', VNET, 'vnet2');
    assert.equal(a.peeringState, 'Initiated');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await reaches(), false, 'an Initiated peering carries nothing');

    const b = await peer('two-one', 'vnet2', VNET);
    assert.equal(b.peeringState, 'Connected');
    await eventually(reaches, 30_000, 'the peered VNets to route to each other');
    assert.deepEqual(await world.seen(`vm/${VM.name}`, `${VM2.ip}:${PORT}`), [true, VM.ip]);
    assert.deepEqual(await world.seen(`vm/${VM2.name}`, `${VM.ip}:${PORT}`), [true, VM2.ip]);
    assert.equal((await world.probe('internet', `${VM2.ip}:${PORT}`, undefined, 1000)).connected, true, 'no NSG yet');

    // An NSG with only the default rules on vm2's subnet: AllowVnetInBound admits the peered VNet, as in Azure.
    await world.az(['network', 'nsg', 'create', '-g', RG, '-n', 'nsg2']);
    await world.az(['network', 'vnet', 'subnet', 'update', '-g', RG, '--vnet-name', 'vnet2', '-n', 'web', '--nsg', 'nsg2']);
    // The NSG is live once DenyAllInBound stops the internet host, which reached vm2 before.
    await eventually(async () => !(await world.probe('internet', `${VM2.ip}:${PORT}`, undefined, 1000)).connected, 30_000, 'the NSG to be applied');
    assert.deepEqual(await world.seen(`vm/${VM.name}`, `${VM2.ip}:${PORT}`), [true, VM.ip]);

    await world.az(['network', 'vnet', 'peering', 'delete', '-g', RG, '-n', 'two-one', '--vnet-name', 'vnet2']);
    await eventually(async () => !(await reaches()), 30_000, 'the Disconnected peering to stop carrying traffic');
  });
});
