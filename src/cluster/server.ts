// Every cluster's API server: one HTTPS listener per cluster on 127.0.0.1, its port kept in the store so a
// restart serves the same URL (the kubeconfig stays valid). All listeners share one TLS server (aksemu's
// server certificate, SAN 127.0.0.1) and tell clusters apart by local port. Authentication is the cluster's
// client certificate or bearer token (credentials.ts); anything else is 401. Each cluster's objects are
// written through to the store (objects/persistence.ts) and restored when its API starts again.
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { CLUSTER_TYPE, type ClusterRecord, type NodeRecord } from '../providers/containerservice/records.js';
import type { Store } from '../store/store.js';
import { ClusterApi } from './api.js';
import { ClusterRuntime } from './cluster.js';
import { sandboxesFor, type PodNetworkAttacher } from './workloads/dataplane-sandboxes.js';
import { certFingerprint, issueClientCredential, kubeconfigYaml, type ClusterCredential } from './credentials.js';
import { attachLifecycle, detachLifecycle, type ClusterLifecycle, type CredentialKind } from './lifecycle.js';
import { forgetObjects, ObjectPersistence } from './objects/persistence.js';
import { unauthorized } from './status.js';
import { PODS } from './workloads/kinds.js';

const HOST = '127.0.0.1';
const RECORD_PREFIX = 'aksemu:clusterapi';
const BODY_LIMIT = 3 * 1024 * 1024;

/** What the store keeps per cluster API. */
interface ApiRecord {
  clusterId: string;
  port: number;
  credential: ClusterCredential;
}

function recordKey(clusterId: string): string {
  return `${RECORD_PREFIX}${clusterId.toLowerCase()}`;
}

interface Entry {
  runtime: ClusterRuntime;
  persistence: ObjectPersistence;
  api: ClusterApi;
  listener: NetServer;
  /** Open connections: closing a listener waits for them, so they are destroyed first. */
  sockets: Set<Socket>;
  port: number;
  credential: ClusterCredential;
}

export interface ClusterApisOptions {
  home: string;
  store: Store;
  tls: { certPem: string; keyPem: string; caPem: string };
  log: (line: string) => void;
  /** Kubelet conf-dir rescan period. */
  rescanMs?: number;
  /** The data plane pods attach to (the server's DataplaneController); without one, or `none`, pods get addresses only. */
  dataplane?: PodNetworkAttacher;
}

export class ClusterApis implements ClusterLifecycle {
  private readonly tlsServer: HttpsServer;
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<Entry | undefined>>();
  private readonly byPort = new Map<number, Entry>();
  private closed = false;

  constructor(private readonly options: ClusterApisOptions) {
    this.tlsServer = createHttpsServer(
      { key: options.tls.keyPem, cert: options.tls.certPem, ca: options.tls.caPem, requestCert: true, rejectUnauthorized: false },
      (req, res) => void this.serve(req, res),
    );
  }

  /** Serves every cluster the store knows, and listens for lifecycle calls from the provider. */
  async start(): Promise<void> {
    attachLifecycle(this.options.store, this);
    const ids = new Set<string>();
    for (const { value } of this.options.store.list<ApiRecord>(RECORD_PREFIX)) ids.add(value.clusterId);
    for (const { value } of this.options.store.list<NodeRecord>('aksemu:nodes')) ids.add(value.clusterId);
    for (const id of ids) {
      // One cluster that cannot be served must not keep ARM (or the other clusters) down.
      await this.ensure(id).catch((e) => this.options.log(`cluster API for ${id}: ${(e as Error).message}`));
    }
  }

  changed(clusterId: string): void {
    setImmediate(() => {
      const entry = this.entries.get(clusterId.toLowerCase());
      if (this.closed) return;
      const failed = (e: unknown) => this.options.log(`cluster API for ${clusterId}: ${(e as Error).stack ?? String(e)}`);
      try {
        if (entry) {
          if (!entry.runtime.sync()) this.unregister(clusterId).catch(failed);
        } else this.ensure(clusterId).catch(failed);
      } catch (e) {
        failed(e);
      }
    });
  }

