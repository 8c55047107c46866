import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { keptServerCert, loadOrCreateTls } from '../../src/server/tls.js';

describe('a kept server certificate (the in-cluster endpoint’s)', () => {
  it('is used again on a later start while it fits, and made again when the names change or it is damaged', async () => {
    const home = mkdtempSync(join(tmpdir(), 'aksemu-kept-cert-'));
    try {
      loadOrCreateTls(home);
      const dir = join(home, 'cluster');
      const names = { dns: ['kubernetes.default.svc'], ips: ['10.0.0.1'] };
      const first = await keptServerCert(home, dir, 'api', names);
      first.keep();
      const again = await keptServerCert(home, dir, 'api', names);
      assert.equal(again.certPem, first.certPem);
      assert.equal(again.keyPem, first.keyPem);
      const other = await keptServerCert(home, dir, 'api', { dns: ['kubernetes.default.svc'], ips: ['10.0.0.2'] });
      other.keep();
      assert.notEqual(other.certPem, first.certPem);
      assert.equal(new X509Certificate(other.certPem).checkIP('10.0.0.2'), '10.0.0.2');
      // A key that is not the certificate's (a crash between the two writes): both made again.
      writeFileSync(join(dir, 'api-key.pem'), first.keyPem);
      const mended = await keptServerCert(home, dir, 'api', { dns: ['kubernetes.default.svc'], ips: ['10.0.0.2'] });
      assert.notEqual(mended.certPem, other.certPem);
      assert.equal(new X509Certificate(mended.certPem).checkPrivateKey(createPrivateKey(mended.keyPem)), true);
      // Not kept (what it was for went while the key was made: a cluster deleted meanwhile): made, but no folder is written.
      const gone = join(home, 'deleted-cluster');
      const unkept = await keptServerCert(home, gone, 'api', names);
      assert.equal(new X509Certificate(unkept.certPem).checkPrivateKey(createPrivateKey(unkept.keyPem)), true);
      assert.equal(existsSync(gone), false);
      unkept.keep();
      assert.equal((await keptServerCert(home, gone, 'api', names)).certPem, unkept.certPem);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
