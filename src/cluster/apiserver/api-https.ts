// The HTTPS server every cluster API listener uses (the 127.0.0.1 port kubectl reaches and the in-cluster endpoint
// pods reach): client certificates asked for but checked by the API's own authentication, headers up to 1 MiB as Go's
// http server (the apiserver's) takes them so long selectors fit, and CONNECT answered with a Status.
// The cipher suite is chosen as Go's crypto/tls server (the apiserver's) chooses it: by the server's own order, AES-128-GCM
// first (TLS 1.3's TLS_AES_128_GCM_SHA256), whatever the client's order, unless the client puts ChaCha20 first (a client
// without AES instructions; OpenSSL's PRIORITIZE_CHACHA is Go's rule for that). Node's server otherwise takes the
// client's order, and Node and OpenSSL clients (curl, client-node) offer AES-256 first: a sixth more CPU per byte on
// both ends for every watch and list.
import { constants } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { refuseConnect } from './api-socket.js';
import { MAX_HEADER_BYTES } from './validation/limits.js';

/** A server's certificate, key and the CA its clients' certificates are checked against. */
export interface ApiTls {
  certPem: string;
  keyPem: string;
  caPem: string;
}

export interface ApiHttpsHandlers {
  serve: (req: IncomingMessage, res: ServerResponse) => void;
  upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  clientError: (err: NodeJS.ErrnoException, socket: Socket) => void;
}

/**
 * Go's default suites in its order of preference on a CPU with AES instructions (crypto/tls cipherSuitesPreferenceOrder
 * and defaultCipherSuitesTLS13), as OpenSSL names them; Go offers no finite-field DHE, and no RSA key exchange since 1.22.
 */
export const GO_CIPHER_ORDER = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_CHACHA20_POLY1305_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
  'ECDHE-ECDSA-AES128-SHA',
  'ECDHE-RSA-AES128-SHA',
  'ECDHE-ECDSA-AES256-SHA',
  'ECDHE-RSA-AES256-SHA',
].join(':');

export function apiHttpsServer(tls: ApiTls, handlers: ApiHttpsHandlers): Server {
  const server = createServer(
    {
      key: tls.keyPem,
      cert: tls.certPem,
      ca: tls.caPem,
      requestCert: true,
      rejectUnauthorized: false,
      maxHeaderSize: MAX_HEADER_BYTES,
      ciphers: GO_CIPHER_ORDER,
      honorCipherOrder: true,
      secureOptions: constants.SSL_OP_PRIORITIZE_CHACHA,
    },
    handlers.serve,
  );
  server.on('clientError', handlers.clientError);
  server.on('connect', refuseConnect);
  server.on('upgrade', handlers.upgrade);
  return server;
}
