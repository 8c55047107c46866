// The HTTPS server every cluster API listener uses (the 127.0.0.1 port kubectl reaches and the in-cluster endpoint
// pods reach): client certificates asked for but checked by the API's own authentication, headers up to 1 MiB as Go's
// http server (the apiserver's) takes them so long selectors fit, and CONNECT answered with a Status.
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

export function apiHttpsServer(tls: ApiTls, handlers: ApiHttpsHandlers): Server {
  const server = createServer(
    { key: tls.keyPem, cert: tls.certPem, ca: tls.caPem, requestCert: true, rejectUnauthorized: false, maxHeaderSize: MAX_HEADER_BYTES },
    handlers.serve,
  );
  server.on('clientError', handlers.clientError);
  server.on('connect', refuseConnect);
  server.on('upgrade', handlers.upgrade);
  return server;
}
