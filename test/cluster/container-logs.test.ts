// The containers' log files as the kubelet's CRI logging writes them (cluster/kubelet/container-logs.ts): each line
// `TIMESTAMP STREAM F|P TEXT` with containerd's nanosecond timestamps, a last unterminated piece partial; the file
// rotated to `N.log.1` once it passed MAX_LOG_BYTES; a run resumed after a restart appending to the file it had; a
// follower hearing the same lines as objects. docs/performance.md §2.9 made the appends one open of the file.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { LogLine } from '../../src/cluster/apiserver/index.js';
import { ContainerLogs, MAX_LOG_BYTES } from '../../src/cluster/kubelet/container-logs.js';

/** 2025-12-06T05:46:40Z, and a millisecond count to add to it. */
const T0 = Date.UTC(2025, 11, 6, 5, 46, 40);

function withLogs(run: (logs: ContainerLogs, root: string) => void): void {
  const root = mkdtempSync(join(tmpdir(), 'aksemu-container-logs-'));
  try {
    run(new ContainerLogs((node) => join(root, node)), root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const ref = () => ({ node: 'node-0', namespace: 'kube-system', pod: 'kube-proxy-a', uid: randomUUID() });

describe('container log files', () => {
  it('CRI lines: full and partial, each stream, nanosecond timestamps across seconds', () =>
    withLogs((logs, root) => {
      const r = ref();
      const heard: LogLine[] = [];
      logs.begin(r, 'c', 0);
      logs.follow(r, 'c', 0, { line: (l) => heard.push(l), end: () => undefined });
      logs.append(r, 'c', 0, 'stdout', 'a\nb', T0 + 7);
      logs.append(r, 'c', 0, 'stdout', '\n', T0 + 999);
      logs.append(r, 'c', 0, 'stderr', 'x\n\ny\n', T0 + 1000);
      logs.append(r, 'c', 0, 'stdout', '', T0 + 1001);
      logs.append(r, 'c', 0, 'stdout', 'epoch\n', 42);
      const file = logs.file(r, 'c', 0);
      assert.equal(file, join(root, 'node-0', 'var', 'log', 'pods', `kube-system_kube-proxy-a_${r.uid}`, 'c', '0.log'));
      assert.equal(
        readFileSync(file, 'utf8'),
        [
          '2025-12-06T05:46:40.007000000Z stdout F a',
          '2025-12-06T05:46:40.007000000Z stdout P b',
          '2025-12-06T05:46:40.999000000Z stdout F ',
          '2025-12-06T05:46:41.000000000Z stderr F x',
          '2025-12-06T05:46:41.000000000Z stderr F ',
          '2025-12-06T05:46:41.000000000Z stderr F y',
          '1970-01-01T00:00:00.042000000Z stdout F epoch',
          '',
        ].join('\n'),
      );
      assert.deepEqual(
        heard.map((l) => [l.timestamp, l.stream, l.partial, l.text]),
        [
          ['2025-12-06T05:46:40.007000000Z', 'stdout', false, 'a'],
          ['2025-12-06T05:46:40.007000000Z', 'stdout', true, 'b'],
          ['2025-12-06T05:46:40.999000000Z', 'stdout', false, ''],
          ['2025-12-06T05:46:41.000000000Z', 'stderr', false, 'x'],
          ['2025-12-06T05:46:41.000000000Z', 'stderr', false, ''],
          ['2025-12-06T05:46:41.000000000Z', 'stderr', false, 'y'],
          ['1970-01-01T00:00:00.042000000Z', 'stdout', false, 'epoch'],
        ],
      );
      assert.deepEqual(
        logs.read(r, 'c', 0)?.map((l) => l.text),
        heard.map((l) => l.text),
      );
    }));

  it('a file past the bound is rotated to .1 before the next line; the run goes on in a new file', () =>
    withLogs((logs) => {
      const r = ref();
      logs.begin(r, 'c', 0);
      logs.append(r, 'c', 0, 'stdout', 'first\n', T0);
      logs.append(r, 'c', 0, 'stdout', `${'x'.repeat(MAX_LOG_BYTES)}\n`, T0);
      const file = logs.file(r, 'c', 0);
      assert.ok(statSync(file).size > MAX_LOG_BYTES);
      logs.append(r, 'c', 0, 'stdout', 'after\n', T0 + 1);
      assert.equal(readFileSync(file, 'utf8'), '2025-12-06T05:46:40.001000000Z stdout F after\n');
      assert.match(readFileSync(`${file}.1`, 'utf8'), /^2025-12-06T05:46:40\.000000000Z stdout F first\n/);
      assert.deepEqual(
        logs.read(r, 'c', 0)?.map((l) => l.text.slice(0, 5)),
        ['first', 'xxxxx', 'after'],
      );
    }));

  it('a run resumed after a restart appends to its file; a run whose directory went makes it again', () =>
    withLogs((logs, root) => {
      const r = ref();
      logs.begin(r, 'c', 2);
      logs.append(r, 'c', 2, 'stdout', 'before the restart\n', T0);
      const again = new ContainerLogs((node) => join(root, node));
      again.resume(r, 'c', 2);
      again.append(r, 'c', 2, 'stderr', 'not emulated\n', T0 + 5);
      assert.equal(
        readFileSync(again.file(r, 'c', 2), 'utf8'),
        '2025-12-06T05:46:40.000000000Z stdout F before the restart\n2025-12-06T05:46:40.005000000Z stderr F not emulated\n',
      );
      rmSync(join(root, 'node-0', 'var'), { recursive: true });
      again.append(r, 'c', 2, 'stdout', 'later\n', T0 + 6);
      assert.equal(readFileSync(again.file(r, 'c', 2), 'utf8'), '2025-12-06T05:46:40.006000000Z stdout F later\n');
    }));
});
