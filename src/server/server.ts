// The aksemu server: HTTPS on loopback, the ADFS-style authority and metadata document (no token
// needed), and every other path through the ARM pipeline. startServer() is what `aksemu start`
// runs and what tests run in-process.
import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { join, resolve } from 'node:path';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { requireApiVersion } from '../arm/apiVersions.js';
import { TokenAuthority } from '../arm/auth.js';
import { openidConfiguration, tokenRequest } from '../arm/authority.js';
import {
  type ArmError,
  internalServerError,
  invalidHttpRequest,
  invalidRequestContent,
  invalidRequestUrl,
  methodNotAllowed,
  requestEntityTooLarge,
  requestHeaderFieldsTooLarge,
  requestTimeout,
  tooManyRequests,
} from '../arm/errors.js';
import { loadOrCreateIdentity, type Identity } from '../arm/identity.js';
import { Lro } from '../arm/lro.js';
import { metadataEndpoints } from '../arm/metadata.js';
import { errorResponse, runPipeline, type PipelineDeps } from '../arm/pipeline.js';
import type { ArmResponse, Provider } from '../arm/provider.js';
import { Registry } from '../arm/registry.js';
import { defaultProviders } from '../providers/index.js';
import { SqliteStore } from '../store/sqlite.js';
import type { Store } from '../store/store.js';
import { ClusterApis } from '../cluster/server.js';
import { DataplaneController } from '../dataplane/controller.js';
import { NullDataplane, type Dataplane } from '../dataplane/dataplane.js';
import { dataplaneProvider } from '../dataplane/provider.js';
import { ObservedStore } from '../store/observed.js';
import { endpointInfo, otherLiveServer, removeEndpointFile, writeEndpointFile } from './endpointFile.js';
import { escapeControls } from './logLine.js';
import { DEFAULT_RATE_LIMIT, RateLimiter, type RateLimit } from './rateLimit.js';
import { DEFAULT_PORT } from './port.js';
import { keptServerCert, loadOrCreateTls } from './tls.js';
import { readBoundedBody, TOO_LARGE } from '../http/body.js';

const HOST = '127.0.0.1';
/** ARM accepts request bodies up to 4 MiB (templates); a little headroom. */
const BODY_LIMIT = 8 * 1024 * 1024;

export interface ServerOptions {
  /** State, certificates and endpoint.json live here. */
  home: string;
  /** 0 picks a free port. */
  port?: number;
  /** Accept unknown body members and any well-formed api-version. */
  loose?: boolean;
  /** Refuse unknown body members even where the service ignores them (AKS before 2024-01-01; docs/aks-rules.md §1.5). */
  strict?: boolean;
  /** Milliseconds before a long-running operation's work runs. */
  lroDelayMs?: number;
  /** One line per request, and internal errors. Never secrets. */
  log?: (line: string) => void;
  providers?: Provider[];
  /** The data plane the server keeps converged on its state (default: none). Closed with the server. */
  dataplane?: Dataplane;
  /** Quiet time after a change before the data plane applies it. */
  dataplaneDebounceMs?: number;
  /** Requests per client: a burst, then so many per second (default: src/server/rateLimit.ts). */
  rateLimit?: RateLimit;
}

export interface RunningServer {
  url: string;
  port: number;
  home: string;
  caFile: string;
  caPem: string;
  endpointFile: string;
  identity: Identity;
  store: Store;
  /** For fastify's inject() in tests. */
  app: FastifyInstance;
  /** Every cluster's Kubernetes API server (one HTTPS listener per cluster). */
  clusterApis: ClusterApis;
  /** The data plane and what keeps it converged; the cluster runtime attaches pods through it. */
  dataplane: DataplaneController;
  close(): Promise<void>;
}

const ARM_HEADERS = { 'Cache-Control': 'no-cache', Pragma: 'no-cache', Expires: '-1', 'X-Content-Type-Options': 'nosniff' };

/**
 * A header value as HTTP carries it: visible ASCII. URLs we hand out name resources whose names may be any
 * Unicode (a resource group 'ÆØÅ-名前'); those characters go percent-encoded, as ARM's own Location headers
 * carry them, and control characters cannot split a header.
 */
function headerValue(value: string): string {
  // A lone surrogate has no UTF-8 form: it becomes U+FFFD's.
  return value.replace(/[^\x20-\x7e]/gu, (c) => (c.length === 1 && /[\ud800-\udfff]/.test(c) ? '%EF%BF%BD' : encodeURIComponent(c)));
}

function send(reply: FastifyReply, method: string, response: ArmResponse): FastifyReply {
  const headers: Record<string, string> = { ...ARM_HEADERS };
  for (const [name, value] of Object.entries(response.headers ?? {})) headers[name] = headerValue(String(value));
  reply.code(response.status).headers(headers);
  if (response.body === undefined || method === 'HEAD' || response.status === 204) return reply.send();
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(response.body));
}

function sendError(request: FastifyRequest, reply: FastifyReply, error: ArmError): FastifyReply {
  return send(reply, request.method, errorResponse(error, { 'x-ms-request-id': request.id }));
}

