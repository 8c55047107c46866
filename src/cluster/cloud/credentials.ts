// Cluster credentials as AKS hands them out (docs/clients.md §3.6): a kubeconfig with the API server URL,
// the CA, and a client certificate (CN=masterclient, O=system:masters, issued by aksemu's local CA) plus a
// bearer token. Non-AAD AKS gives clusterUser and clusterAdmin the same credential under different names.
import { createHash, generateKeyPair, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import forge from 'node-forge';
import { certSerial, opensslSigner } from '../../http/cert-sign.js';
import { stringify } from 'yaml';
import type { CredentialKind } from '../../providers/containerservice/credentials.js';

export interface ClusterCredential {
  certPem: string;
  keyPem: string;
  token: string;
  /** sha256 of the certificate's DER, lower-case hex: how the API server recognises it. */
  fingerprint: string;
}

export const CLIENT_CN = 'masterclient';
export const CLIENT_ORG = 'system:masters';

const DAY_MS = 24 * 60 * 60 * 1000;

export function certFingerprint(der: Buffer): string {
  return createHash('sha256').update(der).digest('hex');
}

/**
 * Whether a presented secret equals the expected one, in time that does not depend on where they differ:
 * both are hashed first, so timingSafeEqual compares equal lengths and the length is not revealed either.
 */
export function sameSecret(expected: string, presented: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(expected), digest(presented));
}

/** A client certificate for a cluster, signed by the CA in home (ca.pem, ca-key.pem). */
/** RSA key generation off the event loop: the synchronous call held every request for up to 0.6 s per cluster. */
const generateRsaKeyPair = promisify(generateKeyPair);

export async function issueClientCredential(home: string, clusterFqdn: string): Promise<ClusterCredential> {
  const caPem = readFileSync(join(home, 'ca.pem'), 'utf8');
  const caKeyPem = readFileSync(join(home, 'ca-key.pem'), 'utf8');
  const ca = forge.pki.certificateFromPem(caPem);
  const { privateKey, publicKey } = await generateRsaKeyPair('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = certSerial();
  cert.validity.notBefore = new Date(Date.now() - DAY_MS);
  cert.validity.notAfter = new Date(Date.now() + 2 * 365 * DAY_MS);
  cert.setSubject([
    { name: 'organizationName', value: CLIENT_ORG },
    { name: 'commonName', value: CLIENT_CN },
  ]);
  cert.setIssuer(ca.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', clientAuth: true },
    { name: 'authorityKeyIdentifier', keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
    { name: 'subjectAltName', altNames: [{ type: 2, value: clusterFqdn }] },
  ]);
  cert.sign(opensslSigner(caKeyPem), forge.md.sha256.create());
  const certPem = forge.pki.certificateToPem(cert);
  const der = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary');
  return { certPem, keyPem, token: randomBytes(32).toString('hex'), fingerprint: certFingerprint(der) };
}

export interface KubeconfigInput {
  clusterName: string;
  resourceGroup: string;
  server: string;
  caPem: string;
  credential: ClusterCredential;
  kind: CredentialKind;
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** The kubeconfig YAML AKS returns: cluster and context named after the cluster (`-admin` for admin). */
export function kubeconfigYaml(input: KubeconfigInput): string {
  const user = `${input.kind === 'admin' ? 'clusterAdmin' : 'clusterUser'}_${input.resourceGroup}_${input.clusterName}`;
  const context = input.kind === 'admin' ? `${input.clusterName}-admin` : input.clusterName;
  return stringify({
    apiVersion: 'v1',
    clusters: [{ cluster: { 'certificate-authority-data': b64(input.caPem), server: input.server }, name: input.clusterName }],
    contexts: [{ context: { cluster: input.clusterName, user }, name: context }],
    'current-context': context,
    kind: 'Config',
    preferences: {},
    users: [
      {
        name: user,
        user: {
          'client-certificate-data': b64(input.credential.certPem),
          'client-key-data': b64(input.credential.keyPem),
          token: input.credential.token,
        },
      },
    ],
  });
}
