// Golden tests of the cidr functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-cidr
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertInvalidVariable, outputValue, runPage } from './harness.js';
import { CIDR_PAGE } from './pages/cidr.js';

describe('template functions: cidr (the reference examples)', () => runPage(CIDR_PAGE));

describe('template functions: CIDR errors and edges', () => {
  test('not a CIDR', () =>
    assertInvalidVariable(
      "[parseCidr('10.144.0.0')]",
      "The template language function 'parseCidr' expects its first parameter to be an IP address range in CIDR notation. The provided value '10.144.0.0' is not valid.",
    ));
  test('a subnet index past the range', () =>
    assertInvalidVariable(
      "[cidrSubnet('10.144.0.0/20', 24, 16)]",
      "expects its third parameter, the subnet index, to be from 0 to 15. The provided value is '16'.",
    ));
  test('a new CIDR shorter than the range', () =>
    assertInvalidVariable(
      "[cidrSubnet('10.144.0.0/20', 16, 0)]",
      "expects its second parameter, the new CIDR, to be from 20 to 32. The provided value is '16'.",
    ));
  test('a host index past the usable hosts', () =>
    assertInvalidVariable("[cidrHost('192.168.1.0/24', 254)]", "expects its second parameter, the host index, to be from 0 to 253 for '192.168.1.0/24'."));
  test('host bits are masked; /31 and /32 have no network or broadcast address to leave out', () => {
    assert.deepEqual(outputValue("[parseCidr('10.144.1.5/20')]", 'object'), {
      network: '10.144.0.0',
      netmask: '255.255.240.0',
      broadcast: '10.144.15.255',
      firstUsable: '10.144.0.1',
      lastUsable: '10.144.15.254',
      cidr: 20,
    });
    assert.equal(outputValue("[cidrHost('10.0.0.0/31', 1)]"), '10.0.0.1');
    assert.equal(outputValue("[cidrHost('192.168.1.0/24', 0)]"), '192.168.1.1');
  });
});
