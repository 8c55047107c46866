// The SSH public key `aks create` puts in linuxProfile: --ssh-key-value (text or a file), else
// ~/.ssh/id_rsa.pub, else with --generate-ssh-keys a new RSA key. az writes a new key to ~/.ssh;
// aksemu keeps its own under <home>/ssh instead, so an emulator never touches the user's keys.
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
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

function newRsaPublicKey(): { publicKey: string; privateKeyPem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = publicKey.export({ format: 'jwk' });
  const blob = Buffer.concat([sshString(Buffer.from('ssh-rsa')), mpint(jwk.e!), mpint(jwk.n!)]);
  return { publicKey: `ssh-rsa ${blob.toString('base64')}`, privateKeyPem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString() };
}

export function resolveSshKey(options: { value?: string; generate: boolean; aksemuHome: string; userHome?: string }): string {
  if (options.value !== undefined) {
    return existsSync(options.value) ? readFileSync(options.value, 'utf8').trim() : options.value.trim();
  }
  const userKey = join(options.userHome ?? homedir(), '.ssh', 'id_rsa.pub');
  if (existsSync(userKey)) return readFileSync(userKey, 'utf8').trim();
  const ownKey = join(options.aksemuHome, 'ssh', 'id_rsa.pub');
  if (existsSync(ownKey)) return readFileSync(ownKey, 'utf8').trim();
  if (!options.generate) {
    throw new AzCliError('An RSA key file or key value must be supplied to SSH Key Value. You can use --generate-ssh-keys to let CLI generate one for you');
  }
  const key = newRsaPublicKey();
  mkdirSync(join(options.aksemuHome, 'ssh'), { recursive: true, mode: 0o700 });
  writeFileSync(join(options.aksemuHome, 'ssh', 'id_rsa'), key.privateKeyPem, { mode: 0o600 });
  writeFileSync(ownKey, `${key.publicKey}\n`, { mode: 0o644 });
  return key.publicKey;
}
