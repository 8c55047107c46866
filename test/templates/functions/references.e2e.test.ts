// references() (the resource functions page, "references"): the deployed copies of a languageVersion 2.0 copy loop,
// by copy index, as properties or as full resources; a copy whose condition is false is left out; the function
// waits for every copy (an implicit dependency); it is refused inside a copy loop and for a name that is no
// collection. The page's own example deploys container groups, which aksemu does not serve: these templates follow
// it with virtual networks. Deployed with `aksemu az deployment group create` against a real server.
// Reference: https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-resource#references
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { az, azOk } from '../../az/helpers.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../../e2e/harness.js';

const GROUP = 'refs-group';

/** numWorkers VNets 10.<10+i>.0.0/16 in a loop (copy 1 skipped when skipOne), and a controller VNet that reads them. */
function template(resourceInLoopUsesReferences = false) {
  const prefix = "[format('10.{0}.0.0/16', add(10, copyIndex()))]";
  return {
    $schema: 'https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#',
    languageVersion: '2.0',
    contentVersion: '1.0.0.0',
    parameters: {
      numWorkers: { type: 'int', defaultValue: 3 },
      skipOne: { type: 'bool', defaultValue: false },
    },
    resources: {
      workers: {
        copy: { name: 'workers', count: "[parameters('numWorkers')]" },
        condition: "[or(not(parameters('skipOne')), not(equals(copyIndex(), 1)))]",
        type: 'Microsoft.Network/virtualNetworks',
        apiVersion: '2022-01-01',
        name: "[format('worker-{0}', copyIndex())]",
        location: '[resourceGroup().location]',
        properties: {
          addressSpace: { addressPrefixes: resourceInLoopUsesReferences ? ["[first(references('workers')).addressSpace.addressPrefixes[0]]"] : [prefix] },
        },
      },
      controller: {
        type: 'Microsoft.Network/virtualNetworks',
        apiVersion: '2022-01-01',
        name: 'controller',
        location: '[resourceGroup().location]',
        // No dependsOn: references() makes the controller wait for the workers.
        properties: {
          addressSpace: { addressPrefixes: ['10.9.0.0/16'] },
          subnets: [{ name: 'seen', properties: { addressPrefix: '10.9.0.0/24' } }],
        },
        tags: { workers: "[join(map(references('workers', 'full'), lambda('w', lambdaVariables('w').name)), ',')]" },
      },
    },
    outputs: {
      prefixes: { type: 'array', value: "[map(references('workers'), lambda('w', lambdaVariables('w').addressSpace.addressPrefixes[0]))]" },
      names: { type: 'string', value: "[join(map(references('workers', 'Full'), lambda('w', lambdaVariables('w').name)), ',')]" },
      fullHasApiVersion: { type: 'string', value: "[first(references('workers', 'full')).apiVersion]" },
      controllerTag: { type: 'string', value: "[reference('controller', '2022-01-01', 'full').tags.workers]" },
    },
  };
}

describe('references(): a copy loop by its symbolic name', () => {
  let server: TestServer;
  let home: string;
  before(async () => {
    home = tempHome();
    server = await startTestServer({ home });
    await azOk(home, ['group', 'create', '-l', 'eastus', '-n', GROUP, '-o', 'none']);
  });
  after(async () => {
    await server.close();
    removeHome(home);
  });

  async function deploy(name: string, body: unknown, ...parameters: string[]) {
    const file = join(home, `${name}.json`);
    writeFileSync(file, JSON.stringify(body, null, 2));
    return az(home, [
      'deployment',
      'group',
      'create',
      '-g',
      GROUP,
      '-n',
      name,
      '--template-file',
      file,
      ...(parameters.length ? ['--parameters', ...parameters] : []),
    ]);
  }

  const outputsOf = (stdout: string) =>
    Object.fromEntries(
      Object.entries((JSON.parse(stdout) as { properties: { outputs: Record<string, { value: unknown }> } }).properties.outputs).map(([k, v]) => [k, v.value]),
    );

  test('properties by default, full objects with Full, in copy-index order', async () => {
    const r = await deploy('refs', template());
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(outputsOf(r.stdout), {
      prefixes: ['10.10.0.0/16', '10.11.0.0/16', '10.12.0.0/16'],
      names: 'worker-0,worker-1,worker-2',
      fullHasApiVersion: '2022-01-01',
      controllerTag: 'worker-0,worker-1,worker-2',
    });
  });

  test('a copy whose condition is false is left out', async () => {
    const r = await deploy('refs-skip', template(), 'skipOne=true');
    assert.equal(r.code, 0, r.stderr);
    const out = outputsOf(r.stdout);
    assert.deepEqual(out['prefixes'], ['10.10.0.0/16', '10.12.0.0/16']);
    assert.equal(out['names'], 'worker-0,worker-2');
  });

  test('refused inside a copy loop, for a name that is no collection, and for a mode other than Full or Properties', async () => {
    const inLoop = await deploy('refs-in-loop', template(true));
    assert.equal(inLoop.code, 1);
    assert.match(inLoop.stderr, /InvalidTemplate/);
    assert.match(inLoop.stderr, /The template function 'references' is not expected at this location: it cannot be used within a resource copy loop\./);

    const notLoop = template();
    notLoop.outputs.names.value = "[string(length(references('controller')))]";
    const single = await deploy('refs-single', notLoop);
    assert.equal(single.code, 1);
    assert.match(single.stderr, /expects the symbolic name of a resource collection \(a copy loop\) defined in the template; 'controller' is not one/);

    const badMode = template();
    badMode.outputs.names.value = "[string(length(references('workers', 'Some')))]";
    const mode = await deploy('refs-mode', badMode);
    assert.equal(mode.code, 1);
    assert.match(mode.stderr, /expects its second parameter to be 'Full' or 'Properties'\. The provided value is 'Some'\./);
  });
});
