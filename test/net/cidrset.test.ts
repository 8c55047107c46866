import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Cidr } from '../../src/net/ip.js';
import { CIDR_SET_MESSAGES, CidrSet, CidrSetError, type CidrSetErrorCode } from '../../src/net/cidrset.js';

const cidr = (s: string): Cidr => Cidr.parse(s);
/** Like Go's ParseCIDRSloppy + IPNet: host bits are dropped. */
const sloppy = (s: string): Cidr => Cidr.parse(s, { canonical: false });

function throwsCode(fn: () => unknown, code: CidrSetErrorCode, message?: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof CidrSetError, `expected CidrSetError, got ${String(e)}`);
    assert.equal(e.code, code);
    if (message !== undefined) assert.equal(e.message, message);
    return true;
  });
}

describe('CidrSet', () => {
  test('AKS kubenet order for 10.244.0.0/16: 10.244.0.0/24, 10.244.1.0/24, 10.244.2.0/24 …', () => {
    const s = new CidrSet(cidr('10.244.0.0/16'), 24);
    assert.equal(s.maxCidrs, 256);
    const got = [s.allocateNext(), s.allocateNext(), s.allocateNext()].map(String);
    assert.deepEqual(got, ['10.244.0.0/24', '10.244.1.0/24', '10.244.2.0/24']);
    assert.equal(s.allocatedCount, 3);
    assert.ok(s.isAllocated(0) && s.isAllocated(2) && !s.isAllocated(3));
  });

  test('exhaustion error, byte for byte', () => {
    const s = new CidrSet(cidr('10.244.0.0/22'), 24);
    for (let i = 0; i < 4; i++) s.allocateNext();
    throwsCode(
      () => s.allocateNext(),
      'CIDRRangeNoCIDRsRemaining',
      'CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted range',
    );
    assert.equal(CIDR_SET_MESSAGES.noCidrsRemaining, 'CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted range');
  });

  test('a released block is not reused until the scan wraps', () => {
    const s = new CidrSet(cidr('10.244.0.0/22'), 24); // 4 blocks
    const a = s.allocateNext(); // .0
    s.allocateNext(); // .1
    s.release(a);
    assert.equal(s.allocatedCount, 1);
    assert.equal(s.allocateNext().toString(), '10.244.2.0/24', 'not the released 10.244.0.0/24');
    assert.equal(s.allocateNext().toString(), '10.244.3.0/24');
    assert.equal(s.allocateNext().toString(), '10.244.0.0/24', 'reused after the wrap');
    throwsCode(() => s.allocateNext(), 'CIDRRangeNoCIDRsRemaining');
    // Release in the middle; the next candidate is after the last allocated (index 1), so .1 is found at once.
    s.release(cidr('10.244.1.0/24'));
    s.release(cidr('10.244.3.0/24'));
    assert.equal(s.nextCandidate, 1);
    assert.equal(s.allocateNext().toString(), '10.244.1.0/24');
    assert.equal(s.allocateNext().toString(), '10.244.3.0/24');
  });

  test('upstream TestCIDRSetFullyAllocated (IPv4 and IPv6)', () => {
    for (const c of ['127.123.234.0/30', 'beef:1234::/30']) {
      const s = new CidrSet(cidr(c), 30);
      const p = s.allocateNext();
      assert.equal(p.toString(), c);
      throwsCode(() => s.allocateNext(), 'CIDRRangeNoCIDRsRemaining');
      s.release(p);
      assert.equal(s.allocateNext().toString(), c);
      throwsCode(() => s.allocateNext(), 'CIDRRangeNoCIDRsRemaining');
    }
  });

  test('upstream TestIndexToCIDRBlock', () => {
    const cases: Array<[string, number, number, string]> = [
      ['127.123.3.0/16', 24, 0, '127.123.0.0/24'],
      ['127.123.0.0/16', 24, 15, '127.123.15.0/24'],
      ['192.168.5.219/28', 32, 5, '192.168.5.213/32'],
      ['2001:0db8:1234:3::/48', 64, 0, '2001:db8:1234::/64'],
      ['2001:0db8:1234::/48', 64, 15, '2001:db8:1234:f::/64'],
      ['2001:0db8:85a3::8a2e:0370:7334/50', 63, 6425, '2001:db8:85a3:3232::/63'],
      ['2001:0db8::/32', 48, 0, '2001:db8::/48'],
      ['2001:0db8::/32', 48, 15, '2001:db8:f::/48'],
      ['2001:0db8:85a3::8a2e:0370:7334/32', 48, 6425, '2001:db8:1919::/48'],
      ['2001:0db8:1234:ff00::/56', 72, 0, '2001:db8:1234:ff00::/72'],
      ['2001:0db8:1234:ff00::/56', 72, 15, '2001:db8:1234:ff00:f00::/72'],
      ['2001:0db8:1234:ff00::0370:7334/56', 72, 6425, '2001:db8:1234:ff19:1900::/72'],
      ['2001:0db8:1234:0:1234::/80', 96, 0, '2001:db8:1234:0:1234::/96'],
      ['2001:0db8:1234:0:1234::/80', 96, 15, '2001:db8:1234:0:1234:f::/96'],
      ['2001:0db8:1234:ff00::0370:7334/80', 96, 6425, '2001:db8:1234:ff00:0:1919::/96'],
    ];
    for (const [cluster, mask, index, want] of cases) {
      const s = new CidrSet(sloppy(cluster), mask);
      assert.equal(s.cidrAt(index).toString(), want, `${cluster} /${mask} #${index}`);
      assert.equal(s.indexOf(cidr(want)), index);
    }
  });

  test('upstream TestCIDRSet_RandomishAllocation and AllocationOccupied', () => {
    for (const c of ['127.123.234.0/16', 'beef:1234::/16']) {
      const s = new CidrSet(sloppy(c), 24);
      const first: string[] = [];
      for (let i = 0; i < 256; i++) first.push(s.allocateNext().toString());
      throwsCode(() => s.allocateNext(), 'CIDRRangeNoCIDRsRemaining');
      for (const x of first) s.release(cidr(x));
      const again: string[] = [];
      for (let i = 0; i < 256; i++) again.push(s.allocateNext().toString());
      assert.deepEqual(again, first);

      for (const x of first) s.release(cidr(x));
      for (let i = 128; i < 256; i++) s.occupy(cidr(first[i]!));
      s.occupy(cidr(first[128]!));
      const rest: string[] = [];
      for (let i = 0; i < 128; i++) rest.push(s.allocateNext().toString());
      throwsCode(() => s.allocateNext(), 'CIDRRangeNoCIDRsRemaining');
      assert.deepEqual(rest, first.slice(0, 128));
    }
  });

  test('upstream TestDoubleOccupyRelease', () => {
    const s = new CidrSet(cidr('10.42.0.0/16'), 24);
    const steps: Array<[string, 'occupy' | 'release', number]> = [
      ['10.42.5.0/24', 'occupy', 1],
      ['10.42.9.0/24', 'occupy', 2],
      ['10.42.8.0/22', 'occupy', 5],
      ['10.42.9.0/24', 'occupy', 5],
      ['10.42.9.0/24', 'release', 4],
      ['10.42.9.0/24', 'release', 4],
      ['10.42.4.0/22', 'release', 3],
    ];
    for (const [c, op, n] of steps) {
      s[op](cidr(c));
      assert.equal(s.allocatedCount, n, `${op} ${c}`);
    }
    for (let i = 0; i < 256 - 3; i++) s.allocateNext();
    throwsCode(() => s.allocateNext(), 'CIDRRangeNoCIDRsRemaining');
  });

  test('upstream TestGetBitforCIDR', () => {
    const cases: Array<[string, number, string, number | 'error']> = [
      ['127.0.0.0/8', 16, '127.0.0.0/16', 0],
      ['be00::/8', 16, 'be00::/16', 0],
      ['127.0.0.0/8', 16, '127.123.0.0/16', 123],
      ['be00::/8', 16, 'beef::/16', 0xef],
      ['127.0.0.0/8', 16, '127.168.0.0/16', 168],
      ['be00::/8', 16, 'be68::/16', 0x68],
      ['192.168.0.0/16', 24, '192.168.12.0/24', 12],
      ['beef::/16', 24, 'beef:1200::/24', 0x12],
      ['192.168.0.0/16', 24, '192.168.151.0/24', 151],
      ['192.168.0.0/16', 24, '127.168.224.0/24', 'error'],
      ['beef::/16', 24, '2001:db00::/24', 'error'],
    ];
    for (const [cluster, mask, sub, want] of cases) {
      const s = new CidrSet(cidr(cluster), mask);
      if (want === 'error') throwsCode(() => s.indexOf(cidr(sub)), 'CIDROutOfRange');
      else assert.equal(s.indexOf(cidr(sub)), want, sub);
    }
  });

  test('upstream TestOccupy', () => {
    const cases: Array<[string, number, string, number, number]> = [
      ['127.0.0.0/8', 16, '127.0.0.0/8', 0, 255],
      ['2001:beef:1200::/40', 48, '2001:beef:1200::/40', 0, 255],
      ['127.0.0.0/8', 16, '127.0.0.0/2', 0, 255],
      ['2001:beef:1200::/40', 48, '2001:beef:1234::/34', 0, 255],
      ['127.0.0.0/8', 16, '127.0.0.0/16', 0, 0],
      ['2001:beef:1200::/40', 48, '2001:beef:1200::/48', 0, 0],
      ['127.0.0.0/8', 32, '127.0.0.0/16', 0, 65535],
      ['2001:beef:1200::/48', 64, '2001:beef:1200::/48', 0, 65535],
      ['127.0.0.0/7', 16, '127.0.0.0/15', 256, 257],
      ['2001:beef:7f00::/39', 48, '2001:beef:7f00::/47', 256, 257],
      ['127.0.0.0/7', 15, '127.0.0.0/15', 128, 128],
      ['2001:beef:7f00::/39', 47, '2001:beef:7f00::/47', 128, 128],
      ['127.0.0.0/7', 18, '127.0.0.0/15', 1024, 1031],
      ['2001:beef:7f00::/39', 50, '2001:beef:7f00::/47', 1024, 1031],
    ];
    for (const [cluster, mask, sub, begin, end] of cases) {
      const s = new CidrSet(sloppy(cluster), mask);
      s.occupy(sloppy(sub));
      assert.equal(s.allocatedCount, end - begin + 1, `${cluster} /${mask} occupy ${sub}`);
      assert.ok(s.isAllocated(begin) && s.isAllocated(end));
      assert.ok(!s.isAllocated(begin - 1) && !s.isAllocated(end + 1));
      const all = [...s.allocated()].map((c) => s.indexOf(c));
      assert.equal(all[0], begin);
      assert.equal(all[all.length - 1], end);
    }
  });

  test('upstream TestCIDRSetv6 and the node-mask limits', () => {
    const v4 = new CidrSet(cidr('127.0.0.0/8'), 32); // IPv4 has no 16-bit limit upstream
    assert.equal(v4.maxCidrs, 2 ** 24);
    assert.equal(v4.allocateNext().toString(), '127.0.0.0/32');
    assert.equal(v4.allocateNext().toString(), '127.0.0.1/32');
    throwsCode(() => new CidrSet(cidr('beef:1234::/32'), 49), 'CIDRSetSubNetTooBig', 'New CIDR set failed; the node CIDR size is too big');
    assert.equal(new CidrSet(cidr('beef:1234::/32'), 48).maxCidrs, 65536);
    const v6 = new CidrSet(sloppy('2001:beef:1234:369b::/60'), 64);
    assert.equal(v6.allocateNext().toString(), '2001:beef:1234:3690::/64');
    assert.equal(v6.allocateNext().toString(), '2001:beef:1234:3691::/64');
  });

  test('node mask shorter than the cluster mask is refused with the controller message', () => {
    throwsCode(
      () => new CidrSet(cidr('10.42.0.0/25'), 24),
      'InvalidClusterCIDRMask',
      'Controller: Invalid --cluster-cidr, mask size of cluster CIDR must be less than or equal to --node-cidr-mask-size configured for CIDR family',
    );
    throwsCode(() => new CidrSet(cidr('10.0.0.0/8'), 33), 'InvalidNodeCIDRMaskSize');
    throwsCode(() => new CidrSet(cidr('10.0.0.0/8'), 24.5), 'InvalidNodeCIDRMaskSize');
    assert.equal(new CidrSet(cidr('10.42.0.0/24'), 24).maxCidrs, 1, 'equal masks are fine');
  });

  test('occupy/release outside the cluster CIDR or of the other family throw', () => {
    const s = new CidrSet(cidr('10.244.0.0/16'), 24);
    throwsCode(() => s.occupy(cidr('10.245.0.0/24')), 'CIDROutOfRange', 'cidr 10.245.0.0/24 is out the range of cluster cidr 10.244.0.0/16');
    throwsCode(() => s.release(cidr('192.168.0.0/16')), 'CIDROutOfRange');
    throwsCode(() => s.occupy(cidr('fd00::/8')), 'CIDROutOfRange');
    // A CIDR holding the whole cluster CIDR marks everything (upstream: occupying the service CIDR).
    s.occupy(cidr('10.0.0.0/8'));
    assert.equal(s.allocatedCount, 256);
    throwsCode(() => s.allocateNext(), 'CIDRRangeNoCIDRsRemaining');
    s.release(cidr('10.244.0.0/16'));
    assert.equal(s.allocatedCount, 0);
    // A CIDR smaller than a node block marks the block holding it.
    s.occupy(cidr('10.244.7.128/25'));
    assert.ok(s.isAllocated(7));
    assert.equal(s.allocatedCount, 1);
  });

  test('occupy does not move nextCandidate (pre-existing podCIDRs at start-up)', () => {
    const s = new CidrSet(cidr('10.244.0.0/16'), 24);
    s.occupy(cidr('10.244.0.0/17')); // 128 blocks
    assert.equal(s.nextCandidate, 0);
    assert.equal(s.allocateNext().toString(), '10.244.128.0/24');
    s.occupy(cidr('10.244.130.0/24'));
    assert.equal(s.allocateNext().toString(), '10.244.129.0/24');
    assert.equal(s.allocateNext().toString(), '10.244.131.0/24');
  });

  test('large sets stay cheap: /32s in 0.0.0.0/0 (2^32 blocks)', () => {
    const s = new CidrSet(cidr('0.0.0.0/0'), 32);
    assert.equal(s.maxCidrs, 2 ** 32);
    assert.equal(s.allocateNext().toString(), '0.0.0.0/32');
    s.occupy(cidr('255.255.255.0/24'));
    assert.ok(s.isAllocated(2 ** 32 - 1));
    assert.equal(s.allocatedCount, 257);
    s.release(cidr('0.0.0.0/0'));
    assert.equal(s.allocatedCount, 0);
    assert.equal(s.allocateNext().toString(), '0.0.0.1/32', 'round-robin continues after the last allocation');
  });

  test('5,000 node /24s in 10.0.0.0/8', () => {
    const s = new CidrSet(cidr('10.0.0.0/8'), 24);
    const t0 = performance.now();
    for (let i = 0; i < 5000; i++) s.allocateNext();
    assert.ok(performance.now() - t0 < 1000);
    assert.equal(s.allocatedCount, 5000);
    assert.equal(s.cidrAt(4999).toString(), '10.19.135.0/24');
  });

  test('property: never two nodes one block; blocks inside the cluster CIDR, aligned and disjoint', () => {
    const setup = fc.oneof(
      fc
        .tuple(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 8, max: 30 }), fc.integer({ min: 0, max: 8 }))
        .map(([v, p, d]) => ({ cluster: Cidr.of(4, BigInt(v), p), mask: Math.min(32, p + d) })),
      fc
        .tuple(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), fc.integer({ min: 32, max: 120 }), fc.integer({ min: 0, max: 8 }))
        .map(([v, p, d]) => ({ cluster: Cidr.of(6, v, p), mask: Math.min(128, p + d) })),
    );
    const op = fc.oneof(
      { arbitrary: fc.constant({ kind: 'next' as const, pick: 0, width: 0 }), weight: 5 },
      { arbitrary: fc.record({ kind: fc.constant('release' as const), pick: fc.nat(), width: fc.constant(0) }), weight: 2 },
      { arbitrary: fc.record({ kind: fc.constant('occupy' as const), pick: fc.nat(), width: fc.nat(3) }), weight: 1 },
    );
    fc.assert(
      fc.property(setup, fc.array(op, { maxLength: 150 }), ({ cluster, mask }, ops) => {
        const s = new CidrSet(cluster, mask);
        const max = s.maxCidrs;
        const used = new Set<number>(); // model of used block indexes
        const owner = new Map<number, number>(); // block index → node number (allocateNext only)
        let next = 0;
        let nodes = 0;
        for (const o of ops) {
          if (o.kind === 'next') {
            if (used.size === max) {
              throwsCode(() => s.allocateNext(), 'CIDRRangeNoCIDRsRemaining');
              continue;
            }
            let want = next;
            while (used.has(want)) want = (want + 1) % max;
            const got = s.allocateNext();
            assert.equal(got.prefix, mask);
            assert.ok(cluster.containsCidr(got), `${got} inside ${cluster}`);
            const idx = s.indexOf(got);
            assert.equal(idx, want, 'round-robin order');
            assert.ok(!used.has(idx), `${got} handed out twice`);
            for (const [i] of owner) assert.ok(!s.cidrAt(i).overlaps(got) || i === idx);
            used.add(idx);
            owner.set(idx, nodes++);
            next = (idx + 1) % max;
          } else if (o.kind === 'release') {
            if (owner.size === 0) continue;
            const keys = [...owner.keys()];
            const idx = keys[o.pick % keys.length]!;
            s.release(s.cidrAt(idx));
            used.delete(idx);
            owner.delete(idx);
          } else {
            // Occupy a block of 2^width node blocks (clamped to the cluster).
            const w = Math.min(o.width, mask - cluster.prefix);
            const start = (o.pick % max) & ~((1 << w) - 1);
            const c = Cidr.of(cluster.family, s.cidrAt(start).network, mask - w);
            s.occupy(c);
            for (let i = start; i < start + 2 ** w; i++) {
              used.add(i);
              owner.delete(i); // now reserved, not a node's
            }
          }
          assert.equal(s.allocatedCount, used.size);
        }
        const listed = [...s.allocated()];
        assert.equal(listed.length, used.size);
        for (const c of listed) assert.ok(used.has(s.indexOf(c)));
      }),
      { numRuns: 300 },
    );
  });
});
