// The SSH public key `aks create` puts in linuxProfile: --ssh-key-value (text or a file), else
// ~/.ssh/id_rsa.pub, else with --generate-ssh-keys a new RSA key. az writes a new key to ~/.ssh;
// aksemu keeps its own under <home>/ssh instead, so an emulator never touches the user's keys.
// A new key is made once per home, as az makes one once per user: 100-300 ms of CPU for RSA-2048's primes,
// so it is made in the thread pool while the command goes on with what does not need it (the token, the
// resource group's location), and awaited before the request that carries it. A command line that asks for
// --generate-ssh-keys where no key is found starts making one before its modules load (startKeyEarly); the key is
// written only if the command comes to need it, as before.
import { generateKeyPair, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { resolveHome } from './endpoint.js';
import { AzCliError } from './errors.js';

type KeyPair = { publicKey: KeyObject; privateKey: KeyObject };

/** A key pair started by startKeyEarly, for the first newRsaKey of this process. */
let early: Promise<KeyPair> | undefined;

function makeKeyPair(): Promise<KeyPair> {
  return promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
}

/** The key files `resolveSshKey` reads: the user's, then this home's own. */
function keyFiles(aksemuHome: string, userHome = homedir()): string[] {
  return [join(userHome, '.ssh', 'id_rsa.pub'), join(aksemuHome, 'ssh', 'id_rsa.pub')];
}

/**
 * Starts making a key pair in the thread pool when the command line (aksemu az's arguments) asks for
 * --generate-ssh-keys without a key given or refused and neither key file exists, so that the key (100-300 ms of
 * CPU) is made while the command's modules load. Only a guess: resolveSshKey still decides, and writes the key
 * only when it must make one (a command that fails before never writes it); a wrong guess costs the CPU alone.
 */
export function startKeyEarly(args: readonly string[], env: NodeJS.ProcessEnv): void {
  if (early || !args.includes('--generate-ssh-keys') || args.some((a) => ['--ssh-key-value', '--no-ssh-key', '-x'].includes(a.split('=')[0]!))) return;
  const at = args.findIndex((a) => a === '--home' || a.startsWith('--home='));
  const flagHome = at < 0 ? undefined : args[at] === '--home' ? args[at + 1] : args[at]!.slice('--home='.length);
  if (keyFiles(resolveHome(flagHome, env)).some((file) => existsSync(file))) return;
  early = makeKeyPair();
  early.catch(() => undefined);
}

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
  const pair = early ?? makeKeyPair();
  early = undefined;
  const { publicKey, privateKey } = await pair;
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
  for (const file of keyFiles(options.aksemuHome, options.userHome)) {
    if (existsSync(file)) return Promise.resolve(readFileSync(file, 'utf8').trim());
  }
  if (!options.generate) {
    throw new AzCliError('An RSA key file or key value must be supplied to SSH Key Value. You can use --generate-ssh-keys to let CLI generate one for you');
  }
  return newRsaKey(options.aksemuHome);
}
