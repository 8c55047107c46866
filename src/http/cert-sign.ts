// Certificates the HTTPS servers hand out (the local CA's, the cluster APIs', clients'): node-forge assembles
// them, OpenSSL signs them. forge's own RSA signature is JavaScript big-number arithmetic, ~75 ms per certificate,
// and a cluster create issued two on the event loop.
import { constants, createPrivateKey, privateEncrypt, randomBytes } from 'node:crypto';
import type forge from 'node-forge';

/** DER of DigestInfo's head for SHA-256 (RFC 8017 §9.2, note 1): the 32-byte digest follows. */
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');

/**
 * A private key for forge's `cert.sign(key, forge.md.sha256.create())` that signs with OpenSSL: RSASSA-PKCS1-v1_5,
 * deterministic, so the certificate is byte for byte the one forge would sign.
 */
export function opensslSigner(keyPem: string): forge.pki.rsa.PrivateKey {
  const key = createPrivateKey(keyPem);
  const sign = (md: forge.md.MessageDigest): forge.Bytes => {
    if (md.algorithm !== 'sha256') throw new Error(`opensslSigner signs SHA-256 digests, not ${md.algorithm}`);
    const digestInfo = Buffer.concat([SHA256_DIGEST_INFO, Buffer.from(md.digest().getBytes(), 'binary')]);
    return privateEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, digestInfo).toString('binary');
  };
  return { sign } as unknown as forge.pki.rsa.PrivateKey;
}

/**
 * A random serial number for forge's `cert.serialNumber` (hex) that DER encodes minimally, as OpenSSL requires: forge
 * drops one needless leading zero byte of an INTEGER, not two, so a serial starting 00 00 0x–7x (1 in 65,536 of 16
 * random bytes with the sign bit cleared) made a certificate OpenSSL refuses ("illegal padding"). The first byte is
 * 0x40–0x7f: positive, never zero, 126 random bits (RFC 5280 §4.1.2.2: positive, at most 20 octets).
 */
export function certSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] = 0x40 | (bytes[0]! & 0x3f);
  return bytes.toString('hex');
}
