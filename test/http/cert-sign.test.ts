// The OpenSSL signer gives forge's certificates the signature forge's own RSA would (PKCS#1 v1.5 is deterministic),
// in a fraction of the time.
import assert from 'node:assert/strict';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { test } from 'node:test';
import forge from 'node-forge';
import { opensslSigner } from '../../src/http/cert-sign.js';

test('a certificate signed through opensslSigner is byte for byte the one forge signs, and verifies', () => {
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = keys.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date('2026-01-01T00:00:00Z');
  cert.validity.notAfter = new Date('2027-01-01T00:00:00Z');
  cert.setSubject([{ name: 'commonName', value: 'signer test' }]);
  cert.setIssuer([{ name: 'commonName', value: 'signer test' }]);
  cert.setExtensions([{ name: 'basicConstraints', cA: true, critical: true }]);
  cert.sign(forge.pki.privateKeyFromPem(keyPem), forge.md.sha256.create());
  const byForge = forge.pki.certificateToPem(cert);
  cert.sign(opensslSigner(keyPem), forge.md.sha256.create());
  const byOpenssl = forge.pki.certificateToPem(cert);
  assert.equal(byOpenssl, byForge);
  assert.ok(new X509Certificate(byOpenssl).verify(keys.publicKey));
});

test('opensslSigner refuses a digest other than SHA-256 rather than sign a wrong DigestInfo', () => {
  const keyPem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const md = forge.md.sha1.create();
  md.update('x');
  assert.throws(() => opensslSigner(keyPem).sign(md), /SHA-256/);
});
