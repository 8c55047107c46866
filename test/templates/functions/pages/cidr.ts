// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-cidr
// The examples of the CIDR functions page and the values it documents.
import { type Page, template } from '../harness.js';

/** The page's output loops: the first five results of fn(range(0, 5)[copyIndex()]). */
function firstFive(name: string, input: string): Record<string, unknown> {
  return template({ outputs: { [name]: { type: 'array', copy: { count: '[length(range(0, 5))]', input } } } });
}

export const CIDR_PAGE: Page = {
  url: 'https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-cidr',
  examples: [
    {
      name: 'parseCidr of IPv4',
      template: template({ outputs: { v4info: { type: 'object', value: "[parseCidr('10.144.0.0/20')]" } } }),
      outputs: {
        v4info: {
          network: '10.144.0.0',
          netmask: '255.255.240.0',
          broadcast: '10.144.15.255',
          firstUsable: '10.144.0.1',
          lastUsable: '10.144.15.254',
          cidr: 20,
        },
      },
    },
    {
      name: 'parseCidr of IPv6',
      template: template({ outputs: { v6info: { type: 'object', value: "[parseCidr('fdad:3236:5555::/48')]" } } }),
      outputs: {
        v6info: {
          network: 'fdad:3236:5555::',
          netmask: 'ffff:ffff:ffff::',
          firstUsable: 'fdad:3236:5555::',
          lastUsable: 'fdad:3236:5555:ffff:ffff:ffff:ffff:ffff',
          cidr: 48,
        },
      },
    },
    {
      name: 'cidrSubnet of IPv4',
      template: firstFive('v4subnets', "[cidrSubnet('10.144.0.0/20', 24, range(0, 5)[copyIndex()])]"),
      outputs: { v4subnets: ['10.144.0.0/24', '10.144.1.0/24', '10.144.2.0/24', '10.144.3.0/24', '10.144.4.0/24'] },
    },
    {
      name: 'cidrSubnet of IPv6',
      template: firstFive('v6subnets', "[cidrSubnet('fdad:3236:5555::/48', 52, range(0, 5)[copyIndex()])]"),
      outputs: {
        v6subnets: ['fdad:3236:5555::/52', 'fdad:3236:5555:1000::/52', 'fdad:3236:5555:2000::/52', 'fdad:3236:5555:3000::/52', 'fdad:3236:5555:4000::/52'],
      },
    },
    {
      name: 'cidrHost of IPv4',
      template: firstFive('v4hosts', "[cidrHost('10.144.3.0/24', range(0, 5)[copyIndex()])]"),
      outputs: { v4hosts: ['10.144.3.1', '10.144.3.2', '10.144.3.3', '10.144.3.4', '10.144.3.5'] },
    },
    {
      name: 'cidrHost of IPv6',
      template: firstFive('v6hosts', "[cidrHost('fdad:3236:5555:3000::/52', range(0, 5)[copyIndex()])]"),
      outputs: {
        v6hosts: ['fdad:3236:5555:3000::1', 'fdad:3236:5555:3000::2', 'fdad:3236:5555:3000::3', 'fdad:3236:5555:3000::4', 'fdad:3236:5555:3000::5'],
      },
    },
  ],
  invalid: [
    // not a CIDR
    [
      "[parseCidr('10.144.0.0')]",
      "The template language function 'parseCidr' expects its first parameter to be an IP address range in CIDR notation. The provided value '10.144.0.0' is not valid.",
    ],
    // a subnet index past the range
    ["[cidrSubnet('10.144.0.0/20', 24, 16)]", "expects its third parameter, the subnet index, to be from 0 to 15. The provided value is '16'."],
    // a new CIDR shorter than the range
    ["[cidrSubnet('10.144.0.0/20', 16, 0)]", "expects its second parameter, the new CIDR, to be from 20 to 32. The provided value is '16'."],
    // a host index past the usable hosts
    ["[cidrHost('192.168.1.0/24', 254)]", "expects its second parameter, the host index, to be from 0 to 253 for '192.168.1.0/24'."],
  ],
};
