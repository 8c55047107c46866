// The container runtime's sandbox records (cluster/kubelet/runtime-state.ts): one file per node, a line per record
// saved or removed, read back after a restart by an open, one read into a shared buffer and a close. A record read
// back is the one saved, whatever its length; a damaged or missing one is none. Earlier builds' files (one per
// record) are read too, and moved into the node's file by its first read.
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { type SandboxRecord, SandboxRecords } from '../../src/cluster/kubelet/runtime-state.js';

const record = (uid: string, name = `web-${uid}`): SandboxRecord => ({
  uid,
  namespace: 'default',
  name,
  sandboxId: `sb-${uid}`,
  hostNetwork: false,
  ip: '10.240.0.7',
});

test('records read back as saved: short ones, one longer than the read buffer, and a damaged one skipped', () => {
  const root = mkdtempSync(join(tmpdir(), 'aksemu-sandbox-records-'));
  try {
    const records = new SandboxRecords(() => root);
    const long = record('b', 'x'.repeat(100_000));
    records.save('node-1', record('a'));
    records.save('node-1', long);
    records.save('node-2', record('c'));
    mkdirSync(join(root, 'node-1', 'run', 'sandboxes'));
    writeFileSync(join(root, 'node-1', 'run', 'sandboxes', 'd.json'), '{"uid": "d", ');
    assert.deepEqual(records.load('node-1', 'a'), record('a'));
    assert.deepEqual(records.load('node-1', 'b'), long);
    assert.equal(records.load('node-1', 'd'), undefined);
    assert.equal(records.load('node-1', 'missing'), undefined);
    // A short record read after the long one is not given the long one's tail.
    assert.deepEqual(records.load('node-2', 'c'), record('c'));
    const onNode = records.onNode('node-1').sort((x, y) => x.uid.localeCompare(y.uid));
    assert.deepEqual(onNode, [record('a'), long]);
    assert.deepEqual(records.nodes().sort(), ['node-1', 'node-2']);
    records.remove('node-1', 'a');
    assert.equal(records.load('node-1', 'a'), undefined);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

/** A fresh records root for the test's body, removed after it. */
async function withRoot(body: (root: string) => void | Promise<void>): Promise<void> {
  const parent = mkdtempSync(join(tmpdir(), 'aksemu-sandbox-records-'));
  // The nodes' dir of a cluster: the earlier layout's dirs are moved aside beside it.
  const root = join(parent, 'nodes');
  mkdirSync(root);
  try {
    await body(root);
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
}

const byUid = (list: SandboxRecord[]) => list.sort((x, y) => x.uid.localeCompare(y.uid));

test("a home of earlier builds (a file per record) reads the same, and its node's records move into the node's file", async () => {
  await withRoot(async (root) => {
    const dir = join(root, 'node-1', 'run', 'sandboxes');
    mkdirSync(dir, { recursive: true });
    for (const uid of ['a', 'b', 'c']) writeFileSync(join(dir, `${uid}.json`), `${JSON.stringify(record(uid))}\n`);
    writeFileSync(join(dir, 'half.json'), '{"uid": "half", ');
    // A line of this build's written after them (an address changed): the newer one is read.
    appendFileSync(join(root, 'node-1', 'run', 'sandboxes.jsonl'), `${JSON.stringify({ ...record('b'), ip: '10.240.0.9' })}\n`);
    const records = new SandboxRecords(() => root);
    assert.deepEqual(records.load('node-1', 'a'), record('a'));
    const expected = [record('a'), { ...record('b'), ip: '10.240.0.9' }, record('c')];
    assert.deepEqual(byUid(records.onNode('node-1')), expected);
    // Moved: the earlier layout's dir is gone (aside until swept), the node's file holds one line per record.
    assert.ok(!existsSync(dir));
    await records.sweep();
    assert.deepEqual(readdirSync(dirname(root)), ['nodes']);
    // What a process killed before its sweep left aside is swept by the next one.
    mkdirSync(join(dirname(root), 'sandboxes-moved', 'node-9.1.1'), { recursive: true });
    writeFileSync(join(dirname(root), 'sandboxes-moved', 'node-9.1.1', 'x.json'), '{}');
    await new SandboxRecords(() => root).sweep();
    assert.deepEqual(readdirSync(dirname(root)), ['nodes']);
    assert.equal(
      readFileSync(join(root, 'node-1', 'run', 'sandboxes.jsonl'), 'utf8')
        .trim()
        .split('\n').length,
      3,
    );
    // The next start reads the same.
    assert.deepEqual(byUid(new SandboxRecords(() => root).onNode('node-1')), expected);
  });
});

test('a kill -9 between the move and the removal of the earlier files reads the same; a removal after the move holds', () => {
  return withRoot((root) => {
    const dir = join(root, 'node-1', 'run', 'sandboxes');
    mkdirSync(dir, { recursive: true });
    for (const uid of ['a', 'b']) writeFileSync(join(dir, `${uid}.json`), JSON.stringify(record(uid)));
    const file = join(root, 'node-1', 'run', 'sandboxes.jsonl');
    // The moved file written, the old dir still there (as a kill -9 between the rename and the removal leaves it).
    writeFileSync(file, `${JSON.stringify(record('a'))}\n${JSON.stringify(record('b'))}\n`);
    assert.deepEqual(byUid(new SandboxRecords(() => root).onNode('node-1')), [record('a'), record('b')]);
    // Then one removed, and the old dir back (the worst case): the removal is the newer.
    new SandboxRecords(() => root).remove('node-1', 'a');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'a.json'), JSON.stringify(record('a')));
    assert.deepEqual(new SandboxRecords(() => root).onNode('node-1'), [record('b')]);
  });
});

test('a line cut short (the disk full) loses no other record, and the next line written after it is read', () => {
  return withRoot((root) => {
    const records = new SandboxRecords(() => root);
    records.save('node-1', record('a'));
    records.save('node-1', record('b'));
    const file = join(root, 'node-1', 'run', 'sandboxes.jsonl');
    appendFileSync(file, JSON.stringify(record('c')).slice(0, 30));
    const again = new SandboxRecords(() => root);
    assert.deepEqual(byUid(again.onNode('node-1')), [record('a'), record('b')]);
    again.save('node-1', record('d'));
    assert.deepEqual(byUid(new SandboxRecords(() => root).onNode('node-1')), [record('a'), record('b'), record('d')]);
  });
});

test("a node's file is written again when it holds twice the lines it needs; a removal on a node gone writes nothing", () => {
  return withRoot((root) => {
    const records = new SandboxRecords(() => root);
    const file = join(root, 'node-1', 'run', 'sandboxes.jsonl');
    const lines = () => readFileSync(file, 'utf8').trim().split('\n').length;
    records.save('node-1', record('keep'));
    for (let i = 0; i < 200; i++) {
      records.save('node-1', record(`p${i}`));
      records.remove('node-1', `p${i}`);
    }
    assert.ok(lines() <= 2 + 32 + 1, `${lines()} lines`);
    assert.deepEqual(new SandboxRecords(() => root).onNode('node-1'), [record('keep')]);
    records.remove('node-2', 'x');
    assert.ok(!existsSync(join(root, 'node-2')));
    // What a start left: the records of pods not restored, which load answers once their node was read.
    const start = new SandboxRecords(() => root);
    const [kept] = start.onNode('node-1');
    assert.equal(start.load('node-1', 'keep'), undefined);
    start.leave('node-1', kept!);
    assert.deepEqual(start.load('node-1', 'keep'), record('keep'));
    start.remove('node-1', 'keep');
    assert.equal(start.load('node-1', 'keep'), undefined);
    assert.equal(new SandboxRecords(() => root).load('node-1', 'keep'), undefined);
  });
});

test('a node no restart read is read at its first ask only: each new sandbox asks memory, and what is saved is read back by the next start', () => {
  return withRoot((root) => {
    // An earlier process left a record on node-3 (its pod gone while the server was down, say).
    new SandboxRecords(() => root).save('node-3', record('old'));
    const records = new SandboxRecords(() => root);
    assert.deepEqual(records.load('node-3', 'old'), record('old'));
    // A line another writer adds later is not read again: the node was read once (docs/performance.md §2.22).
    appendFileSync(join(root, 'node-3', 'run', 'sandboxes.jsonl'), `${JSON.stringify(record('later'))}\n`);
    assert.equal(records.load('node-3', 'later'), undefined);
    // This process's own sandboxes are not stale ones: load does not answer them, their worker removes them.
    records.save('node-3', record('mine'));
    assert.equal(records.load('node-3', 'mine'), undefined);
    records.remove('node-3', 'old');
    assert.equal(records.load('node-3', 'old'), undefined);
    // A node made in this process: no file yet, none read; its first record saved makes it.
    assert.equal(records.load('node-4', 'a'), undefined);
    records.save('node-4', record('a'));
    // The next start (as after a kill -9) reads every line written.
    const next = new SandboxRecords(() => root);
    assert.deepEqual(byUid(next.onNode('node-3')), [record('later'), record('mine')]);
    assert.deepEqual(next.onNode('node-4'), [record('a')]);
  });
});
