// Every cluster's API server: one HTTPS listener per cluster on 127.0.0.1, its port kept in the store so a
// restart serves the same URL (the kubeconfig stays valid). All listeners share one TLS server (aksemu's
// server certificate, SAN 127.0.0.1) and tell clusters apart by local port. Authentication is the cluster's
// client certificate or bearer token (credentials.ts); anything else is 401. Each cluster's objects are
// written through to the store (apiserver/storage/persistence.ts) and restored when its API starts again. The clusters
// follow the provider's records through the store's change feed (docs/architecture.md §3).
import type { Server as HttpsServer } from 'node:https';
import {
  apiHttpsServer,
  type ApiTls,
  ClusterApi,
  serveWatch,
  ApiSocket,
  apiSocketOf,
  serviceAccountKey,
  serviceAccountOf,
  ObjectBudget,
  forgetObjects,
  ObjectPersistence,
  bodyTooLarge,
  MAX_BODY_BYTES,
  answerWhileLoading,
  type LoadingCluster,
  type ApiRequest,
} from './apiserver/index.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { TLSSocket } from 'node:tls';
import { CLUSTER_TYPE, clusterOfKey, NODES_PREFIX, nodesPrefix, type ClusterRecord, type NodeRecord } from '../model/cluster-records.js';
import type { CredentialKind, KubeconfigIssuer } from '../providers/containerservice/credentials.js';
import type { Change, ChangeFeed } from '../store/observed.js';
import type { Store } from '../store/store.js';
import type { NodeNetwork } from './images/program.js';
import { ClusterRuntime } from './cluster.js';
import { apiServerAddress } from '../aks/azure-dns.js';
import { type ApiListenerSource, InClusterEndpoint, inClusterNames } from './cloud/in-cluster-endpoint.js';
import { clusterDir } from './nodefs/paths.js';
import { sandboxesFor, type PodNetworkAttacher } from './kubelet/dataplane-sandboxes.js';
import { serviceProbe, type ServiceProbe, type ServiceProbeError, type ServiceProbeTarget } from './proxy/service-backends.js';
import { certFingerprint, issueClientCredential, kubeconfigYaml, sameSecret, type ClusterCredential } from './cloud/credentials.js';
import { badRequest, headersTooLarge, KubeError, unauthorized } from './apimachinery/status.js';
import { refuseUpgrade, serveUpgrade } from './kubelet/exec/upgrade.js';
import type { Duplex } from 'node:stream';
import { EVENTS, NODES, PODS, resourceKey } from './apimachinery/resources.js';
import { eventExpired, recentEventTail } from './client/events.js';
import type { Event } from './apimachinery/types.js';
import { readBoundedBody, TOO_LARGE } from '../http/body.js';

const HOST = '127.0.0.1';
const EVENTS_KEY = resourceKey(EVENTS);
import { CLUSTER_API_PREFIX as RECORD_PREFIX } from '../store/keys.js';

/** What the store keeps per cluster API. */
interface ApiRecord {
  clusterId: string;
  port: number;
  credential: ClusterCredential;
}

function recordKey(clusterId: string): string {
  return `${RECORD_PREFIX}${clusterId.toLowerCase()}`;
}

/** A cluster whose objects are loading: what its requests are authenticated against and its pages read from. */
interface Loading extends LoadingCluster {
  key: string;
  credential: ClusterCredential;
  /** The key its service-account tokens are signed with (derived from the credential, as the runtime's). */
  serviceAccounts: Buffer;
}

/** What a running cluster's requests are authenticated against. */
function authOf(entry: Entry): Pick<Loading, 'credential' | 'serviceAccounts'> {
  return { credential: entry.credential, serviceAccounts: entry.runtime.serviceAccounts.key };
}