/** The log shows the path and api-version only: other query values may be anything. */
function loggableUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const apiVersion = new URLSearchParams(url.slice(q + 1)).get('api-version');
  return url.slice(0, q) + (apiVersion === null ? '' : `?api-version=${apiVersion}`);
}

/**
 * The URL handed out in this request's answers (operation URLs, the authority, audiences): ours as
 * the client reached it when it names us — 127.0.0.1 or localhost with our port — and otherwise the
 * server's own URL, so a Host header never decides where a client is sent next.
 */
function publicUrlOf(request: FastifyRequest, ours: { url: string; port: number }): string {
  const host = /^(127\.0\.0\.1|localhost):(\d{1,5})$/i.exec(request.headers.host ?? '');
  return host && Number(host[2]) === ours.port ? `https://${host[1]!.toLowerCase()}:${ours.port}` : ours.url;
}

/**
 * Requests Node cannot parse never reach fastify: answer them in ARM's envelope too, as a raw
 * response on the socket (there is no request object), then close it as Node does.
 */
function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const error =
    err.code === 'HPE_HEADER_OVERFLOW' ? requestHeaderFieldsTooLarge() : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? requestTimeout() : invalidHttpRequest();
  writeRawError(socket, error);
  socket.destroy(err);
}

/**
 * A CONNECT never reaches fastify either: Node hands it to the server's 'connect' listeners and, with none,
 * resets the connection. ARM answers any method it does not serve with 405 in its envelope: so do we.
 */
function answerConnect(req: IncomingMessage, socket: Duplex, log: (line: string) => void): void {
  const id = randomUUID();
  writeRawError(socket, methodNotAllowed('CONNECT'), { 'x-ms-request-id': id });
  log(`CONNECT ${loggableUrl(req.url ?? '')} 405 ${id}`);
  socket.end();
  socket.on('error', () => socket.destroy());
}