  removed(clusterId: string): void {
    setImmediate(() => {
      if (this.closed) return;
      if (!this.options.store.get(clusterId)) this.unregister(clusterId).catch((e) => this.options.log(`cluster API for ${clusterId}: ${String(e)}`));
    });
  }

  async kubeconfig(clusterId: string, kind: CredentialKind): Promise<string> {
    const entry = await this.ensure(clusterId);
    if (!entry) throw new Error(`cluster ${clusterId} has no API server`);
    return kubeconfigYaml({
      clusterName: entry.runtime.record.name,
      resourceGroup: entry.runtime.record.resourceGroup,
      server: `https://${HOST}:${entry.port}`,
      caPem: this.options.tls.caPem,
      credential: entry.credential,
      kind,
    });
  }

  /** The running API of a cluster (tests, the CLI). */
  runtimeOf(clusterId: string): ClusterRuntime | undefined {
    return this.entries.get(clusterId.toLowerCase())?.runtime;
  }

  /** The node a host-network pod runs on (it shares the node's network), or undefined. */
  hostNetworkNodeOf(clusterId: string, namespace: string, name: string): string | undefined {
    const pod = this.runtimeOf(clusterId)?.objects.get(PODS, namespace, name) as { spec?: { hostNetwork?: boolean; nodeName?: string } } | undefined;
    return pod?.spec?.hostNetwork && pod.spec.nodeName ? pod.spec.nodeName : undefined;
  }

  urlOf(clusterId: string): string | undefined {
    const e = this.entries.get(clusterId.toLowerCase());
    return e ? `https://${HOST}:${e.port}` : undefined;
  }

  /** Starts a cluster's API (once); undefined when the cluster does not exist. */
  ensure(clusterId: string): Promise<Entry | undefined> {
    const key = clusterId.toLowerCase();
    const known = this.entries.get(key);
    if (known) return Promise.resolve(known);
    let p = this.pending.get(key);
    if (!p) {
      p = this.register(clusterId).finally(() => this.pending.delete(key));
      this.pending.set(key, p);
    }
    return p;
  }

