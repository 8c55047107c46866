// The cluster's API as its pods reach it: the `kubernetes` Service's endpoint (cloud/system.ts apiServerEndpoints),
// an address of the emulated internet where the data plane listens on port 443 and hands the listening socket to
// this process (dataplane/netns/api-listener.ts). Connections accepted there are served by an HTTPS server of this
// cluster alone, with the same certificate, authentication and handlers as the cluster's 127.0.0.1 listener, so a
// pod's service-account token, the admin token and the client certificate all work. docs/dataplane.md §12.7.
import type { Server as HttpsServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server as NetServer, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { apiServerAddress } from '../../aks/azure-dns.js';
import type { ClusterRecord } from '../../model/cluster-records.js';
import { Cidr } from '../../net/ip.js';
import { CLUSTER_DOMAIN } from '../dns/zone.js';
import { apiHttpsServer, type ApiTls } from '../apiserver/index.js';

/**
 * What the apiserver's serving certificate names (kubernetes cmd/kube-apiserver: the `kubernetes` Service's names
 * in the cluster domain, its ClusterIP, the advertised address; AKS adds the FQDN), so an in-cluster client that
 * checks the projected ca.crt — client-go's in-cluster config dials KUBERNETES_SERVICE_HOST, the ClusterIP —
 * verifies it.
 */
export function inClusterNames(cluster: Pick<ClusterRecord, 'id' | 'fqdn' | 'resolved'>): { dns: string[]; ips: string[] } {
  const dns = ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', `kubernetes.default.svc.${CLUSTER_DOMAIN}`];
  if (cluster.fqdn) dns.push(cluster.fqdn.toLowerCase());
  const ips = [apiServerAddress(cluster.id)];
  try {
    ips.unshift(Cidr.parse(cluster.resolved.network.serviceCidr).addressAt(1n).toString());
  } catch {
    // A service CIDR that does not parse gives no ClusterIP to name.
  }
  return { dns: [...dns, 'localhost'], ips: [...ips, '127.0.0.1'] };
}

/** What the data plane offers: a listener on address:port inside its own namespaces, or undefined when it builds none. */
export type ApiListenerSource = (address: string, port: number) => Promise<NetServer | undefined>;

export interface InClusterEndpointOptions {
  tls: ApiTls;
  serve: (req: IncomingMessage, res: ServerResponse) => void;
  upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  clientError: (err: NodeJS.ErrnoException, socket: Socket) => void;
  log: (line: string) => void;
}

export class InClusterEndpoint {
  private readonly https: HttpsServer;
  private listener: NetServer | undefined;
  private readonly sockets = new Set<Socket>();
  private closed = false;

  constructor(private readonly options: InClusterEndpointOptions) {
    this.https = apiHttpsServer(options.tls, options);
  }

  /** Asks the data plane for the listener at address:443; a failure is logged (pods then find nothing there). */
  async start(source: ApiListenerSource, address: string): Promise<void> {
    try {
      const listener = await source(address, 443);
      if (!listener) return;
      if (this.closed) return void listener.close();
      this.listener = listener;
      listener.on('error', (e) => this.options.log(`the in-cluster API endpoint ${address}:443: ${e.message}`));
      listener.on('connection', (socket: Socket) => {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        this.https.emit('connection', socket);
      });
    } catch (e) {
      if (!this.closed) this.options.log(`the in-cluster API endpoint ${address}:443: ${(e as Error).message}`);
    }
  }

  /** Stops listening and ends the open connections (the data plane's namespace is then free to go). */
  close(): Promise<void> {
    this.closed = true;
    for (const s of this.sockets) s.destroy();
    const listener = this.listener;
    this.listener = undefined;
    return listener ? new Promise<void>((resolve) => listener.close(() => resolve())) : Promise.resolve();
  }
}
