// Request bodies as an attacker writes them (issue 11, defect 6 and the limits): every one is ARM's
// 4xx in ARM's envelope, never a 500, and a refused request stores nothing. Members the model does
// not expect never reach a prototype.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Route } from '../../src/arm/provider.js';
import { defaultProviders } from '../../src/providers/index.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { arm, pathOf, waitForOperation, type Reply } from './helpers.js';
import { variants } from './variants.js';

const RG = '2021-04-01';
const NET = '2022-07-01';
const AKS = '2022-11-01';
const VM = '2022-11-01';
/** One valid security rule's properties: an NSG's inline rule and a securityRules PUT carry the same. */
const SECURITY_RULE = {
  protocol: 'Tcp',
  access: 'Allow',
  direction: 'Inbound',
  priority: 100,
  sourcePortRange: '*',
  destinationPortRange: '80',
  sourceAddressPrefix: '*',
  destinationAddressPrefix: '*',
};
const AUTHZ = '2022-04-01';

/** Nested `depth` levels: objects ({"a":…}) or arrays ([…]). */
function deep(depth: number, kind: 'object' | 'array' = 'object'): string {
  return kind === 'object' ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

const routes: Route[] = defaultProviders().flatMap((p) => p.routes);

function route(method: string, pathEnd: string): Route {
  const found = routes.find((r) => r.method === method && r.path.toLowerCase().endsWith(pathEnd.toLowerCase()));
  assert.ok(found, `${method} …${pathEnd}`);
  return found;
}

function cluster(extra: Record<string, unknown> = {}) {
  return {
    location: 'eastus',
    identity: { type: 'SystemAssigned' },
    properties: {
      dnsPrefix: 'hostile',
      agentPoolProfiles: [{ name: 'nodepool1', count: 1, vmSize: 'Standard_DS2_v2', mode: 'System', osType: 'Linux' }],
      networkProfile: { networkPlugin: 'kubenet' },
      ...extra,
    },
  };
}

describe('hostile request bodies', () => {
  let home: string;
  let server: TestServer;
  let sub: string;
  let group: string;

  /** What the store holds, without the records every request may touch. */
  const keys = () => server.store.list('').map((e) => e.key);
  const json = (method: string, url: string, raw: string) => arm(server, method, url, { raw, headers: { 'content-type': 'application/json' } });

  before(async () => {
    home = tempHome();
    // Operations never run: the sweeps reach every handler's synchronous validation without building clusters.
    server = await startTestServer({ home, lroDelayMs: 3_600_000 });
    sub = server.identity.subscriptionId;
    group = `/subscriptions/${sub}/resourceGroups/rg`;
    assert.equal((await arm(server, 'PUT', `${group}?api-version=${RG}`, { body: { location: 'eastus' } })).status, 201);
    const vnet = await arm(server, 'PUT', `${group}/providers/Microsoft.Network/virtualNetworks/base?api-version=${NET}`, {
      body: {
        location: 'eastus',
        properties: { addressSpace: { addressPrefixes: ['10.0.0.0/8'] }, subnets: [{ name: 'nics', properties: { addressPrefix: '10.0.0.0/16' } }] },
      },
    });
    assert.equal(vnet.status, 201, JSON.stringify(vnet.body));
  });

  after(async () => {
    await server.close();
    removeHome(home);
  });

  describe('JSON depth (Newtonsoft MaxDepth 64, what ARM deserializes with)', () => {
    const cases: Array<[string, string, (body: string) => string]> = [
      ['tags of a resource group', `/subscriptions/{sub}/resourcegroups/deep?api-version=${RG}`, (d) => `{"location":"eastus","tags":${d}}`],
      [
        'subnets of a VNet',
        `{group}/providers/Microsoft.Network/virtualNetworks/deep?api-version=${NET}`,
        (d) => `{"location":"eastus","properties":{"subnets":${d}}}`,
      ],
      [
        'aadProfile of a cluster',
        `{group}/providers/Microsoft.ContainerService/managedClusters/deep?api-version=${AKS}`,
        (d) => `{"location":"eastus","properties":{"aadProfile":${d}}}`,
      ],
      [
        'a deployment template',
        `{group}/providers/Microsoft.Resources/deployments/deep?api-version=${RG}`,
        (d) => `{"properties":{"mode":"Incremental","template":${d}}}`,
      ],
    ];
    for (const [what, url, body] of cases) {
      test(`10,000 levels in ${what} is 400 InvalidRequestContent, nothing stored`, async () => {
        const before = keys();
        const u = url.replace('{sub}', sub).replace('{group}', group);
        for (const kind of ['object', 'array'] as const) {
          const res = await json('PUT', u, body(deep(10_000, kind)));
          assert.equal(res.status, 400, JSON.stringify(res.body).slice(0, 300));
          assert.equal(res.body.error.code, 'InvalidRequestContent');
          assert.match(
            res.body.error.message,
            /^The request content was invalid and could not be deserialized: 'The reader's MaxDepth of 64 has been exceeded\. Path '[^']*', line 1, position \d+\.'\.$/,
          );
        }
        assert.deepEqual(keys(), before);
      });
    }

    test('the path and position are where the 65th level opens', async () => {
      const res = await json('PUT', `/subscriptions/${sub}/resourcegroups/deep?api-version=${RG}`, `{"location":"eastus","tags":${deep(64)}}`);
      assert.equal(res.status, 400);
      // The body is level 1 and tags level 2, so the 64th object of deep(64) is level 65: at tags.a…a (63 a's),
      // opening at column 29 + 5 × 63.
      const path = ['tags', ...Array(63).fill('a')].join('.');
      assert.equal(
        res.body.error.message,
        `The request content was invalid and could not be deserialized: 'The reader's MaxDepth of 64 has been exceeded. Path '${path}', line 1, position ${29 + 5 * 63}.'.`,
      );
    });

    test('64 levels are read (the limit, not a stricter one)', async () => {
      // body, properties, then aadProfile and its 61 nested objects: 64.
      const res = await json(
        'PUT',
        `${group}/providers/Microsoft.ContainerService/managedClusters/deep64?api-version=${AKS}`,
        JSON.stringify(cluster({ aadProfile: JSON.parse(deep(62)) })),
      );
      // Not the depth error; aadProfile's members are typed, so the innermost 'a' may be refused as unknown.
      assert.doesNotMatch(res.body?.error?.message ?? '', /MaxDepth/, JSON.stringify(res.body));
    });
  });

  describe('bodies that are not JSON objects', () => {
    // Every route that reads a body, with its path parameters filled in.
    const fill = (path: string) =>
      path
        .replace('{subscriptionId}', () => sub)
        .replace('{resourceGroupName}', 'rg')
        .replace(/\{roleAssignmentName\}/, '3f0b5c1a-0000-4000-8000-000000000001')
        .replace(/\{[A-Za-z0-9]+\}/g, 'x');
    for (const r of routes.filter((r) => r.body !== undefined || r.rawBody)) {
      test(`${r.method} ${r.path.replace(/^.*\/providers\//, '…/')}: null, an array, a string, a number → 400`, async () => {
        const provider = defaultProviders().find((p) => p.routes.includes(r))!;
        const versions = r.apiVersions === 'any' || r.apiVersions === undefined ? provider.apiVersions : r.apiVersions;
        const url = `${fill(r.path)}?api-version=${versions[0]}`;
        const before = keys();
        for (const raw of ['null', '[]', '[{"location":"eastus"}]', '"x"', '1', 'true']) {
          const res = await json(r.method, url, raw);
          assert.equal(res.status, 400, `${raw}: ${JSON.stringify(res.body)}`);
          assert.equal(res.body.error.code, 'InvalidRequestContent', raw);
        }
        assert.deepEqual(keys(), before);
      });
    }

    test('a null body names the model it could not fill, as Newtonsoft does', async () => {
      const res = await json('PUT', `${group}/providers/Microsoft.Resources/deployments/d?api-version=${RG}`, 'null');
      assert.deepEqual(res.body.error, {
        code: 'InvalidRequestContent',
        message: "The request content was invalid and could not be deserialized: 'Error converting value {null} to type 'Deployment'. Path '''.",
      });
    });
  });

  test('agentPoolProfiles: [null] is 400 naming the element, and no cluster is stored', async () => {
    const before = keys();
    const res = await arm(server, 'PUT', `${group}/providers/Microsoft.ContainerService/managedClusters/nullpool?api-version=${AKS}`, {
      body: cluster({ agentPoolProfiles: [null] }),
    });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.error, {
      code: 'InvalidRequestContent',
      message:
        "The request content was invalid and could not be deserialized: 'Error converting value {null} to type 'ManagedClusterAgentPoolProfile'. Path 'properties.agentPoolProfiles[0]''.",
      target: 'properties.agentPoolProfiles[0]',
    });
    assert.deepEqual(keys(), before);
  });

  describe('every member null, [null] or an edge value: a 4xx or a success, never a 500', () => {
    let n = 0;
    const fresh = (prefix: string) => `${prefix}${++n}`;
    const nicBody = (i: number) => ({
      location: 'eastus',
      properties: {
        ipConfigurations: [
          {
            name: 'ipconfig1',
            properties: { subnet: { id: `${group}/providers/Microsoft.Network/virtualNetworks/base/subnets/nics` }, privateIPAllocationMethod: 'Dynamic' },
          },
        ],
      },
      tags: { i: String(i) },
    });
    /** A child resource's URL in a parent created for it (a child PUT changes its parent). */
    async function inFreshParent(parentType: string, childType: string): Promise<string> {
      const parent = `${group}/providers/Microsoft.Network/${parentType}/${fresh('p')}`;
      assert.equal((await arm(server, 'PUT', `${parent}?api-version=${NET}`, { body: { location: 'eastus' } })).status, 201);
      return `${parent}/${childType}/child?api-version=${NET}`;
    }
    const sweeps: Array<{ what: string; method: string; path: string; url: () => Promise<string> | string; base: unknown }> = [
      {
        what: 'resource group PUT',
        method: 'PUT',
        path: '/resourcegroups/{resourceGroupName}',
        url: () => `/subscriptions/${sub}/resourcegroups/${fresh('g')}?api-version=${RG}`,
        base: { location: 'eastus', tags: { a: 'b' } },
      },
      {
        what: 'resource group PATCH',
        method: 'PATCH',
        path: '/resourcegroups/{resourceGroupName}',
        url: () => `${group}?api-version=${RG}`,
        base: { tags: { a: 'b' } },
      },
      {
        what: 'VNet',
        method: 'PUT',
        path: '/virtualNetworks/{virtualNetworkName}',
        url: () => `${group}/providers/Microsoft.Network/virtualNetworks/${fresh('v')}?api-version=${NET}`,
        base: {
          location: 'eastus',
          properties: {
            addressSpace: { addressPrefixes: ['192.168.0.0/16'] },
            subnets: [
              {
                name: 's',
                properties: {
                  addressPrefix: '192.168.0.0/24',
                  delegations: [{ name: 'd', properties: { serviceName: 'Microsoft.ContainerInstance/containerGroups' } }],
                  serviceEndpoints: [{ service: 'Microsoft.Storage' }],
                },
              },
            ],
          },
        },
      },
      {
        what: 'subnet',
        method: 'PUT',
        path: '/subnets/{subnetName}',
        url: () => `${group}/providers/Microsoft.Network/virtualNetworks/base/subnets/${fresh('s')}?api-version=${NET}`,
        base: { properties: { addressPrefix: `10.${100 + (n % 100)}.0.0/24` } },
      },
      {
        what: 'NSG',
        method: 'PUT',
        path: '/networkSecurityGroups/{networkSecurityGroupName}',
        url: () => `${group}/providers/Microsoft.Network/networkSecurityGroups/${fresh('n')}?api-version=${NET}`,
        base: {
          location: 'eastus',
          properties: {
            securityRules: [
              {
                name: 'r',
                properties: SECURITY_RULE,
              },
            ],
          },
        },
      },
      {
        what: 'security rule',
        method: 'PUT',
        path: '/securityRules/{securityRuleName}',
        url: () => inFreshParent('networkSecurityGroups', 'securityRules'),
        base: {
          properties: SECURITY_RULE,
        },
      },
      {
        what: 'route table',
        method: 'PUT',
        path: '/routeTables/{routeTableName}',
        url: () => `${group}/providers/Microsoft.Network/routeTables/${fresh('t')}?api-version=${NET}`,
        base: {
          location: 'eastus',
          properties: { routes: [{ name: 'r', properties: { addressPrefix: '10.0.0.0/8', nextHopType: 'VirtualAppliance', nextHopIpAddress: '10.1.1.1' } }] },
        },
      },
      {
        what: 'route',
        method: 'PUT',
        path: '/routes/{routeName}',
        url: () => inFreshParent('routeTables', 'routes'),
        base: { properties: { addressPrefix: '10.0.0.0/8', nextHopType: 'VirtualAppliance', nextHopIpAddress: '10.1.1.1' } },
      },
      {
        what: 'NIC',
        method: 'PUT',
        path: '/networkInterfaces/{networkInterfaceName}',
        url: () => `${group}/providers/Microsoft.Network/networkInterfaces/${fresh('nic')}?api-version=${NET}`,
        base: nicBody(0),
      },
      {
        what: 'virtual machine',
        method: 'PUT',
        path: '/virtualMachines/{vmName}',
        url: async () => {
          const nic = `${group}/providers/Microsoft.Network/networkInterfaces/${fresh('vmnic')}`;
          assert.equal((await arm(server, 'PUT', `${nic}?api-version=${NET}`, { body: nicBody(n) })).status, 201);
          return `${group}/providers/Microsoft.Compute/virtualMachines/vm${n}?api-version=${VM}`;
        },
        base: {
          location: 'eastus',
          properties: {
            hardwareProfile: { vmSize: 'Standard_B1s' },
            storageProfile: { imageReference: { publisher: 'Canonical', offer: '0001-com-ubuntu-server-jammy', sku: '22_04-lts-gen2', version: 'latest' } },
            osProfile: { computerName: 'vm', adminUsername: 'azureuser', adminPassword: 'S3cret-Pa55word' },
            networkProfile: { networkInterfaces: [{ id: `${group}/providers/Microsoft.Network/networkInterfaces/vmnic{n}` }] },
          },
        },
      },
      {
        what: 'managed cluster',
        method: 'PUT',
        path: '/managedClusters/{resourceName}',
        url: () => `${group}/providers/Microsoft.ContainerService/managedClusters/${fresh('c')}?api-version=${AKS}`,
        base: cluster(),
      },
      {
        what: 'role assignment',
        method: 'PUT',
        path: '/roleAssignments/{roleAssignmentName}',
        url: () => `${group}/providers/Microsoft.Authorization/roleAssignments/3f0b5c1a-0000-4000-8000-${String(++n).padStart(12, '0')}?api-version=${AUTHZ}`,
        base: {
          properties: {
            roleDefinitionId: `/subscriptions/${'{sub}'}/providers/Microsoft.Authorization/roleDefinitions/4d97b98b-1d4f-4787-a291-c67834d212e7`,
            principalId: '6b0e2b5a-0000-4000-8000-000000000001',
            principalType: 'ServicePrincipal',
          },
        },
      },
    ];

    for (const sweep of sweeps) {
      test(sweep.what, async () => {
        const model = route(sweep.method, sweep.path).body!;
        const schema = typeof model === 'function' ? model(AKS) : model;
        const failures: string[] = [];
        for (const v of variants(schema, sweep.base)) {
          const url = await sweep.url();
          const body = JSON.parse(JSON.stringify(v.body).replaceAll('{sub}', sub).replaceAll('vmnic{n}', `vmnic${n}`));
          const res: Reply = await arm(server, sweep.method, url, { body });
          if (res.status >= 500 || (res.body?.error?.code === undefined && res.status >= 400))
            failures.push(`${v.label} → ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`);
          if (res.status < 300) {
            const read = await arm(server, 'GET', url);
            if (read.status >= 500) failures.push(`GET after ${v.label} → ${read.status}`);
          }
        }
        assert.deepEqual(failures, []);
        assert.equal((await arm(server, 'GET', `/subscriptions/${sub}/resourcegroups?api-version=${RG}`)).status, 200);
      });
    }
  });

  describe('tags: at most 50, names ≤ 512 characters without reserved characters, values ≤ 256', () => {
    const tags = (n: number, name = (i: number) => `t${i}`, value = 'v') => Object.fromEntries(Array.from({ length: n }, (_, i) => [name(i), value]));
    const targets = () => [
      { method: 'PUT', url: `/subscriptions/${sub}/resourcegroups/tagged?api-version=${RG}`, body: (t: unknown) => ({ location: 'eastus', tags: t }) },
      { method: 'PATCH', url: `${group}?api-version=${RG}`, body: (t: unknown) => ({ tags: t }) },
      {
        method: 'PUT',
        url: `${group}/providers/Microsoft.Network/routeTables/tagged?api-version=${NET}`,
        body: (t: unknown) => ({ location: 'eastus', tags: t }),
      },
      {
        method: 'PUT',
        url: `${group}/providers/Microsoft.ContainerService/managedClusters/tagged?api-version=${AKS}`,
        body: (t: unknown) => ({ ...cluster(), tags: t }),
      },
    ];

    test("over the limits: ARM's codes and messages, nothing stored", async () => {
      const long = 'n'.repeat(513);
      const cases: Array<[unknown, string, string]> = [
        [tags(51), 'InvalidTags', "Too many tags specified. Requested tag count - '51'. Maximum number of tags allowed - '50'."],
        [
          { [long]: 'v' },
          'InvalidTagName',
          `Tag key too large. Following tag name '${long}' exceeded the maximum length. Maximum allowed length for tag name - '512' characters.`,
        ],
        [
          { a: 'v'.repeat(257) },
          'InvalidTagValueLength',
          `Tag value too large. Following tag value '${'v'.repeat(257)}' exceeded the maximum length. Maximum allowed length for tag value - '256' characters.`,
        ],
        [
          { 'a/b': 'v', 'c<d': 'v', ok: 'v', 'e\u0001': 'v' },
          'InvalidTagNameCharacters',
          "The tag names 'a/b, c<d, e\u0001' have reserved characters '<,>,%,&,\\,?,/' or control characters.",
        ],
        [{ ' ': 'v' }, 'InvalidTagName', 'The tag name must be non-null, non-empty and non-whitespace only. Please provide an actual value.'],
      ];
      for (const target of targets()) {
        const before = keys();
        for (const [t, code, message] of cases) {
          const res = await arm(server, target.method, target.url, { body: target.body(t) });
          assert.equal(res.status, 400, `${target.url} ${code}`);
          assert.deepEqual(res.body.error, { code, message }, target.url);
        }
        assert.deepEqual(keys(), before, target.url);
      }
    });

    test('at the limits: accepted', async () => {
      const atLimit = { ...tags(48), ['n'.repeat(512)]: 'v', long: 'v'.repeat(256) };
      for (const target of targets()) {
        const res = await arm(server, target.method, target.url, { body: target.body(atLimit) });
        assert.ok(res.status === 200 || res.status === 201, `${target.url}: ${JSON.stringify(res.body).slice(0, 200)}`);
      }
    });
  });

  describe('user keys never reach a prototype', () => {
    test('__proto__ and constructor as tag names are kept as tags, and pollute nothing', async () => {
      const url = `/subscriptions/${sub}/resourcegroups/proto?api-version=${RG}`;
      const res = await json('PUT', url, '{"location":"eastus","tags":{"__proto__":"p","constructor":"c","toString":"s"}}');
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const read = await arm(server, 'GET', url);
      assert.deepEqual(Object.entries(read.body.tags), [
        ['__proto__', 'p'],
        ['constructor', 'c'],
        ['toString', 's'],
      ]);
      const patched = await json('PATCH', url, '{"tags":{"__proto__":"q"}}');
      assert.equal(patched.status, 200);
      assert.deepEqual(Object.entries(patched.body.tags), [['__proto__', 'q']]);
      assert.equal(({} as Record<string, unknown>)['p'], undefined);
    });

    test('__proto__ as a member: strict mode names it, loose mode drops it; neither pollutes', async () => {
      const res = await json(
        'PUT',
        `${group}/providers/Microsoft.Network/routeTables/proto?api-version=${NET}`,
        '{"location":"eastus","properties":{"__proto__":{"polluted":true}}}',
      );
      assert.equal(res.status, 400);
      assert.equal(res.body.error.target, 'properties.__proto__');
      const tagObject = await json(
        'PUT',
        `/subscriptions/${sub}/resourcegroups/proto2?api-version=${RG}`,
        '{"location":"eastus","tags":{"__proto__":{"polluted":true}}}',
      );
      assert.equal(tagObject.status, 400);
      assert.equal(tagObject.body.error.target, 'tags.__proto__');
      assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    });

    test('free-form members (aadProfile) keep __proto__ and constructor.prototype as data', async () => {
      const url = `${group}/providers/Microsoft.ContainerService/managedClusters/proto?api-version=${AKS}`;
      const raw = JSON.stringify(cluster()).replace(
        '"dnsPrefix"',
        '"aadProfile":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}},"dnsPrefix"',
      );
      const res = await json('PUT', url, raw);
      assert.ok(res.status < 500, JSON.stringify(res.body));
      assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
      assert.equal((Object.prototype as Record<string, unknown>)['polluted'], undefined);
    });
  });
});

describe('hostile request bodies in loose mode', () => {
  test('dropped members never reach a prototype', async () => {
    const home = tempHome();
    const server = await startTestServer({ home, loose: true });
    try {
      const sub = server.identity.subscriptionId;
      const res = await arm(server, 'PUT', `/subscriptions/${sub}/resourcegroups/loose?api-version=${RG}`, {
        raw: '{"location":"eastus","__proto__":{"polluted":true},"properties":{"constructor":{"prototype":{"polluted":true}}}}',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
      const op = await arm(server, 'DELETE', `/subscriptions/${sub}/resourcegroups/loose?api-version=${RG}`);
      assert.equal(op.status, 202);
      await waitForOperation(server, pathOf(op.headers['location']));
    } finally {
      await server.close();
      removeHome(home);
    }
  });
});
