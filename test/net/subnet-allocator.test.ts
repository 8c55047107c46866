import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Cidr, IpAddress } from '../../src/net/ip.js';
import { SubnetAllocator } from '../../src/net/subnet-allocator.js';

const ip = (s: string): IpAddress => IpAddress.parse(s);

describe('SubnetAllocator', () => {
  test('first node address is .4, then ascending', () => {
    const a = new SubnetAllocator(Cidr.parse('10.224.0.0/16'));
    assert.equal(a.allocate('node-0')?.toString(), '10.224.0.4');
    assert.equal(a.allocate('node-1')?.toString(), '10.224.0.5');
    assert.equal(a.allocate('node-2')?.toString(), '10.224.0.6');
    assert.equal(a.ownerOf(ip('10.224.0.5')), 'node-1');
    assert.equal(a.used, 3);
    assert.equal(a.usable, 65531);
    assert.equal(a.free, 65528);
  });

  test('usable counts: /24 → 251, /27 → 27, /29 → 3, /30 and smaller → 0', () => {
    const cases: Array<[string, number]> = [
      ['10.240.0.0/24', 251],
      ['10.0.0.0/27', 27],
      ['10.0.0.0/29', 3],
      ['10.0.0.0/30', 0],
      ['10.0.0.0/31', 0],
      ['10.0.0.0/32', 0],
      ['10.0.0.0/16', 65531],
      ['2001:db8::/120', 251],
    ];
    for (const [cidr, n] of cases) {
      const a = new SubnetAllocator(Cidr.parse(cidr));
      assert.equal(a.usable, n, cidr);
      assert.equal(a.free, n, cidr);
    }
  });

  test('a /29 hands out .4 .5 .6 and then nothing; .7 (broadcast) is never handed out', () => {
    const a = new SubnetAllocator(Cidr.parse('10.0.0.8/29'));
    assert.deepEqual(
      a.allocateMany(3, 'n')?.map((x) => x.toString()),
      ['10.0.0.12', '10.0.0.13', '10.0.0.14'],
    );
    assert.equal(a.allocate('n'), undefined);
    assert.equal(a.allocateMany(1, 'n'), undefined);
    assert.ok(!a.claim(ip('10.0.0.15'), 'x'), 'last address is reserved');
    assert.equal(new SubnetAllocator(Cidr.parse('10.0.0.0/30')).allocate('x'), undefined);
  });

  test('Azure CNI /24 at maxPods 30: 8 nodes of 31 IPs fit, the 9th does not (docs/aks-rules.md §4 E2)', () => {
    const a = new SubnetAllocator(Cidr.parse('10.240.0.0/24'));
    for (let n = 0; n < 8; n++) {
      const ips = a.allocateMany(31, `node-${n}`);
      assert.ok(ips, `node ${n}`);
      assert.equal(ips[0]!.toString(), `10.240.0.${4 + 31 * n}`);
    }
    assert.equal(a.free, 3);
    assert.equal(a.allocateMany(31, 'node-8'), undefined, 'all or nothing');
    assert.equal(a.free, 3, 'nothing taken by the failed request');
    assert.equal(a.countOf('node-8'), 0);
    assert.deepEqual(a.allocateMany(0, 'node-8'), []);
  });

  test('claim refuses taken, reserved, outside and wrong-family addresses', () => {
    const a = new SubnetAllocator(Cidr.parse('10.1.0.0/24'));
    for (const r of ['10.1.0.0', '10.1.0.1', '10.1.0.2', '10.1.0.3', '10.1.0.255']) {
      assert.ok(!a.claim(ip(r), 'x'), r);
      assert.equal(a.ownerOf(ip(r)), undefined);
    }
    assert.ok(!a.claim(ip('10.1.1.4'), 'x'));
    assert.ok(!a.claim(ip('10.0.255.255'), 'x'));
    assert.ok(!a.claim(ip('::ffff:10.1.0.10'), 'x'));
    assert.ok(a.claim(ip('10.1.0.10'), 'lb'));
    assert.ok(!a.claim(ip('10.1.0.10'), 'other'));
    assert.equal(a.ownerOf(ip('10.1.0.10')), 'lb');
    // Allocation goes around a claimed address.
    const got = a.allocateMany(8, 'n')!.map(String);
    assert.deepEqual(got, ['10.1.0.4', '10.1.0.5', '10.1.0.6', '10.1.0.7', '10.1.0.8', '10.1.0.9', '10.1.0.11', '10.1.0.12']);
    assert.equal(a.used, 9);
  });

  test('release and releaseOwner', () => {
    const a = new SubnetAllocator(Cidr.parse('10.224.0.0/16'));
    const n0 = a.allocateMany(31, 'node-0')!;
    const n1 = a.allocateMany(31, 'node-1')!;
    a.allocateMany(31, 'node-2');
    assert.equal(a.used, 93);
    assert.ok(a.release(n0[5]!));
    assert.ok(!a.release(n0[5]!), 'double release');
    assert.ok(!a.release(ip('10.224.0.0')), 'reserved');
    assert.ok(!a.release(ip('10.225.0.4')), 'outside');
    assert.equal(a.countOf('node-0'), 30);
    assert.equal(a.releaseOwner('node-1'), 31);
    assert.equal(a.releaseOwner('node-1'), 0);
    assert.equal(a.releaseOwner('nobody'), 0);
    assert.equal(a.ownerOf(n1[0]!), undefined);
    assert.equal(a.used, 61);
    // The lowest free address is the one released from node-0.
    assert.equal(a.allocate('node-3')?.toString(), n0[5]!.toString());
    assert.equal(a.allocate('node-3')?.toString(), n1[0]!.toString());
    // Owner table slots are recycled; names are still right.
    assert.equal(a.releaseOwner('node-0'), 30);
    const again = a.allocateMany(2, 'node-4')!;
    assert.equal(a.ownerOf(again[0]!), 'node-4');
    assert.equal(a.ownerOf(ip(n1[0]!.toString())), 'node-3');
    const entries = [...a.entries()];
    assert.equal(entries.length, a.used);
    for (let i = 1; i < entries.length; i++) assert.ok(entries[i - 1]![0].value < entries[i]![0].value, 'ascending');
  });

  test('releaseOwner with addresses far apart (claims across pages)', () => {
    const a = new SubnetAllocator(Cidr.parse('10.0.0.0/16'));
    assert.ok(a.claim(ip('10.0.0.9'), 'x'));
    assert.ok(a.claim(ip('10.0.200.1'), 'x'));
    assert.ok(a.claim(ip('10.0.100.1'), 'y'));
    assert.equal(a.releaseOwner('x'), 2);
    assert.equal(a.used, 1);
    assert.equal(a.ownerOf(ip('10.0.100.1')), 'y');
  });

  test('IPv6 subnet: first address ::4, managed window capped at 2^24 addresses', () => {
    const a = new SubnetAllocator(Cidr.parse('fd00:10:224::/64'));
    assert.equal(a.usable, 2 ** 24 - 4);
    assert.equal(a.allocate('n')?.toString(), 'fd00:10:224::4');
    assert.equal(a.allocate('n')?.toString(), 'fd00:10:224::5');
    assert.ok(a.claim(ip('fd00:10:224::ff:ffff'), 'edge'), 'last managed address');
    assert.ok(!a.claim(ip('fd00:10:224::100:0'), 'x'), 'beyond the 2^24 window');
    assert.ok(!a.claim(ip('fd00:10:224::3'), 'x'), 'reserved');
    assert.ok(!a.claim(ip('10.0.0.4'), 'x'), 'other family');
    const small = new SubnetAllocator(Cidr.parse('fd00::/125'));
    assert.equal(small.usable, 3);
    assert.deepEqual(small.allocateMany(3, 'n')!.map(String), ['fd00::4', 'fd00::5', 'fd00::6']);
    assert.ok(!small.claim(ip('fd00::7'), 'x'), 'last address reserved in IPv6 too');
  });

  test('5,000 nodes × 31 IPs in a /14 fit and are fast', () => {
    const a = new SubnetAllocator(Cidr.parse('10.224.0.0/14'));
    const t0 = performance.now();
    for (let n = 0; n < 5000; n++) assert.ok(a.allocateMany(31, `node-${n}`));
    const ms = performance.now() - t0;
    assert.equal(a.used, 155000);
    assert.equal(a.ownerOf(ip('10.224.0.4')), 'node-0');
    assert.ok(ms < 2000, `took ${ms} ms`);
  });

  test('property: random allocate/claim/release never double-assigns and counts stay consistent', () => {
    const subnet = fc.oneof(
      fc.tuple(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 22, max: 32 })).map(([v, p]) => Cidr.of(4, BigInt(v), p)),
      fc.tuple(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), fc.integer({ min: 118, max: 128 })).map(([v, p]) => Cidr.of(6, v, p)),
    );
    const owners = ['a', 'b', 'c', 'd'];
    const op = fc.oneof(
      { arbitrary: fc.record({ kind: fc.constant('alloc' as const), owner: fc.constantFrom(...owners) }), weight: 4 },
      {
        arbitrary: fc.record({ kind: fc.constant('many' as const), owner: fc.constantFrom(...owners), n: fc.nat(40) }),
        weight: 2,
      },
      {
        // Offsets from network−2 to past the end, so claims hit reserved and outside addresses too.
        arbitrary: fc.record({ kind: fc.constant('claim' as const), owner: fc.constantFrom(...owners), off: fc.integer({ min: -2, max: 1100 }) }),
        weight: 2,
      },
      { arbitrary: fc.record({ kind: fc.constant('release' as const), off: fc.integer({ min: -2, max: 1100 }) }), weight: 2 },
      { arbitrary: fc.record({ kind: fc.constant('releaseOwner' as const), owner: fc.constantFrom(...owners) }), weight: 1 },
    );
    fc.assert(
      fc.property(subnet, fc.array(op, { maxLength: 120 }), (cidr, ops) => {
        const a = new SubnetAllocator(cidr);
        const size = Number(cidr.size);
        const usable = Math.max(0, size - 5);
        assert.equal(a.usable, usable);
        const model = new Map<bigint, string>(); // address value → owner
        const isUsable = (v: bigint): boolean => v >= cidr.network + 4n && v <= cidr.network + BigInt(size) - 2n;
        const at = (off: number): IpAddress => new IpAddress(cidr.family, cidr.network + BigInt(off));
        const lowestFree = (): bigint | undefined => {
          for (let o = 4; o <= size - 2; o++) {
            const v = cidr.network + BigInt(o);
            if (!model.has(v)) return v;
          }
          return undefined;
        };
        for (const o of ops) {
          switch (o.kind) {
            case 'alloc': {
              const want = lowestFree();
              const got = a.allocate(o.owner);
              assert.equal(got?.value, want);
              if (got) {
                assert.ok(isUsable(got.value) && cidr.contains(got));
                model.set(got.value, o.owner);
              }
              break;
            }
            case 'many': {
              const got = a.allocateMany(o.n, o.owner);
              if (usable - model.size < o.n) {
                assert.equal(got, undefined);
              } else {
                assert.ok(got);
                assert.equal(got.length, o.n);
                for (const g of got) {
                  assert.ok(isUsable(g.value) && cidr.contains(g), `${g} usable in ${cidr}`);
                  assert.ok(!model.has(g.value), `${g} handed out twice`);
                  model.set(g.value, o.owner);
                }
              }
              break;
            }
            case 'claim': {
              const addr = at(o.off);
              const ok = o.off >= 0 && isUsable(addr.value) && !model.has(addr.value);
              assert.equal(a.claim(addr, o.owner), ok, `claim ${addr}`);
              if (ok) model.set(addr.value, o.owner);
              break;
            }
            case 'release': {
              const addr = at(o.off);
              const ok = o.off >= 0 && model.has(addr.value);
              assert.equal(a.release(addr), ok);
              if (ok) model.delete(addr.value);
              break;
            }
            case 'releaseOwner': {
              let n = 0;
              for (const [v, w] of model) {
                if (w === o.owner) {
                  model.delete(v);
                  n++;
                }
              }
              assert.equal(a.releaseOwner(o.owner), n);
              break;
            }
          }
          assert.equal(a.used, model.size);
          assert.equal(a.free, usable - model.size);
        }
        const entries = [...a.entries()];
        assert.equal(entries.length, model.size);
        for (const [addr, owner] of entries) {
          assert.equal(model.get(addr.value), owner);
          assert.equal(a.ownerOf(addr), owner);
        }
      }),
      { numRuns: 300 },
    );
  });
});