  private async register(clusterId: string): Promise<Entry | undefined> {
    if (this.closed) return undefined;
    const store = this.options.store;
    const cluster = store.get<ClusterRecord>(clusterId);
    if (!cluster || !cluster.id.toLowerCase().includes(CLUSTER_TYPE.toLowerCase())) {
      store.delete(recordKey(clusterId));
      forgetObjects(store, clusterId);
      return undefined;
    }
    let record = store.get<ApiRecord>(recordKey(cluster.id));
    const credential = record?.credential ?? issueClientCredential(this.options.home, cluster.fqdn);
    const sockets = new Set<Socket>();
    const listener = createNetServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      this.tlsServer.emit('connection', socket);
    });
    let port: number;
    try {
      port = await listen(listener, record?.port ?? 0);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || !record) throw e;
      this.options.log(`cluster API for ${cluster.name}: port ${record.port} is taken, moving to a new port (get the credentials again)`);
      port = await listen(listener, 0);
    }
    try {
      if (this.closed || !store.get(cluster.id)) {
        await closeListener({ listener, sockets });
        return undefined;
      }
      if (!record || record.port !== port) {
        record = { clusterId: cluster.id, port, credential };
        store.put(recordKey(cluster.id), record);
      }
      const persistence = new ObjectPersistence(store, cluster.id);
      const runtime = new ClusterRuntime(store, this.options.home, cluster, {
        persistence,
        ...(this.options.rescanMs !== undefined ? { rescanMs: this.options.rescanMs } : {}),
        sandboxes: (host) => sandboxesFor(host, this.options.dataplane, { log: this.options.log }),
      });
      runtime.start();
      const entry: Entry = { runtime, persistence, api: new ClusterApi(runtime), listener, sockets, port, credential };
      this.entries.set(cluster.id.toLowerCase(), entry);
      this.byPort.set(port, entry);
      this.options.log(`cluster API for ${cluster.name} at https://${HOST}:${port}`);
      return entry;
    } catch (e) {
      await closeListener({ listener, sockets });
      throw e;
    }
  }

  private async unregister(clusterId: string): Promise<void> {
    const key = clusterId.toLowerCase();
    await this.pending.get(key);
    const entry = this.entries.get(key);
    this.options.store.delete(recordKey(clusterId));
    if (!entry) {
      forgetObjects(this.options.store, clusterId);
      return;
    }
    this.entries.delete(key);
    this.byPort.delete(entry.port);
    entry.runtime.destroy();
    entry.persistence.destroy();
    await closeListener(entry);
  }

  private authenticated(req: IncomingMessage, entry: Entry): boolean {
    const auth = req.headers.authorization;
    if (auth !== undefined && /^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, '').trim() === entry.credential.token;
    const socket = req.socket as TLSSocket;
    if (!socket.authorized) return false;
    const peer = socket.getPeerCertificate();
    return peer?.raw !== undefined && certFingerprint(peer.raw) === entry.credential.fingerprint;
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const entry = this.byPort.get(req.socket.localPort ?? -1);
    const url = new URL(req.url ?? '/', 'https://localhost');
    const reply = (status: number, body: unknown, contentType = 'application/json') => {
      const text = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
      res.writeHead(status, { 'Content-Type': contentType, 'Cache-Control': 'no-cache, private', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
    };
    try {
      if (!entry) return reply(503, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'cluster not available', reason: 'ServiceUnavailable', code: 503 });
      if (!this.authenticated(req, entry)) return reply(401, unauthorized().toStatus());
      const bytes = await readBody(req);
      const response = entry.api.handle({
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        ...(req.headers.accept ? { accept: req.headers.accept } : {}),
        ...(req.headers['content-type'] ? { contentType: req.headers['content-type'] } : {}),
        ...(bytes.length > 0 ? { body: bytes.toString('utf8'), bytes } : {}),
      });
      if ('watch' in response) {
        res.writeHead(200, { 'Content-Type': response.contentType, 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
        res.flushHeaders();
        let open = true;
        const watch = response.watch({
          send: (event) => {
            if (open) res.write(`${JSON.stringify(event)}\n`);
          },
          close: () => {
            if (open) res.end();
            open = false;
          },
        });
        const stop = () => {
          open = false;
          watch.stop();
        };
        res.on('close', stop);
        if (!open) watch.stop();
        return;
      }
      if (response.text !== undefined) return reply(response.status, response.text, response.contentType);
      return reply(response.status, response.body, response.contentType);
    } catch (e) {
      this.options.log(`cluster API request ${req.method} ${req.url} failed: ${(e as Error).stack ?? String(e)}`);
      if (!res.headersSent) reply(500, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Internal error', reason: 'InternalError', code: 500 });
      else res.end();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    detachLifecycle(this.options.store);
    await Promise.allSettled([...this.pending.values()]);
    for (const entry of this.entries.values()) {
      entry.runtime.close();
      entry.persistence.close();
    }
    await Promise.all([...this.entries.values()].map((e) => closeListener(e)));
    this.entries.clear();
    this.byPort.clear();
  }
}

function listen(server: NetServer, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error) => reject(e);
    server.once('error', onError);
    server.listen({ host: HOST, port }, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeListener(entry: Pick<Entry, 'listener' | 'sockets'>): Promise<void> {
  const closed = new Promise<void>((resolve) => entry.listener.close(() => resolve()));
  for (const s of entry.sockets) s.destroy();
  return closed;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > BODY_LIMIT) {
        reject(new Error('request body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
