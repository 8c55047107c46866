// The aksemu server: HTTPS on loopback, the ADFS-style authority and metadata document (no token
// needed), and every other path through the ARM pipeline. startServer() is what `aksemu start`
// runs and what tests run in-process.
import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { requireApiVersion } from '../arm/apiVersions.js';
import { TokenAuthority } from '../arm/auth.js';
import { openidConfiguration, tokenRequest } from '../arm/authority.js';
import { ArmError, internalServerError, invalidRequestContent, requestEntityTooLarge } from '../arm/errors.js';
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
import { loadOrCreateTls } from './tls.js';

export const DEFAULT_PORT = 8443;
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
  /** Milliseconds before a long-running operation's work runs. */
  lroDelayMs?: number;
  /** One line per request, and internal errors. Never secrets. */
  log?: (line: string) => void;
  providers?: Provider[];
  /** The data plane the server keeps converged on its state (default: none). Closed with the server. */
  dataplane?: Dataplane;
  /** Quiet time after a change before the data plane applies it. */
  dataplaneDebounceMs?: number;
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

function send(reply: FastifyReply, method: string, response: ArmResponse): FastifyReply {
  reply.code(response.status).headers({ ...ARM_HEADERS, ...response.headers });
  if (response.body === undefined || method === 'HEAD' || response.status === 204) return reply.send();
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(response.body));
}

/** The log shows the path and api-version only: other query values may be anything. */
function loggableUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const apiVersion = new URLSearchParams(url.slice(q + 1)).get('api-version');
  return url.slice(0, q) + (apiVersion === null ? '' : `?api-version=${apiVersion}`);
}

/** Our URL as this client reached it (127.0.0.1 or localhost), so every URL we hand out works for it. */
function baseUrlOf(request: FastifyRequest, fallback: string): string {
  const host = request.headers.host;
  return host !== undefined && /^([\w.-]+|\[[0-9a-f:]+\])(:\d+)?$/i.test(host) ? `https://${host}` : fallback;
}

function buildApp(tls: { certPem: string; keyPem: string }, deps: PipelineDeps, urlRef: { url: string }): FastifyInstance {
  const app = Fastify({
    https: { key: tls.keyPem, cert: tls.certPem },
    logger: false,
    bodyLimit: BODY_LIMIT,
    genReqId: () => randomUUID(),
    exposeHeadRoutes: false,
    // az lower-cases the authority, and sends //metadata when the ARM URL ends in '/'.
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
  });

  // Bodies arrive as text; the pipeline parses JSON itself so bad JSON is ARM's 400, not fastify's.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

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
    return send(reply, request.method, errorResponse(armError, { 'x-ms-request-id': request.id }));
  });

  app.get('/metadata/endpoints', async (request, reply) => {
    const headers = { 'x-ms-request-id': request.id };
    try {
      const apiVersion = requireApiVersion(new URLSearchParams(request.url.split('?')[1] ?? ''));
      return send(reply, 'GET', { status: 200, body: metadataEndpoints(baseUrlOf(request, urlRef.url), apiVersion), headers });
    } catch (err) {
      return send(reply, 'GET', errorResponse(err as ArmError, headers));
    }
  });

  app.get('/adfs/.well-known/openid-configuration', async (request, reply) =>
    send(reply, 'GET', { status: 200, body: openidConfiguration(baseUrlOf(request, urlRef.url), deps.authority) }));

  app.get('/adfs/discovery/keys', async (request, reply) => send(reply, 'GET', { status: 200, body: deps.authority.jwks() }));

  app.post('/adfs/oauth2/token', async (request, reply) => {
    const form = new URLSearchParams(typeof request.body === 'string' ? request.body : '');
    const result = await tokenRequest(form, request.headers.authorization, deps.identity, deps.authority, baseUrlOf(request, urlRef.url));
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
          baseUrl: baseUrlOf(request, urlRef.url),
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
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));

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
    const registry = new Registry();
    for (const provider of options.providers ?? defaultProviders()) registry.add(provider);
    // Set below: host-network pods are probed from their node.
    let clusterApis: ClusterApis | undefined;
    registry.add(dataplaneProvider(dataplane, { hostNetworkNode: (id, ns, name) => clusterApis?.hostNetworkNodeOf(id, ns, name) }));
    const lro = new Lro(store, registry, { delayMs: options.lroDelayMs ?? 0, log });
    const deps: PipelineDeps = { registry, store, lro, authority, identity, loose: options.loose ?? false, log };

    const urlRef = { url: '' };
    const app = buildApp(tls, deps, urlRef);
    await app.listen({ host: HOST, port: options.port ?? DEFAULT_PORT });
    const port = (app.server.address() as AddressInfo).port;
    urlRef.url = `https://${HOST}:${port}`;
    const endpointFile = writeEndpointFile(home, endpointInfo(urlRef.url, tls.caFile, identity));
    // Cluster API servers come up before operations resume, so resumed creates reach them.
    clusterApis = new ClusterApis({ home, store, tls, log, dataplane });
    await clusterApis.start();
    // The driver cleans up after a previous run and builds what the store holds, before operations resume.
    await dataplane.start();
    lro.recover();

    let closed = false;
    return {
      url: urlRef.url,
      port,
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
        await app.close();
        lro.close();
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
