// busybox's tar (archival/tar.c, 1.36), as `kubectl cp` drives it through exec (docs/clients.md §5.21): `tar cf -
// PATH` from a pod (kubectl reads the archive from stdout, and prints tar's stderr), `tar -xmf - -C DIR` into
// one (kubectl writes the archive to stdin; `--no-same-owner --no-same-permissions` with --no-preserve), over the
// container's filesystem (container-rootfs.ts). Its words: `tar: removing leading '/' from member names`,
// `tar: PATH: No such file or directory` then `tar: error exit delayed from previous errors` (exit 1),
// `tar: can't change directory to 'DIR': No such file or directory`, `tar: invalid tar magic`, `tar: empty
// archive`. The tar format itself is tar-stream's. Regular files and directories only: aksemu makes no links.
import { chmod, lstat, mkdir, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import tarStream, { type Headers } from 'tar-stream';
import { type ContainerRootfs, containerPath, ROOTFS_LIMITS, type RootfsUsage } from '../container-rootfs.js';

export interface TarIo {
  stdout(data: Buffer): void;
  stderr(text: string): void;
}

/** A fatal error: busybox's bb_error_msg_and_die (`tar: …`, exit 1). */
class Die extends Error {}

interface TarOptions {
  mode: 'c' | 'x' | 't';
  file: string;
  dir?: string;
  verbose: boolean;
  /** -m: do not restore modification times. */
  touch: boolean;
  /** --no-same-permissions: the umask (022) applies. */
  noSamePermissions: boolean;
  paths: string[];
}

/** Options that take no argument, by letter (busybox's tar_longopts and its short letters). */
const FLAGS = new Set(['c', 'x', 't', 'v', 'm', 'o', 'h', 'p']);
const LONG_FLAGS: Readonly<Record<string, string>> = {
  '--create': 'c',
  '--extract': 'x',
  '--list': 't',
  '--verbose': 'v',
  '--touch': 'm',
  '--no-same-owner': 'o',
  '--same-permissions': 'p',
  '--dereference': 'h',
  '--no-same-permissions': 'P',
};

/** getopt32 over tar's options; an old-style first word (`cf`, `xmf`) is one with a dash (busybox prepends it). */
export function parseTarArgs(args: readonly string[]): TarOptions {
  const words = [...args];
  if (words[0] !== undefined && !words[0].startsWith('-')) words[0] = `-${words[0]}`;
  const o: Partial<TarOptions> & { paths: string[] } = { verbose: false, touch: false, noSamePermissions: false, paths: [] };
  const setMode = (m: 'c' | 'x' | 't') => {
    if (o.mode && o.mode !== m) throw new Die("exactly one of 'c', 'x' or 't' must be specified");
    o.mode = m;
  };
  const flag = (letter: string) => {
    if (letter === 'c' || letter === 'x' || letter === 't') setMode(letter);
    else if (letter === 'v') o.verbose = true;
    else if (letter === 'm') o.touch = true;
    else if (letter === 'P') o.noSamePermissions = true;
  };
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === '--') {
      o.paths.push(...words.slice(i + 1));
      break;
    }
    if (w.startsWith('--')) {
      const [name, value] = w.includes('=') ? [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)] : [w, undefined];
      if (name === '--file' || name === '--directory') {
        const v = value ?? words[++i];
        if (v === undefined) throw new Die(`option '${name}' requires an argument`);
        if (name === '--file') o.file = v;
        else o.dir = v;
      } else if (Object.hasOwn(LONG_FLAGS, name)) flag(LONG_FLAGS[name]!);
      else throw new Die(`unrecognized option '${w}'`);
      continue;
    }
    if (!w.startsWith('-') || w === '-') {
      o.paths.push(w);
      continue;
    }
    for (let j = 1; j < w.length; j++) {
      const letter = w[j]!;
      if (letter === 'f' || letter === 'C') {
        const v = j + 1 < w.length ? w.slice(j + 1) : words[++i];
        if (v === undefined) throw new Die(`option requires an argument -- '${letter}'`);
        if (letter === 'f') o.file = v;
        else o.dir = v;
        break;
      }
      if (!FLAGS.has(letter)) throw new Die(`invalid option -- '${letter}'`);
      flag(letter);
    }
  }
  if (!o.mode) throw new Die("exactly one of 'c', 'x' or 't' must be specified");
  return { ...o, mode: o.mode, file: o.file ?? '-' } as TarOptions;
}