function writeRawError(socket: Duplex, error: ArmError, extra: Record<string, string> = {}): void {
  if (!socket.writable) return;
  const body = JSON.stringify(error.toJSON());
  const headers = {
    ...ARM_HEADERS,
    ...extra,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(`HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n${head}\r\n${body}`);
}

function buildApp(tls: { certPem: string; keyPem: string }, deps: PipelineDeps, ours: { url: string; port: number }, rateLimit: RateLimit): FastifyInstance {
  const app = Fastify({
    https: { key: tls.keyPem, cert: tls.certPem },
    logger: false,
    bodyLimit: BODY_LIMIT,
    genReqId: () => randomUUID(),
    exposeHeadRoutes: false,
    // az lower-cases the authority, and sends //metadata when the ARM URL ends in '/'.
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    clientErrorHandler: answerClientError,
    // A path that does not percent-decode (%ZZ) fails in the router, before any route.
    frameworkErrors: (_err, request, reply) => sendError(request, reply, invalidRequestUrl()),
  });

  // Bodies arrive as text; the pipeline parses JSON itself so bad JSON is ARM's 400, not fastify's. An
  // oversized body is drained before the 413 (src/http/body.ts), so the client reads the answer.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => {
    readBoundedBody(payload, BODY_LIMIT).then(
      (body) =>
        body === TOO_LARGE
          ? done(Object.assign(new Error('body too large'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }))
          : done(null, body.toString('utf8')),
      (err: Error) => done(err),
    );
  });

  const limiter = new RateLimiter(rateLimit);
  app.addHook('onRequest', async (request, reply) => {
    const retryAfter = limiter.take(request.socket.remoteAddress ?? '');
    if (retryAfter !== undefined) return sendError(request, reply, tooManyRequests(rateLimit.burst, rateLimit.perSecond, retryAfter));
  });

  app.addHook('onResponse', (request, reply, done) => {
    deps.log(`${request.method} ${loggableUrl(request.url)} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)}ms ${request.id}`);
    done();
  });

  app.setErrorHandler((err: Error & { code?: string; statusCode?: number }, request, reply) => {
    let armError: ArmError;
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') armError = requestEntityTooLarge(BODY_LIMIT);
    else if (err.statusCode !== undefined && err.statusCode < 500) armError = invalidRequestContent(err.message);
    else {
      deps.log(`request ${request.id} failed: ${err.stack ?? err.message}`);
      armError = internalServerError(request.id);
    }
    return sendError(request, reply, armError);
  });

  // Every path of every method ARM has is routed below: what is left is a method we do not serve.
  app.server.on('connect', (req: IncomingMessage, socket: Duplex) => answerConnect(req, socket, deps.log));

  app.setNotFoundHandler((request, reply) => sendError(request, reply, methodNotAllowed(request.method)));

  app.get('/metadata/endpoints', async (request, reply) => {
    const headers = { 'x-ms-request-id': request.id };
    try {
      const apiVersion = requireApiVersion(new URLSearchParams(request.url.split('?')[1] ?? ''));
      return send(reply, 'GET', { status: 200, body: metadataEndpoints(publicUrlOf(request, ours), apiVersion), headers });
    } catch (err) {
      return send(reply, 'GET', errorResponse(err as ArmError, headers));
    }
  });

  app.get('/adfs/.well-known/openid-configuration', async (request, reply) =>
    send(reply, 'GET', { status: 200, body: openidConfiguration(publicUrlOf(request, ours), deps.authority) }),
  );

  app.get('/adfs/discovery/keys', async (request, reply) => send(reply, 'GET', { status: 200, body: deps.authority.jwks() }));

  app.post('/adfs/oauth2/token', async (request, reply) => {
    const form = new URLSearchParams(typeof request.body === 'string' ? request.body : '');
    const result = await tokenRequest(form, request.headers.authorization, deps.identity, deps.authority, publicUrlOf(request, ours));
    return send(reply, 'POST', {
      status: result.status,
      body: result.body,
      headers: { 'Cache-Control': 'no-store, no-cache', 'x-ms-request-id': request.id },
    });
  });

  app.route({
    method: ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'POST', 'OPTIONS'],
    url: '*',
    handler: async (request, reply) => {
      const response = await runPipeline(
        {
          method: request.method,
          url: request.url,
          headers: request.headers,
          rawBody: typeof request.body === 'string' ? request.body : undefined,
          requestId: request.id,
          baseUrl: publicUrlOf(request, ours),
        },
        deps,
      );
      return send(reply, request.method, response);
    },
  });
  return app;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const home = resolve(options.home);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const other = otherLiveServer(home);
  if (other) throw new Error(`another aksemu (pid ${other.pid}) is serving ${home} at ${other.url}`);
  const sink = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const log = (line: string) => sink(escapeControls(line));

  const tls = loadOrCreateTls(home);
  const dbFile = join(home, 'state.db');
  // Created 0600 before SQLite opens it: it holds the client secret and the signing key, and
  // SQLite gives its -wal and -shm files the database file's mode.
  closeSync(openSync(dbFile, 'a', 0o600));
  const sqlite = new SqliteStore(dbFile);
  // Observed, so the data plane follows every committed change without the providers knowing it.
  const store = new ObservedStore(sqlite);
  const dataplane = new DataplaneController({
    store,
    dataplane: options.dataplane ?? new NullDataplane(),
    log,
    ...(options.dataplaneDebounceMs === undefined ? {} : { debounceMs: options.dataplaneDebounceMs }),
  });
  try {
    const identity = loadOrCreateIdentity(store);
    const authority = await TokenAuthority.load(store, identity.tenantId);
    // The layers above the providers reach them through interfaces the providers define (docs/architecture.md §4):
    // the cluster APIs issue kubeconfigs, and host-network pods are probed from their node.
    const clusterApis = new ClusterApis({
      home,
      store,
      tls,
      log,
      dataplane,
      issueCert: (names, dir) => keptServerCert(home, dir, 'apiserver-in-cluster', names),
    });
    const registry = new Registry();
    for (const provider of options.providers ?? defaultProviders({ kubeconfigs: clusterApis })) registry.add(provider);
    registry.add(
      dataplaneProvider(dataplane, {
        hostNetworkNode: (id, ns, name) => clusterApis.hostNetworkNodeOf(id, ns, name),
        serviceProbe: (id, target) => clusterApis.serviceProbeOf(id, target),
      }),
    );
    const lro = new Lro(store, registry, { delayMs: options.lroDelayMs ?? 0, log });
    const deps: PipelineDeps = { registry, store, lro, authority, identity, loose: options.loose ?? false, strict: options.strict ?? false, log };

    // Known once the listener is bound (port 0 picks one); requests cannot arrive before.
    const ours = { url: '', port: 0 };
    const app = buildApp(tls, deps, ours, options.rateLimit ?? DEFAULT_RATE_LIMIT);
    await app.listen({ host: HOST, port: options.port ?? DEFAULT_PORT });
    ours.port = (app.server.address() as AddressInfo).port;
    ours.url = `https://${HOST}:${ours.port}`;
    const endpointFile = writeEndpointFile(home, endpointInfo(ours.url, tls.caFile, identity));
    // Cluster API servers come up before operations resume, so resumed creates reach them.
    await clusterApis.start();
    // The driver cleans up after a previous run and builds what the store holds, before operations resume.
    await dataplane.start();
    lro.recover();

    let closed = false;
    return {
      url: ours.url,
      port: ours.port,
      home,
      caFile: tls.caFile,
      caPem: tls.caPem,
      endpointFile,
      identity,
      store,
      app,
      clusterApis,
      dataplane,
      async close() {
        if (closed) return;
        closed = true;
        // Operations stop first (synchronously): what has not run stays InProgress for the next start.
        lro.close();
        await app.close();
        await clusterApis.close();
        await dataplane.close();
        store.close();
        removeEndpointFile(home);
      },
    };
  } catch (err) {
    await dataplane.close();
    store.close();
    throw err;
  }
}
