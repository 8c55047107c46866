// Output formats and the az view of SDK models, checked against what az 2.45 printed on this machine.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatOdataError } from '../../src/cli/az/errors.js';
import { toAzView } from '../../src/cli/az/models/model.js';
import { formatTable, formatTsv, formatYaml } from '../../src/cli/az/output.js';
import { addResourceGroup } from '../../src/cli/az/transforms.js';

test('auto table: sorted keys, id/type/nulls/objects dropped, widths max(header+2, cell), rows right-stripped', () => {
  const group = { id: '/x', location: 'westus2', managedBy: null, name: 'rg2', properties: { provisioningState: 'Succeeded' }, tags: null, type: 't' };
  assert.equal(formatTable(group, undefined, false), 'Location    Name\n----------  ------\nwestus2     rg2\n');
  assert.equal(formatTable(true, undefined, false), 'Result\n--------\nTrue\n');
});

test('tsv: sorted values, None for null, "" for objects, list lengths, lower-case top-level booleans', () => {
  assert.equal(formatTsv([{ b: null, a: 'x', c: { d: 1 }, e: [1, 2], f: true }], false), 'x\tNone\t\t2\tTrue\n');
  assert.equal(formatTsv(true, false), 'true\n');
});

test('yaml as PyYAML safe_dump: sorted keys, block sequences not indented', () => {
  assert.equal(formatYaml({ b: [1, 2], a: null, c: { y: 'z' } }), 'a: null\nb:\n- 1\n- 2\nc:\n  y: z\n');
});

test('error text as azure-core formats ODataV4 errors', () => {
  assert.equal(
    formatOdataError({ code: 'InvalidParameter', message: 'm', target: 'networkProfile.podCIDR' }),
    '(InvalidParameter) m\nCode: InvalidParameter\nMessage: m\nTarget: networkProfile.podCIDR',
  );
  assert.equal(
    formatOdataError({ code: 'A', message: 'b', details: [{ code: 'C', message: 'd' }] }),
    '(A) b\nCode: A\nMessage: b\nException Details:\t(C) d\n\tCode: C\n\tMessage: d',
  );
});

test('model view: camel-cased Python names, properties flattened, nulls, unknown members kept; resourceGroup only for 9+ segment ids', () => {
  const view = toAzView('cs.AgentPool', {
    id: '/subscriptions/s/resourceGroups/rg/providers/P/t/c/agentPools/p',
    name: 'p',
    extra: 1,
    properties: { osDiskSizeGB: 128, type: 'VirtualMachineScaleSets' },
  }) as Record<string, unknown>;
  assert.equal(view['osDiskSizeGb'], 128);
  assert.equal(view['typePropertiesType'], 'VirtualMachineScaleSets');
  assert.equal(view['vnetSubnetId'], null);
  assert.equal(view['extra'], 1);
  assert.ok(!('properties' in view));
  addResourceGroup(view);
  assert.equal(view['resourceGroup'], 'rg');
  const group = { id: '/subscriptions/s/resourceGroups/rg', name: 'rg' } as Record<string, unknown>;
  addResourceGroup(group);
  assert.ok(!('resourceGroup' in group));
});
