// The container runtime's sandbox records (cluster/kubelet/runtime-state.ts): one file per running pod, read back
// after a restart by an open, one read into a shared buffer and a close. A record read back is the one saved,
// whatever its length; a damaged or missing one is none.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
    const long = record('b', 'x'.repeat(40_000));
    records.save('node-1', record('a'));
    records.save('node-1', long);
    records.save('node-2', record('c'));
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
