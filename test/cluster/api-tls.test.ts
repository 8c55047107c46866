// The cluster API servers choose the TLS cipher suite as the apiserver's Go crypto/tls server does (api-https.ts):
// AES-128-GCM whatever the order a client offers, ChaCha20 when the client puts it first.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type ConnectionOptions } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { apiHttpsServer } from '../../src/cluster/apiserver/index.js';
import { loadOrCreateTls } from '../../src/server/tls.js';

describe('cluster API TLS: the cipher suite as Go chooses it', () => {
  const home = mkdtempSync(join(tmpdir(), 'aksemu-api-tls-'));
  const tls = loadOrCreateTls(home);
  const server = apiHttpsServer(tls, {
    serve: (_req, res) => res.end('ok'),
    upgrade: (_req, socket) => socket.destroy(),
    clientError: (_err, socket) => socket.destroy(),
  });
  let port = 0;
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(home, { recursive: true, force: true });
  });
  const cipherOf = (options: ConnectionOptions) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, ca: tls.caPem, servername: 'localhost', ...options }, () => {
        resolve(socket.getCipher().standardName);
        socket.end();
      });
      socket.on('error', reject);
    });

  test('a Node client (AES-256 offered first) gets AES-128-GCM, on TLS 1.3 and 1.2', async () => {
    assert.equal(await cipherOf({}), 'TLS_AES_128_GCM_SHA256');
    assert.equal(await cipherOf({ maxVersion: 'TLSv1.2' }), 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256');
  });

  test('a client that puts ChaCha20 first gets it, as from Go', async () => {
    const ciphers = 'TLS_CHACHA20_POLY1305_SHA256:TLS_AES_256_GCM_SHA384:TLS_AES_128_GCM_SHA256';
    assert.equal(await cipherOf({ ciphers }), 'TLS_CHACHA20_POLY1305_SHA256');
  });

  test('curl (OpenSSL, AES-256 first) connects with AES-128-GCM', async () => {
    const stderr = await new Promise<string>((resolve, reject) =>
      execFile(
        'curl',
        ['-sSv', '--resolve', `localhost:${port}:127.0.0.1`, '--cacert', join(home, 'ca.pem'), `https://localhost:${port}/`],
        (err, stdout, err2) => (err ? reject(new Error(err2)) : (assert.equal(stdout, 'ok'), resolve(err2))),
      ),
    );
    assert.match(stderr, /SSL connection using TLSv1\.3 \/ TLS_AES_128_GCM_SHA256/);
  });
});
