// A key `--generate-ssh-keys` may need is started before `aksemu az`'s modules load (cli/az/ssh-key.ts
// startKeyEarly, docs/performance.md §5.2): it is written only when the command makes one, in the form it had.
import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { resolveSshKey, startKeyEarly } from '../../src/cli/az/ssh-key.js';
import { az, fakeAz } from '../az/helpers.js';

test('a key started early is the one written: ~/ssh/id_rsa (PKCS#1) and its OpenSSH public key', async () => {
  const home = mkdtempSync(join(tmpdir(), 'aksemu-early-key-'));
  try {
    startKeyEarly(['aks', 'create', '--generate-ssh-keys', '--home', home], {});
    const key = await resolveSshKey({ generate: true, aksemuHome: home, userHome: home });
    const privatePem = readFileSync(join(home, 'ssh', 'id_rsa'), 'utf8');
    assert.match(privatePem, /^-----BEGIN RSA PRIVATE KEY-----\n/);
    assert.equal(readFileSync(join(home, 'ssh', 'id_rsa.pub'), 'utf8'), `${key}\n`);
    const [kind, blob] = key.split(' ');
    assert.equal(kind, 'ssh-rsa');
    const jwk = createPublicKey(privatePem).export({ format: 'jwk' });
    // ssh-rsa blob: string "ssh-rsa", mpint e, mpint n
    const b = Buffer.from(blob!, 'base64');
    const parts: Buffer[] = [];
    for (let at = 0; at < b.length; ) {
      const len = b.readUInt32BE(at);
      parts.push(b.subarray(at + 4, at + 4 + len));
      at += 4 + len;
    }
    assert.equal(parts[0]!.toString(), 'ssh-rsa');
    const unsigned = (p: Buffer) => (p[0] === 0 ? p.subarray(1) : p).toString('base64url');
    assert.equal(unsigned(parts[1]!), jwk.e);
    assert.equal(unsigned(parts[2]!), jwk.n);
    // Once made, the home's key is read, not made again.
    assert.equal(await resolveSshKey({ generate: true, aksemuHome: home, userHome: home }), key);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('a command that fails before it needs the key writes none, and says what it said before', async () => {
  const home = mkdtempSync(join(tmpdir(), 'aksemu-early-key-'));
  try {
    const args = ['aks', 'create', '-g', 'rg', '-n', 'bad_name!', '--network-plugin', 'none', '--generate-ssh-keys'];
    const r = await az(home, args);
    const inProcess = await fakeAz(args, []);
    assert.equal(r.code, inProcess.code);
    assert.equal(r.stderr, inProcess.stderr);
    assert.equal(r.stdout, '');
    assert.equal(existsSync(join(home, 'ssh')), false);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