/** busybox's strip_unsafe_prefix: leading `/` and everything up to the last `/../` go, said once. */
function stripUnsafePrefix(name: string, warned: { said: boolean }, io: TarIo): string {
  let cp = 0;
  for (;;) {
    if (name[cp] === '/') cp++;
    else if (name.startsWith('../', cp)) cp += 3;
    else {
      const at = name.indexOf('/../', cp);
      if (at < 0) break;
      cp = at + 4;
    }
  }
  if (cp > 0 && !warned.said) {
    warned.said = true;
    io.stderr(`tar: removing leading '${name.slice(0, cp)}' from member names\n`);
  }
  return name.slice(cp);
}

const ENOSPC = `write error: No space left on device (aksemu: a container's filesystem holds at most ${ROOTFS_LIMITS.maxBytes / (1024 * 1024)} MiB in ${ROOTFS_LIMITS.maxEntries} files; docs/clients.md §5.21)`;

/** Runs `tar ARGS` in the container; resolves to its exit status. */
export async function busyboxTar(args: readonly string[], fs: ContainerRootfs, cwd: string, io: TarIo, stdin: Readable | undefined): Promise<number> {
  try {
    const o = parseTarArgs(args);
    if (o.file !== '-') throw new Die(`can't open '${o.file}': aksemu's tar reads and writes archives only on stdin and stdout (f -; docs/clients.md §5.21)`);
    await fs.ensure();
    let dir = cwd;
    if (o.dir !== undefined) {
      dir = containerPath(o.dir, cwd);
      if (!(await isDir(fs.real(dir))))
        throw new Die(`can't change directory to '${o.dir}': ${(await exists(fs.real(dir))) ? 'Not a directory' : 'No such file or directory'}`);
    }
    if (o.mode === 'c') return await create(o, fs, dir, io);
    return await extract(o, fs, dir, io, stdin);
  } catch (e) {
    if (!(e instanceof Die)) throw e;
    io.stderr(`tar: ${e.message}\n`);
    return 1;
  }
}

async function exists(real: string): Promise<boolean> {
  try {
    await lstat(real);
    return true;
  } catch {
    return false;
  }
}

async function isDir(real: string): Promise<boolean> {
  try {
    return (await lstat(real)).isDirectory();
  } catch {
    return false;
  }
}

/** tar c: each path (as written, relative to the directory), directories recursively, in name order. */
async function create(o: TarOptions, fs: ContainerRootfs, dir: string, io: TarIo): Promise<number> {
  if (o.paths.length === 0) throw new Die('empty archive');
  const pack = tarStream.pack();
  pack.on('data', (d: Buffer) => io.stdout(d));
  const ended = new Promise<void>((resolve) => pack.on('end', () => resolve()));
  const warned = { said: false };
  let failed = false;
  const add = (header: Headers, body?: Buffer) =>
    new Promise<void>((resolve, reject) => pack.entry(header, body ?? Buffer.alloc(0), (e) => (e ? reject(e) : resolve())));
  const walk = async (name: string, depth: number): Promise<void> => {
    const real = fs.real(containerPath(name, dir));
    let st: Awaited<ReturnType<typeof lstat>>;
    try {
      st = await lstat(real);
    } catch {
      io.stderr(`tar: ${name}: No such file or directory\n`);
      failed = true;
      return;
    }
    const member = stripLeadingSlashes(name, warned, io);
    const base = { mode: st.mode & 0o7777, mtime: st.mtime, uid: 0, gid: 0, uname: 'root', gname: 'root' };
    if (st.isDirectory()) {
      if (member !== '') await add({ ...base, name: `${member.replace(/\/+$/, '')}/`, type: 'directory' });
      if (o.verbose) io.stderr(`${name}\n`);
      if (depth >= ROOTFS_LIMITS.maxDepth) return;
      const children = (await readdir(real)).sort();
      for (const c of children) await walk(`${name.replace(/\/+$/, '')}/${c}`, depth + 1);
      return;
    }
    if (!st.isFile()) return;
    await add({ ...base, name: member, type: 'file', size: st.size }, await readFile(real));
    if (o.verbose) io.stderr(`${name}\n`);
  };
  for (const p of o.paths) await walk(p, 0);
  pack.finalize();
  await ended;
  if (!failed) return 0;
  io.stderr('tar: error exit delayed from previous errors\n');
  return 1;
}

/** busybox's create: leading slashes go from member names, said once. */
function stripLeadingSlashes(name: string, warned: { said: boolean }, io: TarIo): string {
  const member = name.replace(/^\/+/, '');
  if (member !== name && !warned.said) {
    warned.said = true;
    io.stderr("tar: removing leading '/' from member names\n");
  }
  return member;
}