interface Entry {
  runtime: ClusterRuntime;
  /** The API on a unix socket, linked into each node (api-socket.ts). */
  apiSocket: ApiSocket;
  /** The API at the `kubernetes` Service's endpoint, for pods (in-cluster-endpoint.ts). */
  inCluster: InClusterEndpoint;
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
  store: Store & ChangeFeed;
  tls: ApiTls;
  log: (line: string) => void;
  /** Kubelet conf-dir rescan period. */
  rescanMs?: number;
  /**
   * The data plane pods attach to (the server's DataplaneController); without one, or `none`, pods get addresses
   * only. nodeNetwork: what a cluster's CNI agents program on their nodes (undefined when nothing is built).
   */
  dataplane?: PodNetworkAttacher & { nodeNetwork?(clusterId: string): NodeNetwork | undefined; apiListener?: ApiListenerSource };
  /**
   * A certificate from the CA of `tls` for the names pods use (the in-cluster endpoint's: in-cluster-endpoint.ts);
   * without it that endpoint presents the server's own certificate. It may be kept in `dir` (the cluster's) and
   * used again on later starts once `keep()` is called.
   */
  issueCert?: (names: { dns: string[]; ips: string[] }, dir: string) => Promise<{ certPem: string; keyPem: string; keep(): void }>;
}

