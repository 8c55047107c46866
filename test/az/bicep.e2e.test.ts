// Bicep files with modules, deployed as users deploy them: `aksemu az deployment group create -f x.bicep`
// (modules compiled relative to the file, outputs read back), `aksemu az bicep build` writing the JSON,
// and that JSON deployed with the real az 2.45. The fixtures are test/fixtures/templates/bicep-aks:
// classic.bicep (the classic template form), main.bicep and sub.bicep (languageVersion 2.0: types,
// imports, functions, optional parameters).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { compileBicepFile } from '../../src/templates/bicep/compile.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { az } from './helpers.js';
import { AZ, runRealAz } from './real-az-env.js';
import { type RealAzSession, realAzSession } from './real-az-session.js';

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/templates/bicep-aks/', import.meta.url));
const CLASSIC = join(FIXTURES, 'classic.bicep');
const MAIN = join(FIXTURES, 'main.bicep');
const SUB = join(FIXTURES, 'sub.bicep');
/** az 2.45 predates nullable parameters: it asks for `kubernetesVersion` (string?) unless given, here as null. */
const NULL_VERSION = '{"kubernetesVersion": {"value": null}}';

/** `… --query <q> -o tsv`. */
function tsv(args: string[], query: string): string[] {
  return [...args, '--query', query, '-o', 'tsv'];
}

describe('aksemu az with Bicep modules', () => {
  let server: TestServer;
  let home: string;
  before(async () => {
    home = tempHome();
    server = await startTestServer({ home });
    const r = await az(home, ['group', 'create', '-l', 'eastus', '-n', 'bicepRg', '-o', 'none']);
    assert.equal(r.code, 0, r.stderr);
  });
  after(async () => {
    await server.close();
    removeHome(home);
  });

  test("bicep build: --stdout prints the compiled JSON, --outfile writes it; a Bicep error is az's ERROR with the diagnostic", async () => {
    const expected = `${JSON.stringify(compileBicepFile(CLASSIC), null, 2)}\n`;
    const out = await az(home, ['bicep', 'build', '--file', CLASSIC, '--stdout']);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stdout, expected);
    const target = join(home, 'classic.json');
    const written = await az(home, ['bicep', 'build', '-f', CLASSIC, '--outfile', target]);
    assert.equal(written.code, 0, written.stderr);
    assert.equal(written.stdout, '');
    assert.equal(readFileSync(target, 'utf8'), expected);
    const missing = await az(home, ['bicep', 'build', '-f', join(FIXTURES, 'modules', 'nope.bicep'), '--stdout']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^ERROR: .*nope\.bicep\(1,1\) : Error BCP091: An error occurred reading file\. Could not find file '.*nope\.bicep'\.\n$/);
  });

  for (const plugin of ['none', 'kubenet', 'azure']) {
    test(`deployment group create -f classic.bicep with --network-plugin ${plugin}: modules deploy, their outputs read back`, async () => {
      const prefix = `c${plugin}`;
      const r = await az(home, ['deployment', 'group', 'create', '-g', 'bicepRg', '-f', CLASSIC, '-p', `networkPlugin=${plugin}`, `prefix=${prefix}`]);
      assert.equal(r.code, 0, r.stderr);
      const shown = JSON.parse(r.stdout);
      assert.equal(shown.properties.provisioningState, 'Succeeded');
      const outputs = shown.properties.outputs;
      assert.match(outputs.vnetId.value, new RegExp(`/resourceGroups/bicepRg/providers/Microsoft\\.Network/virtualNetworks/${prefix}-vnet$`));
      assert.deepEqual(outputs.spareVnets.value, [`${prefix}-spare-0`, `${prefix}-spare-1`]);
      assert.match(outputs.subnetIds.value.nodes, new RegExp(`/virtualNetworks/${prefix}-vnet/subnets/nodes$`));
      assert.equal(outputs.clusterPlugin.value, plugin);
      assert.deepEqual(outputs.endpointSubnets.value, ['spare']);
      assert.deepEqual(outputs.tags.value, { managedBy: 'bicep', workload: 'aks-networking', networkPlugin: plugin });
      // The modules ran as deployments of their own, in the group.
      const list = await az(home, ['deployment', 'group', 'list', '-g', 'bicepRg', '--query', `[?starts_with(name, '${prefix}-')].name`, '-o', 'tsv']);
      assert.deepEqual(list.stdout.trim().split('\n').sort(), [`${prefix}-spare-0`, `${prefix}-spare-1`, `${prefix}-vnet`]);
      const pool = await az(home, ['aks', 'show', '-g', 'bicepRg', '-n', `${prefix}-aks`, '--query', 'agentPoolProfiles[0].vnetSubnetId', '-o', 'tsv']);
      assert.equal(pool.stdout.trim(), outputs.subnetIds.value.nodes, pool.stderr);
      // The looped module's loop variable reached its parameters (cidrSubnet of the second space).
      const spare = await az(
        home,
        tsv(['deployment', 'group', 'show', '-g', 'bicepRg', '-n', `${prefix}-spare-1`], 'properties.parameters.subnets.value[0].prefix'),
      );
      assert.equal(spare.stdout, '10.31.0.0/24\n', spare.stderr);
    });
  }

  test('deployment group create -f main.bicep: imports, types, funcs, optional params and lambdas, outputs read back', async () => {
    const r = await az(home, ['deployment', 'group', 'create', '-g', 'bicepRg', '-f', MAIN, '-p', 'networkPlugin=azure', 'prefix=typed']);
    assert.equal(r.code, 0, r.stderr);
    const outputs = JSON.parse(r.stdout).properties.outputs;
    assert.equal(outputs.clusterName.value, 'typed-aks');
    assert.equal(outputs.clusterPlugin.value, 'azure');
    assert.deepEqual(outputs.subnetPrefixes.value, ['10.10.0.0/22', '10.10.8.0/24']);
    assert.equal(outputs.endpointCount.value, 1);
    assert.deepEqual(outputs.subnetsWithEndpoints.value, ['ingress']);
    assert.deepEqual(outputs.prefixByName.value, { nodes: '10.10.0.0/22', ingress: '10.10.8.0/24' });
    assert.equal(outputs.tagNote.value, 'only for this file: tags from tags.json');
  });

  test('deployment sub create -f sub.bicep: a resource group and the cluster in it through a module', async () => {
    const r = await az(home, ['deployment', 'sub', 'create', '-l', 'eastus', '-n', 'bicepsub', '-f', SUB, '-p', 'groupName=bicepSubRg']);
    assert.equal(r.code, 0, r.stderr);
    const outputs = JSON.parse(r.stdout).properties.outputs;
    assert.equal(outputs.clusterName.value, 'subaks-aks');
    assert.equal(outputs.clusterPlugin.value, 'none');
    assert.match(outputs.groupId.value, /\/resourceGroups\/bicepSubRg$/);
    const modules = await az(home, ['deployment', 'group', 'list', '-g', 'bicepSubRg', '--query', '[].name', '-o', 'tsv']);
    assert.deepEqual(modules.stdout.trim().split('\n').sort(), ['aks-stack', 'subaks-aks-none', 'subaks-vnet']);
  });
});

