// The dashboard's server side (docs/dashboard.md §1–§3): /ui/ on the ARM port. Sign-in by one-time link, then a
// session cookie; the shell page and the browser modules; a JSON API reading the store and the cluster APIs in
// process; server-sent events of what changed. `server` creates it and registers its routes before ARM's catch-all.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ArmError } from '../arm/errors.js';
import type { Identity } from '../arm/identity.js';
import type { TokenAuthority } from '../arm/auth.js';
import { authorityUrl } from '../arm/authority.js';
import type { Lro } from '../arm/lro.js';
import type { Registry } from '../arm/registry.js';
import type { ClusterApis } from '../cluster/server.js';
import { NODES } from '../cluster/apimachinery/resources.js';
import { nodeReady } from '../cluster/apimachinery/node-status.js';
import type { ChangeFeed } from '../store/observed.js';
import type { Store } from '../store/store.js';
import { armReader } from './arm-read.js';
import { readAsset } from './assets.js';
import { DashboardAuth, sessionCookie } from './auth.js';
import { badRequest, bodyTooLarge, failed, forbidden, notFound, notServed, SIGN_IN_MESSAGE, tooManyStreams, unauthorized } from './errors.js';
import { UI_HEADERS } from './headers.js';
import { clusterView } from './cluster-view.js';
import { EventHub, MAX_STREAMS_PER_SESSION } from './events.js';
import { groupView } from './group.js';
import { operationsView } from './operations.js';
import { overview } from './overview.js';
import { planView } from './plan.js';
import { subnetMap } from './subnet-map.js';
import { vnetView } from './vnet.js';
import { SHELL_HTML, signInPage } from './shell.js';

export interface DashboardDeps {
  store: Store & ChangeFeed;
  clusterApis: ClusterApis;
  identity: Identity;
  /** Checks the ARM bearer token of POST /ui/login-links. */
  authority: TokenAuthority;
  /** For ARM bodies as a GET returns them, run in process (arm-read.ts). */
  registry: Registry;
  lro: Lro;
  log: (line: string) => void;
}

/** How the server names itself to a request: its origin as the client reached it (127.0.0.1 or localhost). */
export interface Site {
  baseUrlOf(request: FastifyRequest): string;
}

/** A query longer than this is refused before it is parsed (ids are well under 1 KiB). */
const MAX_QUERY = 4096;

/** What an API route answers: a JSON value (200) or an ArmError thrown. */
type ApiHandler = (query: URLSearchParams, body: unknown) => unknown;

export class Dashboard {
  readonly auth = new DashboardAuth();
  private readonly get: Record<string, ApiHandler>;
  private readonly post: Record<string, ApiHandler>;
  private readonly events: EventHub;
  /** The origin the last request reached us at, for the ARM ids' links in bodies read in process. */
  private origin = '';

  constructor(private readonly deps: DashboardDeps) {
    const { store, identity, clusterApis } = deps;
    const arm = armReader({ ...deps, baseUrl: () => this.origin });
    this.events = new EventHub(store, clusterApis);
    this.get = {
      overview: () => overview(store, identity.subscriptionId),
      operations: () => operationsView(store),
      group: (q) => groupView(store, identity.subscriptionId, q.get('name'), (id) => readyNodes(clusterApis, id)),
      vnet: (q) => vnetView(store, arm, q.get('id')),
      'subnet-map': (q) => subnetMap(store, q.get('id')),
      cluster: (q) => clusterView(store, arm, clusterApis, q.get('id')),
    };
    this.post = { plan: (_q, body) => planView(body) };
  }

  /** A new one-time login link (`aksemu start` prints one; `aksemu dashboard` asks for another). */
  loginUrl(origin: string): string {
    return `${origin}/ui/login?token=${this.auth.newLoginToken()}`;
  }

  /** Registers /ui and /ui/* on the app; call before ARM's catch-all. */
  register(app: FastifyInstance, site: Site): void {
    const handler = (request: FastifyRequest, reply: FastifyReply) => this.handle(request, reply, site);
    const method = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
    app.route({ method: [...method], url: '/ui', handler });
    app.route({ method: [...method], url: '/ui/*', handler });
  }

  /** Ends the event streams (they never end by themselves). */
  close(): void {
    this.events.close();
  }

