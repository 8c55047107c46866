import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { keptServerCert, loadOrCreateTls } from '../../src/server/tls.js';

describe('a kept server certificate (the in-cluster endpoint’s)', () => {
  it('is used again on a later start while it fits, and made again when the names change or it is damaged', () => {
    const home = mkdtempSync(join(tmpdir(), 'aksemu-kept-cert-'));
    try {
      loadOrCreateTls(home);
      const dir = join(home, 'cluster');
      const names = { dns: ['kubernetes.default.svc'], ips: ['10.0.0.1'] };
      const first = keptServerCert(home, dir, 'api', names);
      const again = keptServerCert(home, dir, 'api', names);
      assert.equal(again.certPem, first.certPem);
      assert.equal(again.keyPem, first.keyPem);
      const other = keptServerCert(home, dir, 'api', { dns: ['kubernetes.default.svc'], ips: ['10.0.0.2'] });
      assert.notEqual(other.certPem, first.certPem);
      assert.equal(new X509Certificate(other.certPem).checkIP('10.0.0.2'), '10.0.0.2');
      // A key that is not the certificate's (a crash between the two writes): both made again.
      writeFileSync(join(dir, 'api-key.pem'), first.keyPem);
      const mended = keptServerCert(home, dir, 'api', { dns: ['kubernetes.default.svc'], ips: ['10.0.0.2'] });
      assert.notEqual(mended.certPem, other.certPem);
      assert.equal(new X509Certificate(mended.certPem).checkPrivateKey(createPrivateKey(mended.keyPem)), true);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