describe('the real az deploys what aksemu az bicep build wrote', { skip: existsSync(AZ) ? false : `${AZ} is not installed` }, () => {
  let session: RealAzSession;
  before(async () => {
    session = await realAzSession('realBicepRg');
  });
  after(() => session.close());

  test('classic.bicep built to JSON, deployed with az deployment group create, outputs read back', async () => {
    const file = join(session.azHome, 'classic.json');
    const built = await az(session.azHome, ['bicep', 'build', '-f', CLASSIC, '--outfile', file]);
    assert.equal(built.code, 0, built.stderr);
    const deploy = ['deployment', 'group', 'create', '-g', 'realBicepRg', '-n', 'classic', '--template-file', file];
    const r = await runRealAz(session.env, [...deploy, '--parameters', 'networkPlugin=kubenet', 'prefix=real', '--query', 'properties.outputs']);
    assert.equal(r.code, 0, r.stderr);
    const outputs = JSON.parse(r.stdout);
    assert.equal(outputs.clusterPlugin.value, 'kubenet');
    assert.deepEqual(outputs.spareVnets.value, ['real-spare-0', 'real-spare-1']);
    assert.match(outputs.subnetIds.value.nodes, /\/resourceGroups\/realBicepRg\/providers\/Microsoft\.Network\/virtualNetworks\/real-vnet\/subnets\/nodes$/);
    const cluster = await runRealAz(session.env, tsv(['aks', 'show', '-g', 'realBicepRg', '-n', 'real-aks'], 'networkProfile.networkPlugin'));
    assert.equal(cluster.stdout, 'kubenet\n', cluster.stderr);
  });

  test('main.bicep (languageVersion 2.0) and sub.bicep (subscription scope) built, deployed with the real az', async () => {
    const main = join(session.azHome, 'main.json');
    const sub = join(session.azHome, 'sub.json');
    for (const [source, target] of [
      [MAIN, main],
      [SUB, sub],
    ] as const) {
      const built = await az(session.azHome, ['bicep', 'build', '-f', source, '--outfile', target]);
      assert.equal(built.code, 0, built.stderr);
    }
    const outputsOf = async (args: string[]) => {
      const r = await runRealAz(session.env, [...args, '--query', 'properties.outputs']);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout);
    };
    const group = ['deployment', 'group', 'create', '-g', 'realBicepRg', '-n', 'typed', '--template-file', main];
    const outputs = await outputsOf([...group, '--parameters', 'networkPlugin=none', 'prefix=realtyped', NULL_VERSION]);
    assert.equal(outputs.clusterName.value, 'realtyped-aks');
    assert.equal(outputs.clusterPlugin.value, 'none');
    assert.deepEqual(outputs.subnetsWithEndpoints.value, ['ingress']);
    const subscription = ['deployment', 'sub', 'create', '-l', 'eastus', '-n', 'realbicepsub', '--template-file', sub];
    const subOutputs = await outputsOf([...subscription, '--parameters', 'groupName=realBicepSubRg', 'networkPlugin=kubenet']);
    assert.equal(subOutputs.clusterPlugin.value, 'kubenet');
    const cluster = await runRealAz(session.env, tsv(['aks', 'show', '-g', 'realBicepSubRg', '-n', 'subaks-aks'], 'networkProfile.networkPlugin'));
    assert.equal(cluster.stdout, 'kubenet\n', cluster.stderr);
  });
});
