import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MAX_OFFSET_ALLOCATOR_SIZE, OffsetAllocator } from '../../src/net/offset-allocator.js';

describe('OffsetAllocator', () => {
  test('hands out the lowest free slot, in order, then -1', () => {
    const a = new OffsetAllocator(70);
    for (let i = 0; i < 70; i++) assert.equal(a.allocateNext(), i);
    assert.equal(a.allocateNext(), -1);
    assert.equal(a.used, 70);
    assert.equal(a.free, 0);
    assert.equal(a.size, 70);
  });

  test('released slots come back lowest first', () => {
    const a = new OffsetAllocator(100);
    for (let i = 0; i < 100; i++) a.allocateNext();
    assert.ok(a.release(64));
    assert.ok(a.release(3));
    assert.ok(a.release(31));
    assert.ok(!a.release(31), 'double release');
    assert.equal(a.free, 3);
    assert.equal(a.allocateNext(), 3);
    assert.equal(a.allocateNext(), 31);
    assert.equal(a.allocateNext(), 64);
    assert.equal(a.allocateNext(), -1);
  });

  test('claim, isUsed and bounds', () => {
    const a = new OffsetAllocator(33);
    assert.ok(a.claim(0));
    assert.ok(!a.claim(0));
    assert.ok(a.claim(32));
    assert.ok(!a.claim(33), 'outside');
    assert.ok(!a.claim(-1));
    assert.ok(!a.claim(1.5));
    assert.ok(a.isUsed(0) && a.isUsed(32) && !a.isUsed(1) && !a.isUsed(33));
    assert.equal(a.allocateNext(), 1);
    assert.equal(a.used, 3);
    assert.ok(!a.release(99));
  });

  test('size 0, size 1, padding bits never leak', () => {
    const zero = new OffsetAllocator(0);
    assert.equal(zero.allocateNext(), -1);
    assert.equal(zero.free, 0);
    const one = new OffsetAllocator(1);
    assert.equal(one.allocateNext(), 0);
    assert.equal(one.allocateNext(), -1);
    assert.deepEqual([...one.usedOffsets()], [0]);
    for (const n of [31, 32, 33, 63, 64, 65]) {
      const a = new OffsetAllocator(n);
      const got: number[] = [];
      for (let s = a.allocateNext(); s >= 0; s = a.allocateNext()) got.push(s);
      assert.equal(got.length, n);
      assert.equal(got[n - 1], n - 1);
      assert.equal([...a.usedOffsets()].length, n);
    }
  });

  test('size limit 2^24', () => {
    assert.equal(MAX_OFFSET_ALLOCATOR_SIZE, 2 ** 24);
    const big = new OffsetAllocator(2 ** 24);
    assert.equal(big.free, 2 ** 24);
    assert.ok(big.claim(2 ** 24 - 1));
    assert.throws(() => new OffsetAllocator(2 ** 24 + 1), RangeError);
    assert.throws(() => new OffsetAllocator(-1), RangeError);
    assert.throws(() => new OffsetAllocator(2.5), RangeError);
  });

  test('nextFree and clear', () => {
    const a = new OffsetAllocator(100);
    for (let i = 0; i < 40; i++) a.allocateNext();
    assert.equal(a.nextFree(), 40);
    assert.equal(a.nextFree(10), 40);
    assert.equal(a.nextFree(77), 77);
    a.release(5);
    assert.equal(a.nextFree(), 5);
    assert.equal(a.nextFree(6), 40);
    assert.equal(a.nextFree(100), -1);
    a.clear();
    assert.equal(a.used, 0);
    assert.equal(a.allocateNext(), 0);
  });

  test('fills 2^20 slots quickly', () => {
    const n = 1 << 20;
    const a = new OffsetAllocator(n);
    const t0 = performance.now();
    for (let i = 0; i < n; i++) a.allocateNext();
    const ms = performance.now() - t0;
    assert.equal(a.free, 0);
    assert.ok(ms < 1000, `took ${ms} ms`);
  });

  test('property: matches a reference model under random operations', () => {
    const op = fc.oneof(
      fc.constant({ kind: 'next' as const, at: 0 }),
      fc.record({ kind: fc.constant('claim' as const), at: fc.nat(200) }),
      fc.record({ kind: fc.constant('release' as const), at: fc.nat(200) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 180 }), fc.array(op, { maxLength: 400 }), (size, ops) => {
        const a = new OffsetAllocator(size);
        const model = new Set<number>();
        for (const o of ops) {
          if (o.kind === 'next') {
            let lowest = -1;
            for (let i = 0; i < size; i++) {
              if (!model.has(i)) {
                lowest = i;
                break;
              }
            }
            assert.equal(a.allocateNext(), lowest);
            if (lowest >= 0) model.add(lowest);
          } else if (o.kind === 'claim') {
            const ok = o.at < size && !model.has(o.at);
            assert.equal(a.claim(o.at), ok);
            if (ok) model.add(o.at);
          } else {
            const ok = model.has(o.at);
            assert.equal(a.release(o.at), ok);
            model.delete(o.at);
          }
          assert.equal(a.used, model.size);
          assert.equal(a.free, size - model.size);
        }
        assert.deepEqual(
          [...a.usedOffsets()],
          [...model].sort((x, y) => x - y),
        );
        for (let i = 0; i < size + 2; i++) assert.equal(a.isUsed(i), model.has(i));
      }),
      { numRuns: 200 },
    );
  });
});