export class ClusterApis implements KubeconfigIssuer {
  private readonly tlsServer: HttpsServer;
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<Entry | undefined>>();
  private readonly byPort = new Map<number, Entry>();
  /**
   * The clusters listening while their objects load, by port: a request there is authenticated against the kept
   * credential, a page of a list is answered from the saved rows (answerWhileLoading), and the rest waits for `pending`.
   */
  private readonly loadingPorts = new Map<number, Loading>();
  /** The last cluster load begun: loads run one at a time, so each cluster serves as soon as its own is read. */
  private loads: Promise<unknown> = Promise.resolve();
  /** What all the clusters' objects may add up to (apiserver/storage/ceiling.ts). */
  private readonly budget = new ObjectBudget();
  private closed = false;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly options: ClusterApisOptions) {
    this.tlsServer = apiHttpsServer(options.tls, {
      serve: (req, res) => void this.serve(req, res),
      upgrade: (req, socket, head) => this.upgrade(req, socket, head),
      clientError,
    });
  }

  /**
   * Serves every cluster the store knows, and follows the change feed. Every cluster's listener is up at once; its
   * objects are read in slices between turns (one cluster at a time), during which ARM answers and requests to the
   * cluster wait (serve, upgrade): each request is answered from the full store. Resolves once every cluster serves.
   */
  async start(): Promise<void> {
    this.unsubscribe = this.options.store.onCommit((changes) => this.follow(changes));
    const ids = new Set<string>();
    for (const { value } of this.options.store.list<ApiRecord>(RECORD_PREFIX)) ids.add(value.clusterId);
    for (const { value } of this.options.store.list<NodeRecord>(NODES_PREFIX)) ids.add(value.clusterId);
    const t0 = performance.now();
    // The loads read most of the file once: through a map, until every cluster serves (docs/performance.md §2.17).
    this.options.store.mapReads?.(true);
    try {
      await this.serveAll(ids, t0);
    } finally {
      this.options.store.mapReads?.(false);
    }
  }

  /** Each cluster served (its objects loaded, its runtime started), with its line when it serves again. */
  private async serveAll(ids: ReadonlySet<string>, t0: number): Promise<void> {
    await Promise.all(
      [...ids].map(async (id) => {
        // One cluster that cannot be served must not keep ARM (or the other clusters) down.
        const entry = await this.ensure(id).catch((e) => void this.options.log(`cluster API for ${id}: ${(e as Error).message}`));
        // After a restart, one line per cluster says when it serves again (every read answered from its full store);
        // its pods resume in the background.
        if (entry) {
          const { runtime } = entry;
          this.options.log(
            `cluster ${runtime.record.name} serving again after ${Math.round(performance.now() - t0)} ms: ${runtime.objects.count(NODES)} nodes, ${runtime.objects.count(PODS)} pods (${runtime.workloads.restoring} resuming in the background)`,
          );
        }
      }),
    );
  }

  /**
   * A committed transaction touched clusters. A cluster is synced when its node records changed, when no
   * operation is running on it any more (the operation's last transaction), or when it is gone: not halfway
   * through an operation, whose first transaction only records what was asked.
   */
  private follow(changes: readonly Change[]): void {
    const touched = new Map<string, boolean>();
    for (const change of changes) {
      const owner = clusterOfKey(change.key);
      if (owner) {
        const id = owner.clusterId.toLowerCase();
        touched.set(id, touched.get(id) === true || owner.node);
        if (owner.node) this.noteNodeChange(id, change);
      } else if (change.prefix) {
        // A deleted prefix above the clusters (a resource group's, say) takes the clusters under it along.
        const prefix = change.key.toLowerCase();
        for (const id of this.entries.keys()) if (id.startsWith(prefix)) touched.set(id, true);
      }
    }
    for (const [id, nodes] of touched) {
      const record = this.options.store.get<ClusterRecord>(id);
      if (nodes || !record || !record.activeOperation) this.changed(id);
    }
  }

  /**
   * The node records changed since each cluster's last sync, by name, so that its sync rebuilds those only; 'all'
   * after a change that names none (a deleted prefix). Kept from the commit until the sync that reads them, so
   * changes committed between a sync's scheduling and its run are in it.
   */
  private readonly nodeChanges = new Map<string, Set<string> | 'all'>();

  private noteNodeChange(clusterId: string, change: Change): void {
    const known = this.nodeChanges.get(clusterId);
    if (known === 'all') return;
    const name = change.key.slice(change.key.lastIndexOf('/') + 1);
    if (change.prefix || name === '') this.nodeChanges.set(clusterId, 'all');
    else if (known) known.add(name);
    else this.nodeChanges.set(clusterId, new Set([name]));
  }

  /** Brings a cluster's API in line with its records (after commit): syncs, starts or stops it. */
  private changed(clusterId: string): void {
    setImmediate(() => {
      const entry = this.entries.get(clusterId.toLowerCase());
      // A cluster without its runtime yet syncs every node when the runtime starts.
      const nodes = this.nodeChanges.get(clusterId.toLowerCase());
      this.nodeChanges.delete(clusterId.toLowerCase());
      if (this.closed) return;
      const failed = (e: unknown) => this.options.log(`cluster API for ${clusterId}: ${(e as Error).stack ?? String(e)}`);
      try {
        if (entry) {
          // sync() reads the record: a stopped cluster's Nodes go with its node records, then its API stops.
          // In slices: the operation's poll and the next ARM call are read between them (docs/performance.md §6.9).
          if (!entry.runtime.syncInSlices(nodes === 'all' ? undefined : (nodes ?? new Set()), failed)) this.unregister(clusterId).catch(failed);
          else if (entry.runtime.record.powerState === 'Stopped') this.suspend(clusterId).catch(failed);
        } else if (this.servable(clusterId)) this.ensure(clusterId).catch(failed);
        else if (!this.options.store.get(clusterId)) this.unregister(clusterId).catch(failed);
      } catch (e) {
        failed(e);
      }
    });
  }

  /**
   * A stopped cluster (managedClusters/stop) has no API server, as on AKS: its listener closes, so kubectl's
   * connections are refused, while its objects, port and credential are kept for its start.
   */
  private stopped(clusterId: string): boolean {
    return this.options.store.get<ClusterRecord>(clusterId)?.powerState === 'Stopped';
  }

  private async suspend(clusterId: string): Promise<void> {
    const key = clusterId.toLowerCase();
    await this.pending.get(key);
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.byPort.delete(entry.port);
    entry.runtime.close();
    entry.persistence.close();
    await Promise.all([closeListener(entry), entry.apiSocket.close(), entry.inCluster.close()]);
    this.options.log(`cluster API for ${entry.runtime.record.name} stopped with its cluster`);
  }

  /** A cluster gets its API once it has nodes (as at start); a create that failed before any has none. */
  private servable(clusterId: string): boolean {
    return this.options.store.list(nodesPrefix(clusterId), { limit: 1 }).length > 0;
  }

  async kubeconfig(clusterId: string, kind: CredentialKind): Promise<string | undefined> {
    // A stopped cluster's credentials name the port its API comes back on.
    // So do those of a cluster whose objects are loading: its listener is up, and its requests wait for the load.
    const kept = this.stopped(clusterId) || this.pending.has(clusterId.toLowerCase()) ? this.options.store.get<ApiRecord>(recordKey(clusterId)) : undefined;
    const entry = kept ?? (await this.ensure(clusterId));
    const cluster = this.options.store.get<ClusterRecord>(clusterId);
    // No API to name: stopped before its API ever ran, or never given nodes (a create that failed).
    if (!entry || !cluster) return undefined;
    return kubeconfigYaml({
      clusterName: cluster.name,
      resourceGroup: cluster.resourceGroup,
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

  /**
   * The Service a probe targets (service-backends.ts): in the cluster given, or, for an IP:PORT from outside a
   * cluster (a VM to a NodePort), in the first cluster that has it.
   */
  serviceProbeOf(clusterId: string | undefined, target: ServiceProbeTarget): (ServiceProbe & { clusterId: string }) | ServiceProbeError | undefined {
    const runtimes = clusterId ? [this.runtimeOf(clusterId)] : [...this.entries.values()].map((e) => e.runtime);
    for (const runtime of runtimes) {
      const found = runtime ? serviceProbe(runtime.objects, target) : undefined;
      if (found) return 'message' in found ? found : { ...found, clusterId: runtime!.id };
    }
    return clusterId && 'service' in target ? { notFound: true, message: `services "${target.service.name}" not found` } : undefined;
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
    if (cluster.powerState === 'Stopped') return undefined;
    let record = store.get<ApiRecord>(recordKey(cluster.id));
    const dataplane = this.options.dataplane;
    // Both keys are made in the thread pool, side by side.
    const [credential, inCluster] = await Promise.all([
      record?.credential ?? issueClientCredential(this.options.home, cluster.fqdn),
      dataplane?.apiListener ? this.inClusterTls(cluster) : undefined,
    ]);
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
      // The cluster is still there (checked in this same turn): its folder may hold the certificate.
      inCluster?.keep();
      if (!record || record.port !== port) {
        record = { clusterId: cluster.id, port, credential };
        store.put(recordKey(cluster.id), record);
      }
      // Events past their TTL while the server was down are not restored (the first sweep would delete them). They are
      // read after serving (persistence.ts LATER), judged as of the load, as a whole restore would judge them; those
      // whose names say they are recent are counted before they are read (docs/performance.md §2.13).
      const now = Date.now();
      const persistence = new ObjectPersistence(
        store,
        cluster.id,
        this.options.log,
        (bucket, obj) => bucket === EVENTS_KEY && eventExpired(obj as Event, now),
        recentEventTail(now),
      );
      const gone = () => this.closed || !store.get(cluster.id);
      const loading: Loading = {
        key: cluster.id.toLowerCase(),
        credential,
        serviceAccounts: serviceAccountKey(credential.token),
        persistence,
        kubernetesVersion: cluster.resolved.kubernetesVersion,
      };
      this.loadingPorts.set(port, loading);
      const loaded = this.loads.then(() => persistence.preload(gone));
      this.loads = loaded.catch(() => false);
      if (!(await loaded) || gone()) {
        await closeListener({ listener, sockets });
        return undefined;
      }
      const runtime = new ClusterRuntime(store, this.options.home, cluster, {
        persistence,
        serviceAccounts: { key: loading.serviceAccounts, caPem: this.options.tls.caPem },
        ...(this.options.rescanMs !== undefined ? { rescanMs: this.options.rescanMs } : {}),
        sandboxes: (host) => sandboxesFor(host, this.options.dataplane, { log: this.options.log }),
        budget: this.budget,
        ...(this.options.dataplane?.nodeNetwork ? { network: this.options.dataplane.nodeNetwork(cluster.id) } : {}),
      });
      const api = new ClusterApi(runtime);
      runtime.setApi(api);
      const entry: Entry = { runtime, persistence, api, listener, sockets, port, credential } as Entry;
      entry.apiSocket = new ApiSocket(
        apiSocketOf(clusterDir(this.options.home, cluster.resourceGroup, cluster.name)),
        (req, res) => void this.serve(req, res, entry),
        clientError,
        this.options.log,
        (req, socket, head) => this.upgrade(req, socket, head, entry),
      );
      entry.apiSocket.start();
      entry.inCluster = new InClusterEndpoint({
        tls: inCluster?.tls ?? this.options.tls,
        serve: (req, res) => void this.serve(req, res, entry),
        upgrade: (req, socket, head) => this.upgrade(req, socket, head, entry),
        clientError,
        log: this.options.log,
      });
      if (dataplane?.apiListener) void entry.inCluster.start((address, port) => dataplane.apiListener!(address, port), apiServerAddress(cluster.id));
      runtime.kubelets.apiSocket = entry.apiSocket.path;
      runtime.start();
      this.entries.set(cluster.id.toLowerCase(), entry);
      this.byPort.set(port, entry);
      this.options.log(`cluster API for ${cluster.name} at https://${HOST}:${port}`);
      return entry;
    } catch (e) {
      await closeListener({ listener, sockets });
      throw e;
    } finally {
      this.loadingPorts.delete(port);
    }
  }

  /** The cluster whose objects are loading behind a local port, once loaded (undefined when it is not served). */
  private loaded(port: number | undefined): Promise<Entry | undefined> | undefined {
    const key = this.loadingPorts.get(port ?? -1)?.key;
    const pending = key === undefined ? undefined : this.pending.get(key);
    return pending?.catch(() => undefined);
  }

  /** The in-cluster endpoint's certificate: valid for the names and addresses the apiserver's own cert carries. */
  private async inClusterTls(cluster: ClusterRecord): Promise<{ tls: ApiTls; keep(): void } | undefined> {
    const { tls, issueCert } = this.options;
    if (!issueCert) return undefined;
    const names = inClusterNames(cluster);
    const { certPem, keyPem, keep } = await issueCert(names, clusterDir(this.options.home, cluster.resourceGroup, cluster.name));
    return { tls: { certPem, keyPem, caPem: tls.caPem }, keep };
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
    await Promise.all([entry.apiSocket.close(), entry.inCluster.close()]);
    entry.runtime.destroy();
    entry.persistence.destroy();
    await closeListener(entry);
  }

  /**
   * The cluster's credential (client certificate or token), or a service-account token of its pods
   * (service-account-tokens.ts; RBAC is not enforced, so any valid one may do anything).
   */
  private authenticated(req: IncomingMessage, entry: Pick<Loading, 'credential' | 'serviceAccounts'>): boolean {
    // Only a header the client sent counts (never an inherited property), compared in constant time.
    const auth = Object.hasOwn(req.headers, 'authorization') ? req.headers.authorization : undefined;
    const bearer = typeof auth === 'string' ? /^bearer\s+(.*)$/is.exec(auth) : null;
    if (bearer) {
      const token = bearer[1]!.trim();
      return sameSecret(entry.credential.token, token) || serviceAccountOf(entry.serviceAccounts, token) !== undefined;
    }
    const socket = req.socket as TLSSocket;
    if (!socket.authorized) return false;
    const peer = socket.getPeerCertificate();
    return Buffer.isBuffer(peer?.raw) && sameSecret(entry.credential.fingerprint, certFingerprint(peer.raw));
  }

  /** An upgrade request (kubectl exec, port-forward: kubelet/exec/upgrade.ts), authenticated like every request. */
  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, fixed?: Entry): void {
    const waiting = fixed ? undefined : this.loaded(req.socket.localPort);
    if (waiting) {
      void waiting.then((loaded) => (loaded ? this.upgrade(req, socket, head, loaded) : refuseUpgrade(socket, unavailable())));
      return;
    }
    const entry = fixed ?? this.byPort.get(req.socket.localPort ?? -1);
    if (!entry) return refuseUpgrade(socket, unavailable());
    if (!this.authenticated(req, authOf(entry))) return refuseUpgrade(socket, unauthorized());
    const target = requestTarget(req.url ?? '/');
    if (!target) return refuseUpgrade(socket, badRequest(`invalid request target ${JSON.stringify(String(req.url).slice(0, 100))}`));
    serveUpgrade(req, socket, head, { runtime: entry.runtime, path: target.path, query: target.query, log: this.options.log });
  }

  /** One request, on the HTTPS listener (the cluster by local port) or on the cluster's unix socket (`fixed`). */
  private async serve(req: IncomingMessage, res: ServerResponse, fixed?: Entry): Promise<void> {
    const reply = (status: number, body: unknown, contentType = 'application/json') => sendBody(res, status, body, contentType);
    try {
      const port = req.socket.localPort ?? -1;
      const known = fixed ?? this.byPort.get(port);
      // A cluster whose objects load: the request is authenticated now (a 401 does not wait for the load).
      const loading = known ? undefined : this.loadingPorts.get(port);
      const auth = known ? authOf(known) : loading;
      if (!auth) return await reply(503, unavailable().toStatus());
      if (!this.authenticated(req, auth) && !publicInfo(req)) return await reply(401, unauthorized().toStatus());
      const body = await readBoundedBody(req, MAX_BODY_BYTES);
      if (body === TOO_LARGE) return await reply(413, bodyTooLarge().toStatus());
      const target = requestTarget(req.url ?? '/');
      if (!target) return await reply(400, badRequest(`invalid request target ${JSON.stringify(String(req.url).slice(0, 100))}`).toStatus());
      const request: ApiRequest = {
        method: req.method ?? 'GET',
        path: target.path,
        query: target.query,
        ...(req.headers.accept ? { accept: req.headers.accept } : {}),
        ...(req.headers['content-type'] ? { contentType: req.headers['content-type'] } : {}),
        ...(req.headers['user-agent'] ? { userAgent: req.headers['user-agent'] } : {}),
        ...(body.length > 0 ? { body: body.toString('utf8'), bytes: body } : {}),
      };
      // A page of a list is read from the saved rows, as the apiserver reads it from etcd; the rest waits for the load.
      const early = loading && this.loadingPorts.get(port) === loading ? answerWhileLoading(loading, request) : undefined;
      if (early) return await reply(early.status, early.body, early.contentType);
      // (The load may have ended while the body was read.)
      const entry = known ?? this.byPort.get(port) ?? (await this.loaded(port));
      if (!entry) return await reply(503, unavailable().toStatus());
      // The Nodes of an operation's records are all there before the cluster's API answers (a sync in slices).
      const settling = entry.runtime.settling();
      if (settling) await settling;
      const response = entry.api.handle(request);
      if ('watch' in response) return serveWatch(res, response, entry.api.watchMetrics, this.options.log);
      if ('stream' in response) {
        res.writeHead(200, { 'Content-Type': response.contentType, 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
        res.flushHeaders();
        const stream = response.stream({ write: (text) => void (res.writableEnded || res.write(text)), end: () => void (res.writableEnded || res.end()) });
        res.on('close', () => stream.stop());
        return;
      }
      // The apiserver's warnings to the client (kubectl prints each as `Warning: ...`), RFC 7234 warn-codes 299.
      if (response.warnings?.length)
        res.setHeader(
          'Warning',
          response.warnings.map((w) => `299 - ${JSON.stringify(w)}`),
        );
      if (response.text !== undefined) return await reply(response.status, response.text, response.contentType);
      return await reply(response.status, response.body, response.contentType);
    } catch (e) {
      this.options.log(`cluster API request ${req.method} ${JSON.stringify(req.url)} failed: ${(e as Error).stack ?? String(e)}`);
      if (!res.headersSent)
        await reply(500, {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'Internal error',
          reason: 'InternalError',
          code: 500,
        }).catch(() => res.destroy());
      else res.end();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe?.();
    await Promise.allSettled([...this.pending.values()]);
    for (const entry of this.entries.values()) {
      entry.runtime.close();
      entry.persistence.close();
    }
    await Promise.all([...this.entries.values()].flatMap((e) => [closeListener(e), e.apiSocket.close(), e.inCluster.close(), e.runtime.settled()]));
    this.entries.clear();
    this.byPort.clear();
  }
}

/**
 * An anonymous GET of what the apiserver's `system:public-info-viewer` ClusterRole opens to everyone, authenticated
 * or not (kubernetes plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go: /healthz, /livez, /readyz, /version
 * and /version/): `curl -k https://kubernetes.default/version` from a pod. Anonymous means no credentials at all; a
 * wrong token or certificate is still 401, as the apiserver's authenticators refuse it before any authorizer runs.
 */
function publicInfo(req: IncomingMessage): boolean {
  if (req.method !== 'GET' || Object.hasOwn(req.headers, 'authorization')) return false;
  const socket = req.socket as Partial<TLSSocket>;
  const cert = typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate() : undefined;
  if (cert && Buffer.isBuffer(cert.raw)) return false;
  const path = requestTarget(req.url ?? '/')?.path;
  return path === '/healthz' || path === '/livez' || path === '/readyz' || path === '/version' || path === '/version/';
}

/** What Node's HTTP parser refuses is still answered with a Status (431 past the header limit, else 400). */
function clientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || err.code === 'ECONNRESET') return void socket.destroy();
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? headersTooLarge() : badRequest(`malformed HTTP request: ${err.code ?? 'unknown'}`);
  const text = JSON.stringify(status.toStatus());
  const reason = status.code === 431 ? 'Request Header Fields Too Large' : 'Bad Request';
  socket.end(
    `HTTP/1.1 ${status.code} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
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

/**
 * The request body, or 'too large' past MAX_BODY_BYTES. A body too large is still read to its end (and
 * dropped), so the 413 reaches the client instead of a reset; one that does not stop is cut off further on.
 */
/**
 * Path and query of the request line: origin-form (`/api/v1/pods?limit=5`) as it is, absolute-form by its
 * path; undefined for anything else (`*`). Never a URL parser's reading, which takes `//x:99999/api` for a
 * host (and throws).
 */
function requestTarget(raw: string): { path: string; query: URLSearchParams } | undefined {
  let target = raw;
  const absolute = /^https?:\/\/[^/?#]*/i.exec(target);
  if (absolute) target = target.slice(absolute[0].length) || '/';
  if (!target.startsWith('/')) return undefined;
  const q = target.indexOf('?');
  return q < 0 ? { path: target, query: new URLSearchParams() } : { path: target.slice(0, q), query: new URLSearchParams(target.slice(q + 1)) };
}

/** Array members written a slice at a time (lists and Tables with many items). */
const SLICE = 500;

/**
 * Writes a reply. A List's `items` or a Table's `rows` longer than a slice are serialized a slice at a time,
 * yielding between slices: one list of 50,000 pods neither holds the event loop for seconds nor builds a
 * string past V8's limit.
 */
async function sendBody(res: ServerResponse, status: number, body: unknown, contentType: string): Promise<void> {
  const headers = { 'Content-Type': contentType, 'Cache-Control': 'no-cache, private' };
  const key =
    typeof body === 'object' && body !== null && !Buffer.isBuffer(body)
      ? (['items', 'rows'] as const).find((k) => Array.isArray((body as Record<string, unknown>)[k]))
      : undefined;
  const list = key ? ((body as Record<string, unknown>)[key] as unknown[]) : [];
  if (!key || list.length <= SLICE) {
    const text = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    res.writeHead(status, { ...headers, 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
    return;
  }
  const marker = JSON.stringify('\u0000aksemu-slices\u0000');
  const [before, after] = JSON.stringify({ ...(body as object), [key]: JSON.parse(marker) }).split(marker) as [string, string];
  res.writeHead(status, headers);
  res.write(`${before}[`);
  for (let i = 0; i < list.length && !res.destroyed; i += SLICE) {
    const slice = list
      .slice(i, i + SLICE)
      .map((x) => JSON.stringify(x))
      .join(',');
    if (!res.write(i === 0 ? slice : `,${slice}`)) await drained(res);
    await new Promise((resolve) => setImmediate(resolve));
  }
  res.end(`]${after}`);
}

/** Resolves when res drains or closes, leaving no listener behind (a big list waits many times on one response). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** What a request to a cluster that is not served gets (stopped, gone, or its load failed). */
function unavailable(): KubeError {
  return new KubeError(503, 'ServiceUnavailable', 'cluster not available');
}
