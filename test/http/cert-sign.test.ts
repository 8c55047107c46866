// The OpenSSL signer gives forge's certificates the signature forge's own RSA would (PKCS#1 v1.5 is deterministic),
// in a fraction of the time.
import assert from 'node:assert/strict';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { test } from 'node:test';
import forge from 'node-forge';
import { certSerial, opensslSigner } from '../../src/http/cert-sign.js';

/** A self-signed certificate as the certificate makers assemble one, not signed yet; its key pair. */
function unsigned(serial: string) {
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = keys.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = serial;
  cert.validity.notBefore = new Date('2026-01-01T00:00:00Z');
  cert.validity.notAfter = new Date('2027-01-01T00:00:00Z');
  cert.setSubject([{ name: 'commonName', value: 'signer test' }]);
  cert.setIssuer([{ name: 'commonName', value: 'signer test' }]);
  return { cert, keyPem, publicKey: keys.publicKey };
}

test('a certificate signed through opensslSigner is byte for byte the one forge signs, and verifies', () => {
  const { cert, keyPem, publicKey } = unsigned('01');
  cert.setExtensions([{ name: 'basicConstraints', cA: true, critical: true }]);
  cert.sign(forge.pki.privateKeyFromPem(keyPem), forge.md.sha256.create());
  const byForge = forge.pki.certificateToPem(cert);
  cert.sign(opensslSigner(keyPem), forge.md.sha256.create());
  const byOpenssl = forge.pki.certificateToPem(cert);
  assert.equal(byOpenssl, byForge);
  assert.ok(new X509Certificate(byOpenssl).verify(publicKey));
});

test('opensslSigner refuses a digest other than SHA-256 rather than sign a wrong DigestInfo', () => {
  const keyPem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const md = forge.md.sha1.create();
  md.update('x');
  assert.throws(() => opensslSigner(keyPem).sign(md), /SHA-256/);
});

/** A self-signed certificate with this serial, signed through opensslSigner; its PEM and key. */
function selfSigned(serial: string): { certPem: string; keyPem: string } {
  const { cert, keyPem } = unsigned(serial);
  cert.sign(opensslSigner(keyPem), forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem };
}

test('certSerial: positive, 16 bytes, never a leading zero byte, so OpenSSL takes every certificate forge makes with it', () => {
  // What the makers did before (16 random bytes, sign bit cleared) could start 00 00 7f: forge drops one zero, and the
  // INTEGER left is padded, which OpenSSL refuses when a server is made with the certificate (seen once in a test run).
  const padded = selfSigned('00007f02030405060708090a0b0c0d0e');
  assert.throws(() => createSecureContext({ cert: padded.certPem, key: padded.keyPem }), /illegal padding/);
  for (let i = 0; i < 20_000; i++) {
    const serial = certSerial();
    assert.match(serial, /^[4-7][0-9a-f]{31}$/);
  }
  const made = selfSigned(certSerial());
  assert.doesNotThrow(() => createSecureContext({ cert: made.certPem, key: made.keyPem }));
});
