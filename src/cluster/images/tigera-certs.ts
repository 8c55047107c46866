// The tigera operator's certificates (pkg/controller/certificatemanager): a self-signed CA named
// `tigera-operator-signer`, kept in tigera-operator/tigera-ca-private, that signs typha's server certificate
// (CN typha-server) and calico-node's client certificate (CN typha-client), which calico-system's typha-certs
// and node-certs secrets carry and the tigera-ca-bundle ConfigMap trusts. Keys are made off the event loop.
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import forge from 'node-forge';
import { certSerial, opensslSigner } from '../../http/cert-sign.js';

const DAY_MS = 86_400_000;
const rsa = promisify(generateKeyPair);

export interface Pem {
  cert: string;
  key: string;
}

async function keys(): Promise<{ key: string; publicKey: forge.pki.PublicKey }> {
  const { privateKey, publicKey } = await rsa('rsa', { modulusLength: 2048 });
  return {
    key: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    publicKey: forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString()),
  };
}

async function certificate(cn: string, days: number, signer?: Pem, usage?: 'serverAuth' | 'clientAuth'): Promise<Pem> {
  const { key, publicKey } = await keys();
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = certSerial();
  cert.validity.notBefore = new Date(Date.now() - DAY_MS);
  cert.validity.notAfter = new Date(Date.now() + days * DAY_MS);
  cert.setSubject([{ name: 'commonName', value: cn }]);
  const issuer = signer ? forge.pki.certificateFromPem(signer.cert) : undefined;
  cert.setIssuer(issuer ? issuer.subject.attributes : [{ name: 'commonName', value: cn }]);
  cert.setExtensions(
    signer
      ? [
          { name: 'basicConstraints', cA: false },
          { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
          { name: 'extKeyUsage', [usage ?? 'serverAuth']: true },
          { name: 'subjectAltName', altNames: [{ type: 2, value: cn }] },
        ]
      : [
          { name: 'basicConstraints', cA: true, critical: true },
          { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
          { name: 'subjectKeyIdentifier' },
        ],
  );
  cert.sign(opensslSigner(signer?.key ?? key), forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key };
}

/** The operator's CA (tigera-operator-signer, valid a year as the operator makes it). */
export const newSigner = (): Promise<Pem> => certificate(`tigera-operator-signer@${Math.floor(Date.now() / 1000)}`, 365);

/** typha's server and calico-node's client certificates, signed by the operator's CA. */
export async function issueTyphaPair(signer: Pem): Promise<{ typha: Pem; node: Pem }> {
  const [typha, node] = await Promise.all([certificate('typha-server', 825, signer, 'serverAuth'), certificate('typha-client', 825, signer, 'clientAuth')]);
  return { typha, node };
}
