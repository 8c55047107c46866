// The SQLite store: case-insensitive keys that keep their casing, prefix listing, transactions.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { SqliteStore } from '../../src/store/sqlite.js';
import { removeHome, tempHome } from '../e2e/harness.js';

test('keys compare case-insensitively and keep the casing they were written with', () => {
  const store = new SqliteStore(':memory:');
  store.put('/subscriptions/S/resourceGroups/MyGroup', { n: 1 });
  assert.deepEqual(store.get('/SUBSCRIPTIONS/s/resourcegroups/mygroup'), { n: 1 });
  assert.equal(store.entry('/subscriptions/s/resourcegroups/mygroup')?.key, '/subscriptions/S/resourceGroups/MyGroup');
  assert.equal(store.delete('/subscriptions/s/RESOURCEGROUPS/MYGROUP'), true);
  assert.equal(store.get('/subscriptions/S/resourceGroups/MyGroup'), undefined);
  assert.equal(store.delete('/nothing'), false);
  store.close();
});

test('list by prefix, children only, and deletePrefix', () => {
  const store = new SqliteStore(':memory:');
  store.put('/subscriptions/s/resourceGroups/a', 'a');
  store.put('/subscriptions/s/resourceGroups/a/providers/X/y/1', 'a1');
  store.put('/subscriptions/s/resourceGroups/b', 'b');
  store.put('/subscriptions/s/resourceGroupsX', 'not a child');
  store.put('/subscriptions/t/resourceGroups/c', 'c');
  assert.deepEqual(
    store.list('/subscriptions/s/resourcegroups/').map((e) => e.value),
    ['a', 'a1', 'b'],
  );
  assert.deepEqual(
    store.list('/subscriptions/S/resourceGroups/', { children: true }).map((e) => e.value),
    ['a', 'b'],
  );
  assert.equal(store.deletePrefix('/subscriptions/s/resourceGroups/a/'), 1);
  assert.deepEqual(
    store.list('/subscriptions/s/').map((e) => e.value),
    ['a', 'b', 'not a child'],
  );
  assert.equal(store.list('').length, 4);
  store.close();
});

test('a list may leave out the keys under one prefix, in slices taken after a key', () => {
  const store = new SqliteStore(':memory:');
  for (const k of ['a/1', 'a/2', 'b/1', 'b/2', 'b/3', 'b0', 'c/1', 'c/2']) store.put(`/k/${k}`, k);
  const values = (options: Parameters<SqliteStore['list']>[1]) => store.list('/k/', options).map((e) => e.value);
  assert.deepEqual(values({ skip: '/K/b/' }), ['a/1', 'a/2', 'b0', 'c/1', 'c/2']);
  assert.deepEqual(values({ skip: '/k/b/', limit: 3 }), ['a/1', 'a/2', 'b0']);
  assert.deepEqual(values({ skip: '/k/b/', limit: 2, after: '/k/a/2' }), ['b0', 'c/1']);
  assert.deepEqual(values({ skip: '/k/b/', after: '/k/b/2' }), ['b0', 'c/1', 'c/2']);
  assert.deepEqual(values({ skip: '/k/a/' }), ['b/1', 'b/2', 'b/3', 'b0', 'c/1', 'c/2']);
  assert.deepEqual(values({ skip: '/k/c/', after: '/k/b0' }), []);
  const taken: string[] = [];
  assert.equal(
    store.each('/k/', { skip: '/k/b/', limit: 4 }, (key) => taken.push(key)),
    4,
  );
  assert.deepEqual(taken, ['/k/a/1', '/k/a/2', '/k/b0', '/k/c/1']);
  store.close();
});

test('a transaction commits whole or not at all, nested ones too', () => {
  const store = new SqliteStore(':memory:');
  assert.throws(() =>
    store.transaction(() => {
      store.put('k1', 1);
      store.transaction(() => store.put('k2', 2));
      throw new Error('boom');
    }),
  );
  assert.equal(store.get('k1'), undefined);
  assert.equal(store.get('k2'), undefined);
  const result = store.transaction(() => {
    store.put('k1', 1);
    return 'done';
  });
  assert.equal(result, 'done');
  assert.equal(store.get('k1'), 1);
  store.close();
});

