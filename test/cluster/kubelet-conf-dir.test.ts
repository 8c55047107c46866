// The kubelet's rescan of a node's CNI conf dir (kubelet/kubelet.ts): once the dir has not changed for a while,
// a rescan looks only at its files (the dir's change time says its names are the same), and still sees a file
// written in place, a file added or removed, and the dir gone, as a full read does; a node known before the process is
// tracked from one read of its dir; a dir removed and made again is watched again.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Kubelets } from '../../src/cluster/kubelet/kubelet.js';
import { loadDefaultNetwork } from '../../src/cni/confdir.js';

const CONFLIST = '{"cniVersion":"1.0.0","name":"test","plugins":[{"type":"bridge"}]}';
/** Longer than the time a dir must be left alone before its change time is trusted (RACY_MS). */
const SETTLE_MS = 2200;
const settle = () => new Promise((r) => setTimeout(r, SETTLE_MS));
const until = async (what: string, ok: () => boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) assert.fail(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

test('a settled conf dir is rescanned by its files, and every kind of change is still seen', async () => {
  const home = mkdtempSync(join(tmpdir(), 'aksemu-confdir-'));
  const changed: string[] = [];
  // A `none` cluster: the node's conf dir starts empty (not ready); the periodic rescan is driven by hand.
  const kubelets = new Kubelets(home, { resourceGroup: 'rg', name: 'c', networkPlugin: 'none' }, (node) => changed.push(node), 3_600_000);
  try {
    const ready = () => kubelets.state('n1')!.networkReady;
    kubelets.ensure({ name: 'n1', createdAt: new Date().toISOString() });
    assert.equal(ready(), false);
    const dir = kubelets.confDir('n1');
    const file = join(dir, '10-test.conflist');
    writeFileSync(file, CONFLIST);
    // Synchronously, before the watcher's debounce: the rescan itself sees it.
    kubelets.rescan();
    assert.equal(ready(), true, 'a file added is seen');
    await settle();
    kubelets.rescan();
    assert.equal(ready(), true);
    // Written in place: the dir's change time stays, the file's mtime and size change.
    writeFileSync(file, 'not json');
    kubelets.rescan();
    assert.equal(ready(), false, 'a file written in place is seen');
    writeFileSync(file, CONFLIST);
    kubelets.rescan();
    assert.equal(ready(), true);
    await settle();
    kubelets.rescan();
    unlinkSync(file);
    kubelets.rescan();
    assert.equal(ready(), false, 'a file removed is seen');
    writeFileSync(file, CONFLIST);
    kubelets.rescan();
    await settle();
    kubelets.rescan();
    assert.equal(ready(), true);
    rmSync(dir, { recursive: true });
    kubelets.rescan();
    assert.equal(ready(), false, 'the dir removed is seen');
    assert.deepEqual(changed, ['n1', 'n1', 'n1', 'n1', 'n1', 'n1']);
  } finally {
    kubelets.close();
    rmSync(home, { recursive: true, force: true });
  }
});

test('a node known before the process is tracked from one read of its conf dir', () => {
  const home = mkdtempSync(join(tmpdir(), 'aksemu-confdir-'));
  const cluster = { resourceGroup: 'rg', name: 'c', networkPlugin: 'none' };
  const first = new Kubelets(home, cluster, () => undefined, 3_600_000);
  const created = '2026-01-02T03:04:05.000Z';
  first.ensure({ name: 'n1', createdAt: created });
  first.ensure({ name: 'n2', createdAt: created });
  first.close();
  const dir = first.confDir('n1');
  // Files as a CNI left them: a broken one first in name order, the default network next, and a file of no
  // extension the runtime considers, newer than both (the node's network became ready at the newest of them).
  writeFileSync(join(dir, '05-broken.conflist'), 'not json');
  writeFileSync(join(dir, '10-test.conflist'), CONFLIST);
  writeFileSync(join(dir, 'README'), 'notes');
  const when = new Date('2026-03-04T05:06:07.000Z');
  utimesSync(join(dir, '05-broken.conflist'), when, new Date(when.getTime() - 60_000));
  utimesSync(join(dir, '10-test.conflist'), when, new Date(when.getTime() - 30_000));
  utimesSync(join(dir, 'README'), when, when);
  const changed: string[] = [];
  const kubelets = new Kubelets(home, cluster, (node) => changed.push(node), 3_600_000);
  try {
    assert.deepEqual(kubelets.ensure({ name: 'n1', createdAt: created }), { networkReady: true, since: when.toISOString() });
    assert.deepEqual(kubelets.ensure({ name: 'n2', createdAt: created }), { networkReady: false, since: created });
    // The rescan finds nothing changed: the signature of the one read is the scan's own.
    kubelets.rescan();
    assert.deepEqual(kubelets.state('n1'), { networkReady: true, since: when.toISOString() });
    assert.deepEqual(changed, []);
  } finally {
    kubelets.close();
    rmSync(home, { recursive: true, force: true });
  }
});

test('a conf dir removed and made again is seen by the periodic rescan, and its changes by a watch again', async () => {
  const home = mkdtempSync(join(tmpdir(), 'aksemu-confdir-'));
  const cluster = { resourceGroup: 'rg', name: 'c', networkPlugin: 'none' };
  // Ticks of a second, as the server's; a watched dir is read by them once in ten ticks, so a change to a watched dir
  // seen within half a second is the watch's doing.
  const kubelets = new Kubelets(home, cluster, () => undefined, 1000);
  try {
    kubelets.start();
    const ready = () => kubelets.state('n1')!.networkReady;
    kubelets.ensure({ name: 'n1', createdAt: new Date().toISOString() });
    const dir = kubelets.confDir('n1');
    writeFileSync(join(dir, '10-test.conflist'), CONFLIST);
    await until('a file added to a watched dir', ready, 500);
    rmSync(dir, { recursive: true });
    await until('the dir removed', () => !ready(), 1500);
    // Made again: its old watch is gone with it; a tick finds it and watches it anew.
    mkdirSync(dir);
    writeFileSync(join(dir, '10-test.conflist'), CONFLIST);
    await until('the dir made again with a config', ready, 2500);
    await new Promise((r) => setTimeout(r, 100));
    writeFileSync(join(dir, '10-test.conflist'), 'not json');
    await until('a file written in the dir made again', () => !ready(), 500);
  } finally {
    kubelets.close();
    rmSync(home, { recursive: true, force: true });
  }
});

test("a node known before the process: its first read's network answers the IPAM once, while the dir is as read", async () => {
  const home = mkdtempSync(join(tmpdir(), 'aksemu-confdir-'));
  const cluster = { resourceGroup: 'rg', name: 'c', networkPlugin: 'none' };
  const first = new Kubelets(home, cluster, () => undefined, 3_600_000);
  const created = '2026-01-02T03:04:05.000Z';
  for (const name of ['n1', 'n2', 'n3']) first.ensure({ name, createdAt: created });
  first.close();
  for (const name of ['n1', 'n2', 'n3']) writeFileSync(join(first.confDir(name), '10-test.conflist'), CONFLIST);
  const when = new Date('2026-03-04T05:06:07.000Z');
  utimesSync(join(first.confDir('n1'), '10-test.conflist'), when, when);
  await settle();
  const kubelets = new Kubelets(home, cluster, () => undefined, 3_600_000);
  try {
    for (const name of ['n1', 'n2', 'n3']) kubelets.ensure({ name, createdAt: created });
    // Unchanged: the first read's network, as a read of the dir finds it.
    assert.deepEqual(kubelets.network('n1'), loadDefaultNetwork(kubelets.confDir('n1')));
    assert.equal(kubelets.network('n1')?.name, 'test');
    // It is the first read's, asked once: a file written in place with its size and mtime kept (what the rescan's
    // test cannot see either) is answered as first read, then as the dir has it.
    const n1 = join(kubelets.confDir('n1'), '10-test.conflist');
    const again = new Kubelets(home, cluster, () => undefined, 3_600_000);
    try {
      again.ensure({ name: 'n1', createdAt: created });
      writeFileSync(n1, CONFLIST.replace('"test"', '"tesT"'));
      utimesSync(n1, when, when);
      assert.equal(again.network('n1')?.name, 'test');
      assert.equal(again.network('n1')?.name, 'tesT');
    } finally {
      again.close();
    }
    // Written in place (another size), and a file put before it in name order: what the dir holds now.
    const other = CONFLIST.replace('"test"', '"other-net"');
    writeFileSync(join(kubelets.confDir('n2'), '10-test.conflist'), other);
    assert.equal(kubelets.network('n2')?.name, 'other-net');
    writeFileSync(join(kubelets.confDir('n3'), '01-first.conflist'), other);
    assert.equal(kubelets.network('n3')?.name, 'other-net');
  } finally {
    kubelets.close();
    rmSync(home, { recursive: true, force: true });
  }
});

test("a restart's nodes: watched in the turns after their first reads, a change made before the watch is seen, one after it told", async () => {
  const home = mkdtempSync(join(tmpdir(), 'aksemu-confdir-'));
  const cluster = { resourceGroup: 'rg', name: 'c', networkPlugin: 'none' };
  const names = ['n1', 'n2', 'n3', 'n4'];
  const first = new Kubelets(home, cluster, () => undefined, 3_600_000);
  const created = '2026-01-02T03:04:05.000Z';
  for (const name of names) first.ensure({ name, createdAt: created });
  first.close();
  for (const name of names) writeFileSync(join(first.confDir(name), '10-test.conflist'), CONFLIST);
  await settle();
  const changed: string[] = [];
  // The periodic rescan an hour away: what is seen is seen by the check when a watch is placed, or by the watch.
  const kubelets = new Kubelets(home, cluster, (node) => changed.push(node), 3_600_000);
  try {
    for (const name of names) assert.equal(kubelets.ensure({ name, createdAt: created }).networkReady, true);
    // Every node after the first holds the same text: its network is the dir's, as a read of it finds it.
    assert.deepEqual(kubelets.network('n2'), loadDefaultNetwork(kubelets.confDir('n2')));
    // In this turn, before the watches are placed: written in place (another size), and removed.
    writeFileSync(join(kubelets.confDir('n3'), '10-test.conflist'), 'not json');
    unlinkSync(join(kubelets.confDir('n4'), '10-test.conflist'));
    await until('the changes made before the watches', () => changed.length === 2, 500);
    assert.equal(kubelets.state('n3')!.networkReady, false);
    assert.equal(kubelets.state('n4')!.networkReady, false);
    assert.equal(kubelets.state('n1')!.networkReady, true);
    // After: told by the watch.
    writeFileSync(join(kubelets.confDir('n1'), '10-test.conflist'), 'not json');
    await until('a change after the watch', () => !kubelets.state('n1')!.networkReady, 500);
    writeFileSync(join(kubelets.confDir('n4'), '10-test.conflist'), CONFLIST);
    await until('a file added after the watch', () => kubelets.state('n4')!.networkReady, 500);
  } finally {
    kubelets.close();
    rmSync(home, { recursive: true, force: true });
  }
});
