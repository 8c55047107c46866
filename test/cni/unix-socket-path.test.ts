// Every unix socket aksemu binds or connects to is reached one way (src/cni/unix-socket-path.ts): past sun_path's
// 107 bytes, through /proc/self/fd of its open directory. Here the cluster's API socket listens at a path past the
// limit, in its own directory, and a client reaches it through a node's symlink that is past the limit too.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { shortSocketPath, SUN_PATH_MAX } from '../../src/cni/unix-socket-path.js';
import { ApiSocket, apiSocketOf } from '../../src/cluster/apiserver/api-socket.js';

function get(socketPath: string): Promise<string> {
  const short = shortSocketPath(socketPath);
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: short.path, agent: false, path: '/version' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
    req.on('error', reject);
    req.on('close', short.release);
    req.end();
  });
}

test('a socket past sun_path listens where it is named and is reached through a long symlink', async () => {
  const base = mkdtempSync(join(tmpdir(), 'aksemu-sock-'));
  try {
    const clusterDir = join(base, 'a'.repeat(60), 'b'.repeat(60));
    const path = apiSocketOf(clusterDir);
    assert.ok(Buffer.byteLength(path) > SUN_PATH_MAX);
    assert.equal(path, join(clusterDir, 'apiserver.sock'), 'in the cluster directory, whatever its length');
    const before = new Set(readdirSync(tmpdir()));
    const socket = new ApiSocket(
      path,
      (_req, res) => res.end('ok'),
      () => {},
      (line) => assert.fail(line),
    );
    socket.start();
    try {
      const link = join(base, 'c'.repeat(60), 'node', 'run', 'aksemu', 'apiserver.sock');
      mkdirSync(join(link, '..'), { recursive: true });
      symlinkSync(path, link);
      assert.equal(await get(path), 'ok');
      assert.equal(await get(link), 'ok');
      assert.deepEqual(
        readdirSync(tmpdir()).filter((f) => !before.has(f) && f.endsWith('.sock')),
        [],
        'no socket elsewhere',
      );
    } finally {
      await socket.close();
    }
    assert.equal(existsSync(path), false, 'removed on close');
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
