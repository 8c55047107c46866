// busybox's tar and test as the kubelet serves them over a container's filesystem (docs/clients.md §5.21):
// hostile member names stay inside the container, links are not made, the bounds hold, options and corrupt
// archives are refused in busybox's words.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, describe, test } from 'node:test';
import tarStream, { type Headers } from 'tar-stream';
import { ContainerRootfs, ROOTFS_LIMITS } from '../../src/cluster/kubelet/container-rootfs.js';
import { busyboxTar, parseTarArgs } from '../../src/cluster/kubelet/exec/busybox-tar.js';
import { busyboxTest } from '../../src/cluster/kubelet/exec/file-commands.js';

const scratch = mkdtempSync(join(tmpdir(), 'aksemu-tar-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let n = 0;
const newFs = () => new ContainerRootfs(join(scratch, `fs${++n}`, 'rootfs'), { '/etc/hostname': 'box\n' });

/** An archive of these entries, as tar-stream packs it. */
async function archive(entries: Array<{ header: Headers; body?: Buffer | string }>): Promise<Buffer> {
  const pack = tarStream.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (d: Buffer) => chunks.push(d));
  const ended = new Promise((resolve) => pack.on('end', resolve));
  for (const e of entries) await new Promise<void>((resolve, reject) => pack.entry(e.header, e.body ?? '', (err) => (err ? reject(err) : resolve())));
  pack.finalize();
  await ended;
  return Buffer.concat(chunks);
}

/** Runs tar with `input` on stdin; its status, stdout and stderr. */
async function tar(fs: ContainerRootfs, args: string[], input?: Buffer): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  const out: Buffer[] = [];
  let stderr = '';
  const stdin = input === undefined ? undefined : new PassThrough();
  const run = busyboxTar(args, fs, '/', { stdout: (d) => out.push(d), stderr: (t) => (stderr += t) }, stdin);
  stdin?.end(input);
  const code = await run;
  return { code, stdout: Buffer.concat(out), stderr };
}

describe('busybox tar over a container filesystem', () => {
  test('member names that climb out land inside the container, said once', async () => {
    const fs = newFs();
    const input = await archive([
      { header: { name: '../../outside.txt' }, body: 'one' },
      { header: { name: '/abs/two.txt' }, body: 'two' },
      { header: { name: 'a/../../../three.txt' }, body: 'three' },
    ]);
    const r = await tar(fs, ['-xmf', '-', '-C', '/tmp'], input);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "tar: removing leading '../../' from member names\n");
    assert.equal(readFileSync(fs.real('/tmp/outside.txt'), 'utf8'), 'one');
    assert.equal(readFileSync(fs.real('/tmp/abs/two.txt'), 'utf8'), 'two');
    assert.equal(readFileSync(fs.real('/tmp/three.txt'), 'utf8'), 'three');
    assert.equal(existsSync(join(scratch, `fs${n}`, 'outside.txt')), false);
  });

  test('links are not made: skipped with a line, exit 1', async () => {
    const fs = newFs();
    const input = await archive([{ header: { name: 'evil', type: 'symlink', linkname: '/etc' } }, { header: { name: 'ok.txt' }, body: 'fine' }]);
    const r = await tar(fs, ['xf', '-', '-C', '/tmp'], input);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^tar: evil: aksemu does not extract symlink: skipped/);
    assert.match(r.stderr, /tar: error exit delayed from previous errors\n$/);
    assert.equal(existsSync(fs.real('/tmp/evil')), false);
    assert.equal(readFileSync(fs.real('/tmp/ok.txt'), 'utf8'), 'fine');
  });

  test('an archive past the container filesystem bound is refused: no space left', async () => {
    const fs = newFs();
    const input = await archive([{ header: { name: 'big.bin' }, body: Buffer.alloc(ROOTFS_LIMITS.maxBytes + 1) }]);
    const r = await tar(fs, ['-xf', '-', '-C', '/tmp'], input);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^tar: write error: No space left on device \(aksemu: a container's filesystem holds at most 64 MiB/);
    assert.equal(existsSync(fs.real('/tmp/big.bin')), false);
  });

  test('create: busybox names, directories first, leading slash said; a missing path fails after the others', async () => {
    const fs = newFs();
    await tar(
      fs,
      ['-xf', '-', '-C', '/'],
      await archive([
        { header: { name: 'data/sub/b.txt' }, body: 'beta' },
        { header: { name: 'data/a.txt' }, body: 'alpha' },
      ]),
    );
    const r = await tar(fs, ['cf', '-', '/data', '/nosuch']);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      "tar: removing leading '/' from member names\ntar: /nosuch: No such file or directory\ntar: error exit delayed from previous errors\n",
    );
    const names: string[] = [];
    const x = tarStream.extract();
    x.on('entry', (h, s, next) => {
      names.push(h.name);
      s.resume();
      s.on('end', () => next());
    });
    const done = new Promise<void>((resolve) => x.on('finish', () => resolve()));
    x.end(r.stdout);
    await done;
    assert.deepEqual(names, ['data/', 'data/a.txt', 'data/sub/', 'data/sub/b.txt']);
  });

  test("busybox's refusals: options, no mode, no files, a corrupt archive, a missing -C", async () => {
    const fs = newFs();
    assert.deepEqual(await tar(fs, ['-q']), { code: 1, stdout: Buffer.alloc(0), stderr: "tar: invalid option -- 'q'\n" });
    assert.equal((await tar(fs, ['f', '-'])).stderr, "tar: exactly one of 'c', 'x' or 't' must be specified\n");
    assert.equal((await tar(fs, ['cf', '-'])).stderr, 'tar: empty archive\n');
    const corrupt = await tar(fs, ['xf', '-'], Buffer.alloc(1024, 'x'));
    assert.deepEqual([corrupt.code, corrupt.stderr], [1, 'tar: invalid tar magic\n']);
    const noDir = await tar(fs, ['-xmf', '-', '-C', '/no/dir'], Buffer.alloc(1024));
    assert.deepEqual([noDir.code, noDir.stderr], [1, "tar: can't change directory to '/no/dir': No such file or directory\n"]);
    await tar(fs, ['xf', '-', '-C', '/tmp'], await archive([{ header: { name: 'f' }, body: 'file' }]));
    const fileThere = await tar(fs, ['xf', '-', '-C', '/tmp'], await archive([{ header: { name: 'f', type: 'directory' } }]));
    assert.deepEqual([fileThere.code, fileThere.stderr], [1, "tar: can't create directory 'f': File exists\n"]);
    assert.equal(parseTarArgs(['--no-same-owner', '--no-same-permissions', '-xmf', '-', '-C', '/tmp']).noSamePermissions, true);
  });

  test('test -d / -f / -e on the container filesystem', async () => {
    const fs = newFs();
    const t = (args: string[]) => busyboxTest(args, fs, '/', () => undefined);
    assert.equal(await t(['-d', '/tmp']), 0);
    assert.equal(await t(['-d', '/etc/hostname']), 1);
    assert.equal(await t(['-f', '/etc/hostname']), 0);
    assert.equal(await t(['-e', '/nosuch']), 1);
    assert.equal(await t(['-d', '../../..']), 0, '.. stops at the container root');
    assert.equal(await t(['a', '=', 'b']), 2);
  });
});