/** tar x (or t): the archive from stdin, each entry under the directory, bounded by ROOTFS_LIMITS. */
async function extract(o: TarOptions, fs: ContainerRootfs, dir: string, io: TarIo, stdin: Readable | undefined): Promise<number> {
  const usage: RootfsUsage = o.mode === 'x' ? await fs.usage() : { bytes: 0, entries: 0 };
  const warned = { said: false };
  const x = tarStream.extract();
  let status = 0;
  const done = new Promise<void>((resolve, reject) => {
    x.on('entry', (header, body, next) => {
      entry(header, body)
        .then(() => next())
        .catch((e: unknown) => {
          body.resume();
          reject(e);
          x.destroy();
        });
    });
    x.on('finish', () => resolve());
    x.on('error', (e) => reject(e instanceof Die ? e : new Die('invalid tar magic')));
  });
  const entry = async (header: Headers, body: Readable): Promise<void> => {
    const name = stripUnsafePrefix(header.name, warned, io);
    if (o.mode === 't' || o.verbose) io.stdout(Buffer.from(`${header.name}\n`));
    if (o.mode === 't' || name === '' || name === '.' || name === './') return void body.resume();
    const path = containerPath(name, dir);
    const real = fs.real(path);
    if (header.type === 'directory') {
      body.resume();
      if (!(await isDir(real))) {
        if (await exists(real)) throw new Die(`can't create directory '${name}': File exists`);
        usage.entries++;
        if (usage.entries > ROOTFS_LIMITS.maxEntries) throw new Die(ENOSPC);
        await mkdirs(fs, path, usage);
        await mkdir(real, { recursive: true });
      }
      await chmodTimes(real, header, o, 0o700);
      return;
    }
    if (header.type !== 'file' && header.type !== 'contiguous-file') {
      body.resume();
      io.stderr(`tar: ${name}: aksemu does not extract ${header.type ?? 'this kind of entry'}: skipped (docs/clients.md §5.21)\n`);
      status = 1;
      return;
    }
    // Read by events: tar-stream's entry streams pass destroy() to the whole extract, so no async iterator over them.
    const chunks: Buffer[] = [];
    let size = 0;
    await new Promise<void>((resolve, reject) => {
      body.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (usage.bytes + size <= ROOTFS_LIMITS.maxBytes) chunks.push(chunk);
        else reject(new Die(ENOSPC));
      });
      body.on('end', () => resolve());
      body.on('error', reject);
    });
    await mkdirs(fs, path, usage);
    const was = await lstat(real).catch(() => undefined);
    if (was?.isDirectory()) throw new Die(`can't open '${name}': Is a directory`);
    if (!was) usage.entries++;
    if (usage.entries > ROOTFS_LIMITS.maxEntries) throw new Die(ENOSPC);
    // busybox unlinks what was there and creates the file anew.
    if (was) {
      usage.bytes -= was.size;
      await rm(real, { force: true });
    }
    usage.bytes += size;
    await writeFile(real, Buffer.concat(chunks), { mode: 0o600 });
    await chmodTimes(real, header, o, 0o600);
  };
  if (stdin) stdin.pipe(x);
  else x.end();
  try {
    await done;
  } catch (e) {
    stdin?.unpipe(x);
    stdin?.resume();
    throw e;
  }
  if (status !== 0) io.stderr('tar: error exit delayed from previous errors\n');
  return status;
}

/** The leading directories of a container path (ARCHIVE_CREATE_LEADING_DIRS), counted against the bounds. */
async function mkdirs(fs: ContainerRootfs, path: string, usage: RootfsUsage): Promise<void> {
  const parts = path.split('/').filter((s) => s !== '');
  let p = '';
  for (const part of parts.slice(0, -1)) {
    p += `/${part}`;
    const real = fs.real(p);
    const st = await lstat(real).catch(() => undefined);
    if (st?.isDirectory()) continue;
    if (st) throw new Die(`can't create directory '${p.slice(1)}': File exists`);
    if (++usage.entries > ROOTFS_LIMITS.maxEntries) throw new Die(ENOSPC);
    await mkdir(real);
  }
}

/**
 * The entry's mode (less the umask with --no-same-permissions) and, without -m, its modification time. The owner's
 * access (`keep`) stays, so the kubelet, which may not run as root, can read the file back and write under the dir.
 */
async function chmodTimes(real: string, header: Headers, o: TarOptions, keep: number): Promise<void> {
  let mode = (header.mode ?? 0o644) & 0o7777;
  if (o.noSamePermissions) mode &= ~0o022;
  await chmod(real, mode | keep);
  if (!o.touch && header.mtime) await utimes(real, header.mtime, header.mtime);
}
