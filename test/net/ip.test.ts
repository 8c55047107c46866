import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { AZURE_RESERVED_LOW, AZURE_RESERVED_TOTAL, Cidr, IpAddress, NetParseError, azureUsableCount } from '../../src/net/ip.js';

function parseError(fn: () => unknown): NetParseError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof NetParseError, `expected NetParseError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected a NetParseError');
}

describe('IpAddress', () => {
  test('parses and prints IPv4', () => {
    const a = IpAddress.parse('10.224.0.4');
    assert.equal(a.family, 4);
    assert.equal(a.value, (10n << 24n) | (224n << 16n) | 4n);
    assert.equal(a.toString(), '10.224.0.4');
    assert.equal(IpAddress.parse('0.0.0.0').toString(), '0.0.0.0');
    assert.equal(IpAddress.parse('255.255.255.255').value, 0xffffffffn);
  });

  test('parses IPv6 in every spelling and prints RFC 5952', () => {
    const cases: Array<[string, string]> = [
      ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
      ['2001:DB8::1', '2001:db8::1'],
      ['::', '::'],
      ['::1', '::1'],
      ['1::', '1::'],
      ['fd00:10:244::', 'fd00:10:244::'],
      ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
      ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
      ['1:2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6:102:304'],
      ['::ffff:10.0.0.1', '::ffff:10.0.0.1'],
      ['::ffff:a00:1', '::ffff:10.0.0.1'],
    ];
    for (const [input, printed] of cases) {
      const a = IpAddress.parse(input);
      assert.equal(a.family, 6, input);
      assert.equal(a.toString(), printed, input);
      assert.ok(IpAddress.parse(printed).equals(a), `round trip of ${input}`);
    }
  });

  test('the deprecated IPv4-compatible form ::a.b.c.d keeps its value (ipaddr.js would map it to ::ffff:a.b.c.d)', () => {
    const a = IpAddress.parse('::1.2.3.4');
    assert.equal(a.value, 0x01020304n);
    assert.equal(a.toString(), '::102:304');
  });

  test('refuses garbage', () => {
    for (const s of [
      '',
      ' ',
      'abc',
      '10.0.0',
      '10.1',
      '10.0.0.256',
      '10.0.0.1.5',
      '010.0.0.1',
      '0x0a.0.0.1',
      '10.0.0.-1',
      '1.2.3.4/32',
      '1:2:3:4:5:6:7:8:9',
      ':::',
      '2001:db8::g',
      '2001:db8::1::2',
      'fe80::1%eth0',
      '1.2.3.4::',
      '::1.2.3',
      '::256.1.1.1',
    ]) {
      const e = parseError(() => IpAddress.parse(s));
      assert.equal(e.kind, 'syntax', s);
      assert.equal(IpAddress.tryParse(s), undefined, s);
    }
  });

  test('property: dotted strings read as ipaddr.js reads its four-part decimal form (the fast path agrees)', () => {
    const part = fc.oneof(fc.nat(300).map(String), fc.constantFrom('00', '01', '007', '0255', '256', '1000', '', 'x', '-1', '0x1'));
    fc.assert(
      fc.property(fc.tuple(part, part, part, part), fc.constantFrom('', ' ', '\t'), (parts, pad) => {
        const s = `${pad}${parts.join('.')}${pad}`;
        const trimmed = s.trim();
        const expected = ipaddr.IPv4.isValidFourPartDecimal(trimmed)
          ? BigInt(
              ipaddr.IPv4.parse(trimmed)
                .toByteArray()
                .reduce((v, b) => v * 256 + b, 0),
            )
          : undefined;
        assert.equal(IpAddress.tryParse(s)?.value, expected, s);
      }),
      { numRuns: 2000 },
    );
  });

  test('plus and equals', () => {
    const a = IpAddress.parse('10.0.0.255');
    assert.equal(a.plus(1).toString(), '10.0.1.0');
    assert.ok(a.plus(1n).equals(IpAddress.parse('10.0.1.0')));
    assert.ok(!IpAddress.parse('::a00:1').equals(IpAddress.parse('10.0.0.1')), 'families differ');
  });

  test('property: IPv4 and IPv6 print/parse round trip', () => {
    fc.assert(
      fc.property(fc.ipV4(), (s) => {
        assert.equal(IpAddress.parse(s).toString(), s);
      }),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), (v) => {
        const a = new IpAddress(6, v);
        assert.equal(IpAddress.parse(a.toString()).value, v);
      }),
    );
    fc.assert(
      fc.property(fc.ipV6(), (s) => {
        const a = IpAddress.parse(s);
        assert.equal(IpAddress.parse(a.toString()).value, a.value);
      }),
    );
  });
});

describe('Cidr', () => {
  test('parses canonical CIDRs of both families', () => {
    const v4 = Cidr.parse('10.244.0.0/16');
    assert.equal(v4.family, 4);
    assert.equal(v4.prefix, 16);
    assert.equal(v4.size, 65536n);
    assert.equal(v4.first.toString(), '10.244.0.0');
    assert.equal(v4.last.toString(), '10.244.255.255');
    assert.equal(v4.toString(), '10.244.0.0/16');

    const v6 = Cidr.parse('fd00:10:244::/56');
    assert.equal(v6.family, 6);
    assert.equal(v6.size, 1n << 72n);
    assert.equal(v6.last.toString(), 'fd00:10:244:ff:ffff:ffff:ffff:ffff');
    assert.equal(Cidr.parse('2001:0DB8::/32').toString(), '2001:db8::/32');
    assert.equal(Cidr.parse('0.0.0.0/0').size, 1n << 32n);
    assert.equal(Cidr.parse('::/0').size, 1n << 128n);
    assert.equal(Cidr.parse('10.0.0.7/32').size, 1n);
  });

  test('refuses host bits with kind not-canonical, and accepts them when asked', () => {
    const e = parseError(() => Cidr.parse('10.2.0.1/24'));
    assert.equal(e.kind, 'not-canonical');
    assert.equal(e.input, '10.2.0.1/24');
    assert.match(e.message, /10\.2\.0\.0\/24/);
    assert.equal(parseError(() => Cidr.parse('2001:db8::1/64')).kind, 'not-canonical');
    assert.equal(Cidr.parse('10.2.0.1/24', { canonical: false }).toString(), '10.2.0.0/24');
  });

  test('refuses garbage with kind syntax', () => {
    for (const s of [
      '',
      '10.0.0.0',
      '10.0.0.0/',
      '/24',
      '10.0.0.0/33',
      '10.0.0.0/-1',
      '10.0.0.0/024',
      '10.0.0.0/ 24',
      '10.0.0.0/24/24',
      '10.0.0/24',
      'garbage/8',
      '2001:db8::/129',
      '10.0.0.0/1e1',
      'fe80::%eth0/64',
    ]) {
      assert.equal(parseError(() => Cidr.parse(s)).kind, 'syntax', s);
    }
  });

  test('family option', () => {
    assert.equal(parseError(() => Cidr.parse('10.0.0.0/8', { family: 6 })).kind, 'family');
    assert.equal(parseError(() => Cidr.parse('fd00::/8', { family: 4 })).kind, 'family');
    assert.equal(Cidr.parse('fd00::/8', { family: 6 }).family, 6);
  });

  test('containment and overlap, IPv4', () => {
    const vnet = Cidr.parse('10.224.0.0/12');
    const subnet = Cidr.parse('10.224.0.0/16');
    const other = Cidr.parse('10.240.0.0/16');
    assert.ok(vnet.containsCidr(subnet));
    assert.ok(!subnet.containsCidr(vnet));
    assert.ok(vnet.overlaps(subnet) && subnet.overlaps(vnet));
    assert.ok(!vnet.overlaps(other) && !other.overlaps(vnet));
    assert.ok(vnet.containsCidr(vnet) && vnet.overlaps(vnet));
    assert.ok(vnet.contains(IpAddress.parse('10.239.255.255')));
    assert.ok(!vnet.contains(IpAddress.parse('10.240.0.0')));
    assert.ok(!vnet.contains(IpAddress.parse('10.223.255.255')));
    // Adjacent blocks do not overlap.
    assert.ok(!Cidr.parse('10.0.0.0/24').overlaps(Cidr.parse('10.0.1.0/24')));
    // Service CIDR vs pod CIDR, AKS defaults.
    assert.ok(!Cidr.parse('10.0.0.0/16').overlaps(Cidr.parse('10.244.0.0/16')));
    assert.ok(Cidr.parse('10.0.0.0/8').overlaps(Cidr.parse('10.244.0.0/16')));
  });

  test('containment and overlap, IPv6, and never across families', () => {
    const big = Cidr.parse('fd00::/8');
    const small = Cidr.parse('fd00:10:244::/56');
    assert.ok(big.containsCidr(small) && !small.containsCidr(big));
    assert.ok(big.overlaps(small) && small.overlaps(big));
    assert.ok(!Cidr.parse('fd00::/64').overlaps(Cidr.parse('fd00:0:0:1::/64')));
    assert.ok(small.contains(IpAddress.parse('fd00:10:244:ff::1')));
    assert.ok(!small.contains(IpAddress.parse('fd00:10:245::')));
    const all4 = Cidr.parse('0.0.0.0/0');
    const all6 = Cidr.parse('::/0');
    assert.ok(!all6.overlaps(all4) && !all4.overlaps(all6));
    assert.ok(!all6.contains(IpAddress.parse('10.0.0.1')));
    assert.ok(!all6.containsCidr(Cidr.parse('10.0.0.0/8')));
  });

  test('subnet, addressAt, offsetOf', () => {
    const pod = Cidr.parse('10.244.0.0/16');
    assert.equal(pod.subnet(24, 0).toString(), '10.244.0.0/24');
    assert.equal(pod.subnet(24, 2).toString(), '10.244.2.0/24');
    assert.equal(pod.addressAt(4).toString(), '10.244.0.4');
    assert.equal(pod.offsetOf(IpAddress.parse('10.244.1.0')), 256n);
    assert.throws(() => pod.addressAt(65536), RangeError);
    assert.throws(() => pod.addressAt(-1), RangeError);
    assert.equal(Cidr.parse('2001:db8::/48').subnet(64, 15).toString(), '2001:db8:0:f::/64');
  });

  test('property: overlap is symmetric and matches interval intersection', () => {
    const cidr4 = fc.tuple(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 32 })).map(([v, p]) => Cidr.of(4, BigInt(v), p));
    fc.assert(
      fc.property(cidr4, cidr4, (a, b) => {
        const intersects = a.first.value <= b.last.value && b.first.value <= a.last.value;
        assert.equal(a.overlaps(b), intersects);
        assert.equal(b.overlaps(a), intersects);
        assert.equal(a.containsCidr(b), a.first.value <= b.first.value && b.last.value <= a.last.value);
        // Canonical text round-trips.
        assert.ok(Cidr.parse(a.toString()).equals(a));
      }),
    );
  });
});

describe('Azure usable count', () => {
  test('2^(32-p) - 5, never below zero', () => {
    assert.equal(AZURE_RESERVED_LOW, 4);
    assert.equal(AZURE_RESERVED_TOTAL, 5);
    const expect: Array<[string, bigint]> = [
      ['10.0.0.0/8', 16777211n],
      ['10.224.0.0/16', 65531n],
      ['10.0.0.0/21', 2043n],
      ['10.0.0.0/22', 1019n],
      ['10.0.0.0/23', 507n],
      ['10.240.0.0/24', 251n],
      ['10.0.0.0/27', 27n],
      ['10.0.0.0/29', 3n],
      ['10.0.0.0/30', 0n],
      ['10.0.0.0/31', 0n],
      ['10.0.0.0/32', 0n],
      ['2001:db8::/120', 251n],
      ['2001:db8::/64', (1n << 64n) - 5n],
    ];
    for (const [cidr, n] of expect) assert.equal(azureUsableCount(Cidr.parse(cidr)), n, cidr);
  });

  test('docs/aks-rules.md §4 vectors: kubenet /24 → 251 nodes, 27,610 pods; Azure CNI /24 → 8 nodes at maxPods 30', () => {
    const usable = Number(azureUsableCount(Cidr.parse('10.240.0.0/24')));
    assert.equal(usable, 251);
    assert.equal(usable * 110, 27610);
    assert.equal(Math.floor(usable / 31), 8);
    assert.equal(8 * 30, 240);
  });
});
