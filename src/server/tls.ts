// The local CA and the server certificate (SAN 127.0.0.1, localhost, ::1), made on first start.
// Clients trust ca.pem (az: REQUESTS_CA_BUNDLE; Node: the `ca` TLS option). The server certificate
// is re-issued from the same CA when it is missing or near expiry, so clients never re-trust.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createPrivateKey, generateKeyPair, generateKeyPairSync, type KeyObject, X509Certificate } from 'node:crypto';
import { promisify } from 'node:util';
import { join } from 'node:path';
import forge from 'node-forge';
import { certSerial, opensslSigner } from '../http/cert-sign.js';

interface TlsMaterial {
  caFile: string;
  caPem: string;
  certPem: string;
  keyPem: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const CA_DAYS = 3650;
const SERVER_DAYS = 825;
const RENEW_BEFORE_DAYS = 30;

interface KeyPair {
  privatePem: string;
  publicPem: string;
}

function newKeyPair(): KeyPair {
  // Node makes the key (fast, native); forge only assembles the certificates (http/cert-sign.ts signs them).
  return pems(generateKeyPairSync('rsa', { modulusLength: 2048 }));
}

/** newKeyPair in the thread pool: 50–600 ms of CPU (RSA's primes are random) the event loop does not wait through. */
async function newKeyPairOffThread(): Promise<KeyPair> {
  return pems(await promisify(generateKeyPair)('rsa', { modulusLength: 2048 }));
}

function pems({ privateKey, publicKey }: { privateKey: KeyObject; publicKey: KeyObject }): KeyPair {
  return {
    privatePem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

function validity(cert: forge.pki.Certificate, days: number): void {
  cert.validity.notBefore = new Date(Date.now() - DAY_MS);
  cert.validity.notAfter = new Date(Date.now() + days * DAY_MS);
}

function createCa(): { certPem: string; keyPem: string } {
  const keys = newKeyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicPem);
  cert.serialNumber = certSerial();
  validity(cert, CA_DAYS);
  const subject = [
    { name: 'commonName', value: 'aksemu local CA' },
    { name: 'organizationName', value: 'aksemu' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(opensslSigner(keys.privatePem), forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.privatePem };
}

/** Names and addresses a server certificate is valid for. */
export interface CertNames {
  dns: string[];
  ips: string[];
}

const LOCAL: CertNames = { dns: ['localhost'], ips: ['127.0.0.1', '::1'] };

function createServerCert(caCertPem: string, caKeyPem: string, names: CertNames = LOCAL, keys = newKeyPair()): { certPem: string; keyPem: string } {
  const ca = forge.pki.certificateFromPem(caCertPem);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicPem);
  cert.serialNumber = certSerial();
  validity(cert, SERVER_DAYS);
  cert.setSubject([{ name: 'commonName', value: names.dns[0] ?? 'localhost' }]);
  cert.setIssuer(ca.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [...names.dns.map((value) => ({ type: 2, value })), ...names.ips.map((ip) => ({ type: 7, ip }))],
    },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(opensslSigner(caKeyPem), forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.privatePem };
}

function needsRenewal(certPem: string, caPem: string): boolean {
  const cert = new X509Certificate(certPem);
  const expiresSoon = new Date(cert.validTo).getTime() - Date.now() < RENEW_BEFORE_DAYS * DAY_MS;
  return expiresSoon || !cert.checkIssued(new X509Certificate(caPem));
}

const SECRET = { mode: 0o600 } as const;

/** Whether a kept certificate still serves: from the CA, not near expiry, for exactly these names, with its key. */
function keptCertFits(certPem: string, keyPem: string, caPem: string, names: CertNames): boolean {
  try {
    const cert = new X509Certificate(certPem);
    const sans = (cert.subjectAltName ?? '').split(', ').filter((s) => s !== '');
    return (
      !needsRenewal(certPem, caPem) &&
      sans.length === names.dns.length + names.ips.length &&
      names.dns.every((d) => cert.checkHost(d, { wildcards: false }) === d) &&
      names.ips.every((ip) => cert.checkIP(ip) === ip) &&
      cert.checkPrivateKey(createPrivateKey(keyPem))
    );
  } catch {
    return false;
  }
}

/** A server certificate and its key; `keep()` writes a new one in its folder for later starts (nothing for a kept one). */
export interface KeptCert {
  certPem: string;
  keyPem: string;
  keep(): void;
}

/**
 * A server certificate from the home's CA for other names (a cluster's API as its pods address it:
 * `kubernetes.default.svc`, the Service's ClusterIP); the CA must exist (loadOrCreateTls). It is kept in `dir`
 * (`<base>.pem`, `<base>-key.pem`) and used again on later starts while it fits: making a key would cost
 * hundreds of milliseconds of every start. A new key is made in the thread pool; a new certificate is written only
 * by `keep()`, which the caller calls once it knows what it was for is still there (a cluster deleted meanwhile
 * must leave no folder).
 */
export async function keptServerCert(home: string, dir: string, base: string, names: CertNames): Promise<KeptCert> {
  const certFile = join(dir, `${base}.pem`);
  const keyFile = join(dir, `${base}-key.pem`);
  const caPem = readFileSync(join(home, 'ca.pem'), 'utf8');
  if (existsSync(certFile) && existsSync(keyFile)) {
    const kept = { certPem: readFileSync(certFile, 'utf8'), keyPem: readFileSync(keyFile, 'utf8') };
    if (keptCertFits(kept.certPem, kept.keyPem, caPem, names)) return { ...kept, keep: () => {} };
  }
  const keys = await newKeyPairOffThread();
  const made = createServerCert(caPem, readFileSync(join(home, 'ca-key.pem'), 'utf8'), names, keys);
  const keep = () => {
    try {
      mkdirSync(dir, { recursive: true });
      writeFileSync(keyFile, made.keyPem, SECRET);
      writeFileSync(certFile, made.certPem);
    } catch {
      // Not kept: made again next start.
    }
  };
  return { ...made, keep };
}

export function loadOrCreateTls(home: string): TlsMaterial {
  const files = {
    ca: join(home, 'ca.pem'),
    caKey: join(home, 'ca-key.pem'),
    cert: join(home, 'server.pem'),
    key: join(home, 'server-key.pem'),
  };
  if (!existsSync(files.ca) || !existsSync(files.caKey)) {
    const ca = createCa();
    writeFileSync(files.caKey, ca.keyPem, SECRET);
    writeFileSync(files.ca, ca.certPem);
  }
  const caPem = readFileSync(files.ca, 'utf8');
  if (!existsSync(files.cert) || !existsSync(files.key) || needsRenewal(readFileSync(files.cert, 'utf8'), caPem)) {
    const server = createServerCert(caPem, readFileSync(files.caKey, 'utf8'));
    writeFileSync(files.key, server.keyPem, SECRET);
    writeFileSync(files.cert, server.certPem);
  }
  return { caFile: files.ca, caPem, certPem: readFileSync(files.cert, 'utf8'), keyPem: readFileSync(files.key, 'utf8') };
}
