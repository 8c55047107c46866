// Golden tests of the cidr functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-cidr
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { outputValue, runPage } from './harness.js';
import { CIDR_PAGE } from './pages/cidr.js';

describe('template functions: cidr (the reference examples)', () => runPage(CIDR_PAGE));

describe('template functions: CIDR edges', () => {
  test('host bits are masked; /31 and /32 have no network or broadcast address to leave out', () => {
    // An address inside the page's 10.144.0.0/20 parses as the range itself.
    assert.deepEqual(outputValue("[parseCidr('10.144.1.5/20')]", 'object'), CIDR_PAGE.examples[0]!.outputs['v4info']);
    assert.equal(outputValue("[cidrHost('10.0.0.0/31', 1)]"), '10.0.0.1');
    assert.equal(outputValue("[cidrHost('192.168.1.0/24', 0)]"), '192.168.1.1');
  });
});
