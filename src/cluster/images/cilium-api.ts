// The part of cilium-agent's REST API (cilium/cilium api/v1/openapi.yaml, served on /var/run/cilium/cilium.sock)
// that cilium-cni calls: GET /v1/config, GET /v1/healthz, POST /v1/ipam, DELETE /v1/ipam/{ip}, PUT, GET and
// DELETE /v1/endpoint/{id}, GET /v1/endpoint/{id}/healthz, GET /v1/endpoint. Errors are answered as the API
// does: a JSON string body with the operation's status code. What an endpoint means for the cluster (its
// CiliumEndpoint) is the agent's business, through the hooks.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { shortSocketPath } from '../../cni/unix-socket-path.js';
import { isPlainObject, own } from '../../http/own.js';
import type { NodeIpam } from './cilium-node-ipam.js';

/** An endpoint as the agent keeps it (models.EndpointChangeRequest's fields cilium-cni sends, and its id). */
export interface AgentEndpoint {
  id: number;
  containerId: string;
  podName: string;
  namespace: string;
  ipv4: string;
  interfaceName: string;
}

export interface AgentApiHooks {
  /** After PUT /v1/endpoint: the endpoint exists (the agent creates its CiliumEndpoint). */
  endpointCreated(ep: AgentEndpoint): void;
  /** After DELETE /v1/endpoint: the endpoint is gone and its address released. */
  endpointDeleted(ep: AgentEndpoint): void;
}

export interface AgentApiConfig {
  ipam: NodeIpam;
  /** The tunnel's MTU (the device MTU minus VXLAN's 50 bytes in tunnel mode). */
  mtu: number;
  ipamMode: string;
}

/** Request bodies are small JSON objects (an EndpointChangeRequest); anything larger is refused. */
const MAX_BODY = 64 * 1024;
/** Endpoint ids are 1 … 4095 (pkg/endpoint/id: the agent's local id space; 0 is reserved). */
const MAX_ENDPOINT_ID = 4095;

export class AgentApi {
  private server: Server | undefined;
  private readonly endpoints = new Map<string, AgentEndpoint>();

  constructor(
    private readonly config: AgentApiConfig,
    private readonly hooks: AgentApiHooks,
  ) {}

  /** Endpoints restored by the agent on start (their addresses stay taken). */
  restore(eps: AgentEndpoint[]): void {
    for (const ep of eps) this.endpoints.set(ep.containerId, ep);
  }

  get endpointList(): AgentEndpoint[] {
    return [...this.endpoints.values()];
  }

  /** Deletes an endpoint by container id as DELETE /v1/endpoint would (the deletion queue uses it). */
  deleteEndpoint(containerId: string): boolean {
    const ep = this.endpoints.get(containerId);
    if (!ep) return false;
    this.endpoints.delete(containerId);
    this.config.ipam.release(ep.ipv4);
    this.hooks.endpointDeleted(ep);
    return true;
  }

  /** Listens on the socket path (a stale socket file from an earlier agent is replaced). */
  listen(sock: string): Promise<void> {
    mkdirSync(dirname(sock), { recursive: true });
    rmSync(sock, { force: true });
    const short = shortSocketPath(sock);
    const server = createServer((req, res) => this.handle(req, res));
    this.server = server;
    return new Promise<void>((resolve, reject) => {
      server.once('error', (e) => {
        short.release();
        reject(e);
      });
      server.listen(short.path, () => {
        short.release();
        resolve();
      });
    });
  }