test('values survive reopening the database file', () => {
  const home = tempHome();
  try {
    const file = join(home, 'state.db');
    const first = new SqliteStore(file);
    first.put('/a', { deep: [1, { x: 'y' }] });
    first.close();
    const second = new SqliteStore(file);
    assert.deepEqual(second.get('/A'), { deep: [1, { x: 'y' }] });
    second.close();
  } finally {
    removeHome(home);
  }
});

test('an inner transaction that throws is undone alone when its caller catches the error', () => {
  const store = new SqliteStore(':memory:');
  store.transaction(() => {
    store.put('outer', 1);
    assert.throws(() =>
      store.transaction(() => {
        store.put('inner', 2);
        throw new Error('boom');
      }),
    );
    store.put('after', 3);
  });
  assert.deepEqual(
    store.list('').map((e) => e.key),
    ['after', 'outer'],
  );
  assert.throws(() => store.transaction(() => Promise.resolve(1)), TypeError);
  store.close();
});

test('a store file with the table of earlier releases (WITHOUT ROWID) is read and written as before', async () => {
  const home = tempHome();
  try {
    const file = join(home, 'state.db');
    const { default: Database } = await import('better-sqlite3');
    const old = new Database(file);
    old.exec('CREATE TABLE entries (k TEXT PRIMARY KEY, key TEXT NOT NULL, value TEXT NOT NULL) WITHOUT ROWID');
    old
      .prepare('INSERT INTO entries (k, key, value) VALUES (?, ?, ?)')
      .run('/subscriptions/s/resourcegroups/a', '/subscriptions/s/resourceGroups/A', '{"n":1}');
    old.close();
    const store = new SqliteStore(file);
    assert.deepEqual(store.entry('/SUBSCRIPTIONS/S/resourcegroups/a'), { key: '/subscriptions/s/resourceGroups/A', value: { n: 1 } });
    store.put('/subscriptions/s/resourceGroups/A', { n: 2 });
    store.put('/subscriptions/s/resourceGroups/B', { n: 3 });
    assert.deepEqual(
      store.list('/subscriptions/s/').map((e) => e.value),
      [{ n: 2 }, { n: 3 }],
    );
    store.close();
  } finally {
    removeHome(home);
  }
});

test('reads through a memory map (a restart’s load) read what a copy per page reads; writes made meanwhile are kept once the map is dropped', () => {
  const home = tempHome();
  try {
    const file = join(home, 'state.db');
    const store = new SqliteStore(file);
    const big = 'x'.repeat(20_000);
    store.transaction(() => {
      for (let i = 0; i < 500; i++) store.put(`/k/${String(i).padStart(4, '0')}`, { i, big: i % 50 === 0 ? big : '' });
    });
    const unmapped = store.list('/k/');
    store.mapReads(true);
    assert.deepEqual(store.list('/k/'), unmapped);
    let n = 0;
    assert.equal(
      store.each('/k/', { after: '/k/0099', limit: 10 }, (key) => void (key > '/k/0099' && n++)),
      10,
    );
    assert.equal(n, 10);
    store.put('/k/0001', { i: 'mapped' });
    assert.equal(store.delete('/k/0002'), true);
    assert.deepEqual(store.get('/k/0001'), { i: 'mapped' });
    store.mapReads(false);
    assert.deepEqual(store.get('/k/0001'), { i: 'mapped' });
    store.close();
    const again = new SqliteStore(file);
    assert.deepEqual(again.get('/k/0001'), { i: 'mapped' });
    assert.equal(again.get('/k/0002'), undefined);
    assert.equal(again.count('/k/'), 499);
    assert.deepEqual(again.get('/k/0050'), { i: 50, big });
    again.close();
  } finally {
    removeHome(home);
  }
});