  private async handle(request: FastifyRequest, reply: FastifyReply, site: Site): Promise<FastifyReply | undefined> {
    reply.headers(UI_HEADERS);
    const url = request.url;
    const q = url.indexOf('?');
    // The router ignores case and a trailing slash; the dashboard's own paths are matched in lower case.
    const path = (q < 0 ? url : url.slice(0, q)).toLowerCase();
    const queryText = q < 0 ? '' : url.slice(q + 1);
    try {
      if (queryText.length > MAX_QUERY) throw badRequest(`The query string is longer than ${MAX_QUERY} characters.`);
      const query = new URLSearchParams(queryText);
      if (path === '/ui') return reply.code(301).header('Location', '/ui/').send();
      if (path === '/ui/login') return this.login(request, reply, query);
      if (path === '/ui/login-links') return await this.loginLink(request, reply, site);
      const api = path.startsWith('/ui/api/');
      const session = this.auth.sessionOf(request.headers.cookie);
      if (session === undefined) {
        if (api || request.method !== 'GET') throw unauthorized();
        return reply.code(401).type('text/html; charset=utf-8').send(signInPage(SIGN_IN_MESSAGE));
      }
      this.origin = site.baseUrlOf(request);
      if (path === '/ui/api/events' && request.method === 'GET') {
        reply.hijack();
        if (!this.events.open(session, reply.raw)) {
          const body = JSON.stringify(tooManyStreams(MAX_STREAMS_PER_SESSION).toJSON());
          reply.raw.writeHead(429, { ...UI_HEADERS, 'Content-Type': 'application/json; charset=utf-8' }).end(body);
        }
        return reply;
      }
      if (api) return this.api(request, reply, path.slice('/ui/api/'.length), query, site);
      if (request.method !== 'GET' && request.method !== 'HEAD') throw notServed(`The dashboard does not serve ${request.method} ${path}.`);
      if (path.startsWith('/ui/assets/')) {
        const asset = await readAsset(path.slice('/ui/assets/'.length));
        if (!asset) throw notFound(`No asset ${path}.`);
        return reply.code(200).type(asset.type).send(asset.body);
      }
      return reply.code(200).type('text/html; charset=utf-8').send(SHELL_HTML);
    } catch (err) {
      const error = err instanceof ArmError ? err : this.unexpected(err, request);
      return reply.code(error.status).type('application/json; charset=utf-8').send(JSON.stringify(error.toJSON()));
    }
  }

  private login(request: FastifyRequest, reply: FastifyReply, query: URLSearchParams): FastifyReply {
    if (request.method !== 'GET') throw notServed('Open the login link in a browser (GET).');
    const session = this.auth.redeem(query.get('token'));
    if (session === undefined) {
      const message = 'This login link is not valid, or has been used already. Run aksemu dashboard for a new one.';
      return reply.code(401).type('text/html; charset=utf-8').send(signInPage(message));
    }
    return reply.code(303).header('Location', '/ui/').header('Set-Cookie', sessionCookie(session)).send();
  }

  /** POST /ui/login-links with the ARM bearer token: a fresh login link, for `aksemu dashboard`. */
  private async loginLink(request: FastifyRequest, reply: FastifyReply, site: Site): Promise<FastifyReply> {
    if (request.method !== 'POST') throw notServed('Ask for a login link with POST.');
    const baseUrl = site.baseUrlOf(request);
    await this.deps.authority.verify(request.headers.authorization, baseUrl, authorityUrl(baseUrl));
    return reply
      .code(200)
      .type('application/json; charset=utf-8')
      .send(JSON.stringify({ url: this.loginUrl(baseUrl) }));
  }

  private api(request: FastifyRequest, reply: FastifyReply, name: string, query: URLSearchParams, site: Site): FastifyReply {
    let body: unknown;
    let handler: ApiHandler | undefined;
    if (request.method === 'POST') {
      const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/json') throw forbidden('Dashboard requests send Content-Type: application/json.');
      const origin = request.headers.origin;
      if (origin !== undefined && origin !== site.baseUrlOf(request)) throw forbidden(`Requests from ${origin.slice(0, 200)} are not accepted.`);
      handler = Object.hasOwn(this.post, name) ? this.post[name] : undefined;
      if (handler) body = parseJson(request.body);
    } else if (request.method === 'GET' || request.method === 'HEAD') {
      handler = Object.hasOwn(this.get, name) ? this.get[name] : undefined;
    }
    if (!handler) {
      if (Object.hasOwn(this.get, name) || Object.hasOwn(this.post, name)) throw notServed(`The dashboard does not serve ${request.method} /ui/api/${name}.`);
      throw notFound(`No dashboard API /ui/api/${name.slice(0, 100)}.`);
    }
    return reply
      .code(200)
      .type('application/json; charset=utf-8')
      .send(JSON.stringify(handler(query, body)));
  }

  private unexpected(err: unknown, request: FastifyRequest): ArmError {
    this.deps.log(`dashboard request ${request.id} failed: ${(err as Error).stack ?? String(err)}`);
    return failed(request.id);
  }
}

/** How many of a cluster's Node objects are Ready; undefined when its API is not running. */
function readyNodes(clusterApis: ClusterApis, clusterId: string): number | undefined {
  const runtime = clusterApis.runtimeOf(clusterId);
  if (!runtime) return undefined;
  return runtime.objects.list(NODES).filter(nodeReady).length;
}

/** A POST body: JSON text, at most 64 KiB. */
function parseJson(body: unknown): unknown {
  const text = typeof body === 'string' ? body : '';
  if (text.length > 65_536) throw bodyTooLarge();
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest('The request body is not valid JSON.');
  }
}
