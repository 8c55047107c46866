// The SSH public key `aks create` puts in linuxProfile: --ssh-key-value (text or a file), else
// ~/.ssh/id_rsa.pub, else with --generate-ssh-keys a new RSA key. az writes a new key to ~/.ssh;
// aksemu keeps its own under <home>/ssh instead, so an emulator never touches the user's keys.
// A new key is made once per home, as az makes one once per user: 100-300 ms of CPU for RSA-2048's primes,
// so it is made in the thread pool while the command goes on with what does not need it (the token, the
// resource group's location), and awaited before the request that carries it.
import { generateKeyPair } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AzCliError } from './errors.js';

function sshString(data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  return Buffer.concat([len, data]);
}

/** An mpint: big-endian, with a leading zero byte when the top bit is set. */
function mpint(b64url: string): Buffer {
  let bytes = Buffer.from(b64url, 'base64url');
  if (bytes[0]! & 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return sshString(bytes);
}

/** A new RSA-2048 key pair written to <home>/ssh: its public key in OpenSSH's form. */
async function newRsaKey(aksemuHome: string): Promise<string> {
  const { publicKey, privateKey } = await promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
  const jwk = publicKey.export({ format: 'jwk' });
  const blob = Buffer.concat([sshString(Buffer.from('ssh-rsa')), mpint(jwk.e!), mpint(jwk.n!)]);
  const openSsh = `ssh-rsa ${blob.toString('base64')}`;
  mkdirSync(join(aksemuHome, 'ssh'), { recursive: true, mode: 0o700 });
  writeFileSync(join(aksemuHome, 'ssh', 'id_rsa'), privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(), { mode: 0o600 });
  writeFileSync(join(aksemuHome, 'ssh', 'id_rsa.pub'), `${openSsh}\n`, { mode: 0o644 });
  return openSsh;
}

/**
 * The public key: one given or found, or a new one being made. Throws at once (before any request, as
 * az's validator does) when there is none and --generate-ssh-keys was not given.
 */
export function resolveSshKey(options: { value?: string; generate: boolean; aksemuHome: string; userHome?: string }): Promise<string> {
  if (options.value !== undefined) {
    return Promise.resolve(existsSync(options.value) ? readFileSync(options.value, 'utf8').trim() : options.value.trim());
  }
  const userKey = join(options.userHome ?? homedir(), '.ssh', 'id_rsa.pub');
  if (existsSync(userKey)) return Promise.resolve(readFileSync(userKey, 'utf8').trim());
  const ownKey = join(options.aksemuHome, 'ssh', 'id_rsa.pub');
  if (existsSync(ownKey)) return Promise.resolve(readFileSync(ownKey, 'utf8').trim());
  if (!options.generate) {
    throw new AzCliError('An RSA key file or key value must be supplied to SSH Key Value. You can use --generate-ssh-keys to let CLI generate one for you');
  }
  return newRsaKey(options.aksemuHome);
}
