// Hostile deployments through the ARM front door (issue 11, defects 3 and 6, template side): each is
// refused with ARM's envelope and code — 400 InvalidRequestContent / InvalidTemplate, 413
// RequestContentTooLarge, or a Failed deployment with DeploymentOutputEvaluationFailed — quickly,
// with nothing stored for a refused request, the store grown by a bounded amount, the server still
// answering fast, and listing deployments never a 500.
import assert from 'node:assert/strict';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { arm, type Reply } from '../arm/helpers.js';
import { az } from '../az/helpers.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { API, deploy, deploymentPath } from './harness.js';

const SCHEMA = 'https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#';
const nested = (open: string, inner: string, close: string, depth: number) => open.repeat(depth) + inner + close.repeat(depth);
const template = (members: Record<string, unknown>) => ({ $schema: SCHEMA, contentVersion: '1.0.0.0', resources: [], ...members });
const body = (t: unknown, parameters: Record<string, unknown> = {}) => JSON.stringify({ properties: { mode: 'Incremental', template: t, parameters } });

describe('hostile templates', () => {
  let server: TestServer;
  let home: string;
  let sub: string;
  const GROUP = 'rghostile';
  before(async () => {
    home = tempHome();
    server = await startTestServer({ home });
    sub = server.identity.subscriptionId;
    await arm(server, 'PUT', `/subscriptions/${sub}/resourcegroups/${GROUP}?api-version=2021-04-01`, { body: { location: 'eastus' } });
  });
  after(async () => {
    await server.close();
    removeHome(home);
  });

  /** Bytes of the SQLite store (database and write-ahead log). */
  const storeBytes = () =>
    readdirSync(home)
      .filter((f) => f.startsWith('state.db'))
      .reduce((n, f) => n + statSync(join(home, f)).size, 0);

  const timed = async <T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> => {
    const started = Date.now();
    const value = await fn();
    return { value, ms: Date.now() - started };
  };

  /** The server answers another request promptly. */
  const stillFast = async () => {
    const { value, ms } = await timed(() => arm(server, 'GET', `/subscriptions/${sub}/resourcegroups/${GROUP}?api-version=2021-04-01`));
    assert.equal(value.status, 200);
    assert.ok(ms < 1000, `GET resource group took ${ms} ms`);
  };

  const put = (name: string, raw: string) =>
    timed(() => arm(server, 'PUT', `${deploymentPath(sub, GROUP, name)}?${API}`, { raw, headers: { 'content-type': 'application/json' } }));
  const validate = (name: string, raw: string) =>
    timed(() => arm(server, 'POST', `${deploymentPath(sub, GROUP, name)}/validate?${API}`, { raw, headers: { 'content-type': 'application/json' } }));

  /** Refused with status and code, quickly, and nothing of it stored. */
  async function refused(name: string, request: Promise<{ value: Reply; ms: number }>, status: number, code: string, message: RegExp): Promise<Reply> {
    const { value, ms } = await request;
    assert.equal(value.status, status, JSON.stringify(value.body).slice(0, 500));
    assert.equal(value.body.error.code, code, JSON.stringify(value.body).slice(0, 500));
    assert.match(JSON.stringify(value.body.error), message);
    assert.ok(ms < 3000, `answered in ${ms} ms`);
    const got = await arm(server, 'GET', `${deploymentPath(sub, GROUP, name)}?${API}`);
    assert.equal(got.status, 404, `${name} was stored`);
    await stillFast();
    return value;
  }

  test("a resource name that is no string is InvalidTemplate, never a resource called '[object Object]' (found by the ARM fuzzer)", async () => {
    const t = {
      contentVersion: '1.0.0.0',
      parameters: { vnetName: { type: 'object' } },
      resources: [
        {
          type: 'Microsoft.Network/virtualNetworks',
          apiVersion: '2022-07-01',
          name: "[parameters('vnetName')]",
          location: 'eastus',
          properties: { addressSpace: { addressPrefixes: ['10.0.0.0/16'] } },
        },
      ],
    };
    await refused(
      'objname',
      put('objname', body(t, { vnetName: { value: { a: 1 } } })),
      400,
      'InvalidTemplate',
      /The template resource '\[parameters\('vnetName'\)\]' at line '\d+' and column '\d+' is not valid: The resource 'name' must be a string\. The provided value is of type 'Object'\./,
    );
    const vnets = await arm(server, 'GET', `/subscriptions/${sub}/resourcegroups/${GROUP}/providers/Microsoft.Network/virtualNetworks?api-version=2022-07-01`);
    assert.deepEqual(vnets.body.value, []);
  });

  test('a 289-byte template whose output would be 240 MB fails its outputs; six of them leave the store small and the list answering', async () => {
    const t =
      '{"contentVersion":"1.0.0.0","resources":[],"outputs":{"o":{"type":"string","value":"[replace(string(range(0,5000)), \',\', string(range(0,5000)))]"}}}';
    const start = storeBytes();
    for (let i = 0; i < 6; i++) {
      const { status, final } = await deploy(server, sub, GROUP, `fill${i}`, `{"properties":{"mode":"Incremental","template":${t}}}`);
      assert.equal(status.status, 'Failed');
      assert.equal(status.error.code, 'DeploymentOutputEvaluationFailed');
      assert.equal(status.error.details[0].target, 'o');
      assert.match(
        status.error.details[0].message,
        /The template output 'o' is not valid: The template language function 'replace' result size limit exceeded\. Limit: '\d+' and actual: '\d+'/,
      );
      assert.equal(final.body.properties.provisioningState, 'Failed');
      assert.equal(final.body.properties.outputs, undefined);
    }
    const grown = storeBytes() - start;
    assert.ok(grown < 4 * 1024 * 1024, `the store grew by ${grown} bytes`);
    const { value: listed, ms } = await timed(() =>
      arm(server, 'GET', `/subscriptions/${sub}/resourcegroups/${GROUP}/providers/Microsoft.Resources/deployments?${API}`),
    );
    assert.equal(listed.status, 200);
    assert.ok(ms < 1000, `list took ${ms} ms`);
    assert.deepEqual(
      listed.body.value
        .map((d: any) => d.name)
        .filter((n: string) => n.startsWith('fill'))
        .sort(),
      ['fill0', 'fill1', 'fill2', 'fill3', 'fill4', 'fill5'],
    );
    for (let i = 0; i < 6; i++) assert.equal((await arm(server, 'DELETE', `${deploymentPath(sub, GROUP, `fill${i}`)}?${API}`)).status, 202);
  });

  test("padLeft('a', 1000000000, 'x') in a variable is InvalidTemplate naming the function", async () => {
    await refused(
      'pad',
      put('pad', body(template({ variables: { v: "[padLeft('a', 1000000000, 'x')]" } }))),
      400,
      'InvalidTemplate',
      /Deployment template validation failed: 'The template variable 'v' is not valid: The template language function 'padLeft' result size limit exceeded\. Limit: '\d+' and actual: '1000000002'/,
    );
  });

  test("a property copy of 2^32 elements is InvalidTemplate with ARM's copy count sentence", async () => {
    const resources = [
      {
        type: 'Microsoft.Network/virtualNetworks',
        apiVersion: '2022-01-01',
        name: 'v',
        location: 'eastus',
        properties: { addressSpace: { addressPrefixes: ['10.0.0.0/16'] }, copy: [{ name: 'subnets', count: 4294967296, input: { name: 's' } }] },
      },
    ];
    await refused(
      'pcopy',
      validate('pcopy', body(template({ resources }))),
      400,
      'InvalidTemplate',
      /has an invalid copy count\. The copy count must be a positive integer value and cannot exceed '800'/,
    );
  });

  test('a variable copy of 2^32 elements is InvalidTemplate', async () => {
    await refused(
      'vcopy',
      put('vcopy', body(template({ variables: { copy: [{ name: 'v', count: 4294967296, input: 'x' }] } }))),
      400,
      'InvalidTemplate',
      /invalid copy count/,
    );
  });

  test("ten resource copies of 800 are more than ARM's 800 resources", async () => {
    const resources = Array.from({ length: 10 }, (_, i) => ({
      type: 'Microsoft.Network/virtualNetworks',
      apiVersion: '2022-01-01',
      name: `[concat('v${i}-', copyIndex())]`,
      location: 'eastus',
      copy: { name: `c${i}`, count: 800 },
      properties: { addressSpace: { addressPrefixes: ['10.0.0.0/16'] } },
    }));
    await refused(
      'many',
      validate('many', body(template({ resources }))),
      400,
      'InvalidTemplate',
      /The number of template resources limit exceeded\. Limit: '800' and actual: '801'/,
    );
  });

  test('an output copy with a negative count fails the outputs, not the server', async () => {
    const { status } = await deploy(server, sub, GROUP, 'ocopy', body(template({ outputs: { o: { type: 'array', copy: { count: -1, input: 'x' } } } })));
    assert.equal(status.status, 'Failed');
    assert.equal(status.error.code, 'DeploymentOutputEvaluationFailed');
    assert.match(status.error.details[0].message, /invalid copy count/);
  });

  test('range(0, 2147483647), arrays nested into a blowup and a union of 30,000 are refused or answered quickly', async () => {
    await refused(
      'range',
      put('range', body(template({ variables: { v: '[range(0, 2147483647)]' } }))),
      400,
      'InvalidTemplate',
      /function 'range' expects its count/,
    );
    const variables: Record<string, unknown> = { v0: '[range(0, 10000)]' };
    for (let i = 1; i <= 8; i++)
      variables[`v${i}`] = `[createArray(${Array(10)
        .fill(`variables('v${i - 1}')`)
        .join(', ')})]`;
    await refused('blowup', put('blowup', body(template({ variables }))), 400, 'InvalidTemplate', /function 'createArray' result size limit exceeded/);
    const { value, ms } = await validate('union', body(template({ variables: { u: '[union(range(0, 10000), range(10000, 10000), range(20000, 10000))]' } })));
    assert.equal(value.status, 200, JSON.stringify(value.body).slice(0, 300));
    assert.ok(ms < 3000, `validate took ${ms} ms`);
  });

  test('variables referring to each other are InvalidTemplate', async () => {
    await refused(
      'cycle',
      put('cycle', body(template({ variables: { a: "[variables('b')]", b: "[concat('x', variables('a'))]" } }))),
      400,
      'InvalidTemplate',
      /refers to itself/,
    );
  });

  test('an expression nested 10,000 deep is InvalidTemplate', async () => {
    await refused(
      'deepexpr',
      put('deepexpr', body(template({ variables: { v: `[${nested('concat(', "'a'", ')', 10000)}]` } }))),
      400,
      'InvalidTemplate',
      /The language expression length limit exceeded\. Limit: '24576'/,
    );
    await refused(
      'deepexpr',
      put('deepexpr', body(template({ variables: { v: `[${nested('string(', "'a'", ')', 3000)}]` } }))),
      400,
      'InvalidTemplate',
      /nesting depth limit exceeded/,
    );
  });

  test('JSON nested 10,000 deep in the template and in the parameters is InvalidRequestContent', async () => {
    const deep = nested('[', '', ']', 10000);
    await refused(
      'deepjson',
      put('deepjson', `{"properties":{"mode":"Incremental","template":{"contentVersion":"1.0.0.0","resources":[],"variables":{"v":${deep}}}}}`),
      400,
      'InvalidRequestContent',
      /The reader's MaxDepth of \d+ has been exceeded\. Path 'properties\.template\.variables\.v(\[0\])+'/,
    );
    await refused(
      'deepjson',
      put('deepjson', `{"properties":{"mode":"Incremental","template":{"contentVersion":"1.0.0.0","resources":[]},"parameters":{"p":{"value":${deep}}}}}`),
      400,
      'InvalidRequestContent',
      /MaxDepth/,
    );
  });

  test('a body that is null, properties null, a template that is not an object, a parameter not {value}', async () => {
    // A body that is no object stops at the front door, for every resource type alike.
    await refused('nul', put('nul', 'null'), 400, 'InvalidRequestContent', /Error converting value \{null\} to type 'Deployment'/);
    await refused('nul', put('nul', '{"properties":null}'), 400, 'InvalidRequestContent', /Required property 'properties' not found in JSON/);
    await refused('nul', put('nul', '[1]'), 400, 'InvalidRequestContent', /.+/);
    await refused(
      'nul',
      put('nul', '{"properties":{"template":"x"}}'),
      400,
      'InvalidRequestContent',
      /Error converting value \\"x\\" to type .*Path 'properties\.template'/,
    );
    await refused(
      'nul',
      put('nul', `{"properties":{"template":${JSON.stringify(template({}))},"parameters":{"p":"x"}}}`),
      400,
      'InvalidRequestContent',
      /Error converting value \\"x\\" to type 'Microsoft\.WindowsAzure\.ResourceStack\.Frontdoor\.Data\.Definitions\.DeploymentParameterDefinition'\. Path 'properties\.parameters\.p'/,
    );
  });

  test("a request over ARM's 4 MB is 413 RequestContentTooLarge", async () => {
    const big = body(template({ variables: { v: 'x'.repeat(5 * 1024 * 1024) } }));
    await refused('big', put('big', big), 413, 'RequestContentTooLarge', /The request content size exceeds the maximum size of 4 MB\./);
  });

  test('a dependsOn of 40,000 slashes is answered at once (no regular-expression backtracking)', async () => {
    const resources = [
      {
        type: 'Microsoft.Network/virtualNetworks',
        apiVersion: '2022-01-01',
        name: 'v',
        location: 'eastus',
        dependsOn: [`${'/'.repeat(40000)}x`],
        properties: { addressSpace: { addressPrefixes: ['10.0.0.0/16'] } },
      },
    ];
    await refused('redos', put('redos', body(template({ resources }))), 400, 'InvalidTemplate', /is not defined in the template/);
  });

  test('__proto__ and constructor are data in parameters, variables and outputs; nothing reaches Object.prototype', async () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const t =
      '{"contentVersion":"1.0.0.0","resources":[],' +
      '"parameters":{"__proto__":{"type":"object","defaultValue":{"polluted":"yes"}},"constructor":{"type":"string","defaultValue":"c"}},' +
      '"variables":{"__proto__":{"polluted":"yes"}},' +
      '"outputs":{' +
      '"__proto__":{"type":"object","value":"[createObject(\'__proto__\', createObject(\'polluted\', \'yes\'))]"},' +
      '"fromJson":{"type":"object","value":"[json(\'{\\"__proto__\\":{\\"polluted\\":\\"yes\\"}}\')]"},' +
      '"merged":{"type":"object","value":"[union(createObject(\'a\', 1), json(\'{\\"__proto__\\":{\\"polluted\\":\\"yes\\"}}\'))]"},' +
      '"fromVariable":{"type":"object","value":"[variables(\'__proto__\')]"},' +
      '"fromParameter":{"type":"object","value":"[parameters(\'__proto__\')]"}}}';
    const { status, final } = await deploy(server, sub, GROUP, 'proto', `{"properties":{"mode":"Incremental","template":${t}}}`);
    assert.equal(status.status, 'Succeeded', JSON.stringify(status));
    const outputs = final.body.properties.outputs;
    assert.deepEqual(Object.keys(outputs).sort(), ['__proto__', 'fromJson', 'fromParameter', 'fromVariable', 'merged']);
    assert.deepEqual(outputs.__proto__.value, JSON.parse('{"__proto__":{"polluted":"yes"}}'));
    assert.ok(Object.hasOwn(outputs.__proto__.value, '__proto__'));
    assert.ok(Object.hasOwn(outputs.fromJson.value, '__proto__'));
    assert.deepEqual(outputs.merged.value, JSON.parse('{"a":1,"__proto__":{"polluted":"yes"}}'));
    assert.deepEqual(outputs.fromVariable.value, { polluted: 'yes' });
    assert.deepEqual(outputs.fromParameter.value, { polluted: 'yes' });
    const parameters = final.body.properties.parameters;
    assert.deepEqual(Object.keys(parameters).sort(), ['__proto__', 'constructor']);
    assert.deepEqual(parameters.constructor, { type: 'String', value: 'c' });
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), before);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);

    const access = template({ variables: { x: { a: 1 } }, outputs: { o: { type: 'object', value: "[variables('x').__proto__]" } } });
    const { status: failed } = await deploy(server, sub, GROUP, 'protoread', body(access));
    assert.equal(failed.error.code, 'DeploymentOutputEvaluationFailed');
    assert.match(failed.error.details[0].message, /The language expression property '__proto__' doesn't exist, available properties are 'a'/);
  });

  test('aksemu az with a Bicep file nested 10,000 deep, a JSON file nested 10,000 deep and padLeft: errors, not crashes', async () => {
    const bicep = join(home, 'deep.bicep');
    writeFileSync(bicep, `output o int = ${nested('(', '1', ')', 10000)}\n`);
    const b = await az(home, ['deployment', 'group', 'create', '-g', GROUP, '-f', bicep]);
    assert.equal(b.code, 1, b.stderr);
    assert.match(b.stderr, /^ERROR: .*deep\.bicep\(1,\d+\) : Error BCP000: This expression is nested more than 256 levels deep/);
    const json = join(home, 'deep.json');
    writeFileSync(json, JSON.stringify(template({ variables: { v: 'x' } })).replace('"x"', nested('[', '', ']', 10000)));
    const j = await az(home, ['deployment', 'group', 'create', '-g', GROUP, '-f', json]);
    assert.equal(j.code, 1, j.stderr);
    assert.match(
      j.stderr,
      /^ERROR: Failed to parse '.*deep\.json', please check whether it is a valid JSON format: The reader's MaxDepth of 128 has been exceeded\./,
    );
    const pad = join(home, 'pad.json');
    writeFileSync(pad, JSON.stringify(template({ variables: { v: "[padLeft('a', 1000000000, 'x')]" } })));
    const p = await az(home, ['deployment', 'group', 'create', '-g', GROUP, '-f', pad]);
    assert.equal(p.code, 1, p.stderr);
    assert.match(
      p.stderr,
      /^ERROR: InvalidTemplate - Deployment template validation failed: 'The template variable 'v' is not valid: The template language function 'padLeft' result size limit exceeded/,
    );
    for (const r of [b, j, p]) assert.doesNotMatch(r.stderr, /RangeError|at .*\.js:\d+/);
  });

  test('listing deployments pages by size and never fails', async () => {
    // Six deployments whose outputs are as large as aksemu keeps (4 MB in all): the list pages.
    const outputs = Object.fromEntries(Array.from({ length: 4 }, (_, i) => [`o${i}`, { type: 'string', value: `[padLeft('', 900000, '${i}')]` }]));
    for (let i = 0; i < 6; i++) {
      const { status } = await deploy(server, sub, GROUP, `large${i}`, body(template({ outputs })));
      assert.equal(status.status, 'Succeeded', JSON.stringify(status).slice(0, 500));
    }
    let url: string | undefined = `/subscriptions/${sub}/resourcegroups/${GROUP}/providers/Microsoft.Resources/deployments?${API}`;
    const names: string[] = [];
    let pages = 0;
    while (url) {
      const { value, ms } = await timed(() => arm(server, 'GET', url!));
      assert.equal(value.status, 200);
      assert.ok(ms < 2000, `a page took ${ms} ms`);
      pages++;
      names.push(...value.body.value.map((d: any) => d.name));
      url = value.body.nextLink ? new URL(value.body.nextLink).pathname + new URL(value.body.nextLink).search : undefined;
    }
    assert.ok(pages > 1, 'more than one page');
    for (let i = 0; i < 6; i++) assert.ok(names.includes(`large${i}`));
    assert.equal(new Set(names).size, names.length);
  });
});
