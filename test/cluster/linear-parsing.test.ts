// Client text is parsed in linear time (issue 25): every regular-expression literal in src/ was timed against
// long runs of one character, and those that backtracked quadratically on what a request carries were
// rewritten. Each case below took seconds (or, at the body limit, minutes) before.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { trimTrailingSlashes } from '../../src/ids/trim.js';
import { normalizeScope } from '../../src/providers/authorization/scopes.js';
import { parseLabelSelector } from '../../src/cluster/apimachinery/selectors.js';
import { decodeError } from '../../src/cluster/apiserver/validation/shape.js';
import { parseQuantity } from '../../src/cluster/apimachinery/requests.js';

function fast(what: string, fn: () => unknown): void {
  const t0 = performance.now();
  try {
    fn();
  } catch {
    // refused is fine: only the time matters here
  }
  const ms = performance.now() - t0;
  assert.ok(ms < 1000, `${what} took ${Math.round(ms)} ms`);
}

test('label selectors, quantities, ids and scopes: a megabyte of one character is handled in linear time', () => {
  fast('a label selector of 1 MB of =', () => parseLabelSelector('='.repeat(1 << 20)));
  fast('a label selector of 1 MB of spaces and =', () => parseLabelSelector(`a${' ='.repeat(1 << 19)}`));
  assert.deepEqual(parseLabelSelector('a = b, c!=d, e==f=g'), [
    { key: 'a', op: '=', value: 'b' },
    { key: 'c', op: '!=', value: 'd' },
    { key: 'e', op: '=', value: 'f=g' },
  ]);
  assert.throws(() => parseLabelSelector('a b=c'), /unable to parse requirement/);

  const digits = `${'1'.repeat(3 << 20)}x`;
  fast('a 3 MB quantity', () => parseQuantity(digits));
  assert.ok(Number.isNaN(parseQuantity(digits)));
  assert.equal(parseQuantity('1.5Gi'), 1.5 * 2 ** 30);
  assert.equal(parseQuantity('100m'), 0.1);
  fast('a 3 MB quantity in a pod', () => decodeError('Pod', { spec: { containers: [{ name: 'c', resources: { requests: { cpu: digits } } }] } }));
  assert.match(String(decodeError('Pod', { spec: { containers: [{ name: 'c', resources: { requests: { cpu: digits } } }] } })), /quantities must match/);
  assert.equal(decodeError('Pod', { spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1.5e3', memory: '128Mi' } } }] } }), undefined);

  const slashes = `/subscriptions/x/resourceGroups/y/providers/a/b/c${'/'.repeat(1 << 20)}z`;
  fast('trailing slashes of an id with a megabyte of slashes inside', () => trimTrailingSlashes(slashes));
  assert.equal(trimTrailingSlashes('/a/b///'), '/a/b');
  fast('a scope with a megabyte of slashes inside', () => normalizeScope(slashes));
  assert.equal(normalizeScope('///'), '/');
});