  /** Stops serving and removes the socket, as the agent's socket goes when it stops. */
  close(sock: string): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return Promise.resolve();
    return new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
      rmSync(sock, { force: true });
    });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reply(res, 413, 'request body too large');
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => {
      if (res.writableEnded) return;
      let body: unknown;
      try {
        const text = Buffer.concat(chunks).toString('utf8');
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        return reply(res, 400, 'parsing body body from "" failed, because invalid character in JSON');
      }
      const url = new URL(req.url ?? '/', 'http://localhost');
      const [status, out] = this.route(req.method ?? 'GET', url, body);
      reply(res, status, out);
    });
  }

  private route(method: string, url: URL, body: unknown): [number, unknown] {
    const path = url.pathname;
    const ipam = this.config.ipam;
    const hostAddressing = { ipv4: { enabled: true, ip: ipam.router, 'alloc-range': ipam.cidr.toString() }, ipv6: { enabled: false } };
    if (method === 'GET' && path === '/v1/config') {
      return [
        200,
        {
          spec: { options: {}, policyEnforcement: 'default' },
          status: {
            addressing: hostAddressing,
            datapathMode: 'veth',
            'ipam-mode': this.config.ipamMode,
            deviceMTU: this.config.mtu,
            routeMTU: this.config.mtu,
            'gro-max-size': 65536,
            'gso-max-size': 65536,
            daemonConfigurationMap: {},
          },
        },
      ];
    }
    if (method === 'GET' && path === '/v1/healthz') {
      return [200, { cilium: { state: 'Ok', msg: '' }, ipam: { status: `${ipam.allocated}/${ipam.cidr.size - 2n} allocated from ${ipam.cidr}` } }];
    }
    if (method === 'POST' && path === '/v1/ipam') {
      const owner = url.searchParams.get('owner') ?? '';
      let ip: string;
      try {
        ip = ipam.allocate(owner);
      } catch (e) {
        return [502, `failed to allocate IP: ${(e as Error).message}`];
      }
      return [
        201,
        { address: { ipv4: ip }, ipv4: { ip, gateway: ipam.router, cidrs: [ipam.cidr.toString()], 'expiration-uuid': '' }, 'host-addressing': hostAddressing },
      ];
    }
    const ipMatch = /^\/v1\/ipam\/([^/]+)$/.exec(path);
    // POST /ipam/{ip} (api/v1/openapi.yaml, ipam.IPAMIPPost*): that address, 409 when it is taken.
    if (method === 'POST' && ipMatch) {
      const got = ipam.allocateIp(decodeURIComponent(ipMatch[1] ?? ''), url.searchParams.get('owner') ?? '');
      if (got === 'taken') return [409, 'IP already allocated'];
      if (got === 'outside') return [500, `IP ${decodeURIComponent(ipMatch[1] ?? '')} is not in range ${ipam.cidr.toString()}`];
      return [200, undefined];
    }
    if (method === 'DELETE' && ipMatch) {
      const ip = decodeURIComponent(ipMatch[1] ?? '');
      return ipam.release(ip) ? [200, undefined] : [404, 'IP address not found'];
    }
    if (method === 'GET' && path === '/v1/endpoint') return [200, this.endpointList.map(model)];
    const epMatch = /^\/v1\/endpoint\/([^/]+)(\/healthz)?$/.exec(path);
    if (!epMatch) return [404, `path ${path} was not found`];
    const id = decodeURIComponent(epMatch[1] ?? '');
    const containerId = id.startsWith('container-id:') ? id.slice('container-id:'.length) : undefined;
    const found = containerId !== undefined ? this.endpoints.get(containerId) : [...this.endpoints.values()].find((e) => String(e.id) === id);
    if (epMatch[2]) {
      if (method !== 'GET') return [405, 'method not allowed'];
      return found ? [200, { overallHealth: 'OK', bpf: 'OK', policy: 'OK', connected: true }] : [404, 'Endpoint not found'];
    }
    if (method === 'GET') return found ? [200, model(found)] : [404, 'Endpoint not found'];
    if (method === 'DELETE') {
      if (!found) return [404, 'Endpoint not found'];
      this.deleteEndpoint(found.containerId);
      return [200, undefined];
    }
    if (method === 'PUT') {
      if (containerId === undefined || containerId === '') return [400, 'Invalid endpoint ID'];
      if (!isPlainObject(body)) return [400, 'Invalid endpoint request'];
      if (found) return [409, 'Endpoint already exists'];
      const ipv4 = String(own(own(body, 'addressing'), 'ipv4') ?? '');
      if (ipam.ownerOf(ipv4) === undefined) return [400, `Invalid endpoint request: IPv4 address ${ipv4} was not allocated`];
      const epId = this.freeId();
      if (epId === undefined) return [500, 'Unable to allocate endpoint ID'];
      const ep: AgentEndpoint = {
        id: epId,
        containerId,
        podName: String(own(body, 'k8s-pod-name') ?? ''),
        namespace: String(own(body, 'k8s-namespace') ?? ''),
        ipv4,
        interfaceName: String(own(body, 'interface-name') ?? ''),
      };
      this.endpoints.set(containerId, ep);
      this.hooks.endpointCreated(ep);
      return [201, model(ep)];
    }
    return [405, 'method not allowed'];
  }

  private freeId(): number | undefined {
    const used = new Set([...this.endpoints.values()].map((e) => e.id));
    for (let i = 1; i <= MAX_ENDPOINT_ID; i++) if (!used.has(i)) return i;
    return undefined;
  }
}

/** models.Endpoint, the fields a client reads. */
function model(ep: AgentEndpoint): unknown {
  return {
    id: ep.id,
    spec: {},
    status: {
      state: 'ready',
      'external-identifiers': {
        'container-id': ep.containerId,
        'k8s-pod-name': ep.podName,
        'k8s-namespace': ep.namespace,
        'pod-name': `${ep.namespace}/${ep.podName}`,
      },
      networking: { addressing: [{ ipv4: ep.ipv4 }], 'interface-name': ep.interfaceName },
    },
  };
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
