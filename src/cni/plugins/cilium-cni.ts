// aksemu's cilium-cni: Cilium's CNI plugin as the agent on the node answers it (cilium/cilium
// plugins/cilium-cni/cmd/cmd.go). Each command talks to the agent's REST API on the node's
// /var/run/cilium/cilium.sock (api/v1/openapi.yaml):
//   ADD    GET /v1/config (the agent is up: its addressing, datapath mode), POST /v1/ipam?owner=<ns>/<pod>&expiration=true
//          (an address from the node's cluster-pool CIDR, the router IP as gateway), wires the pod (links.ts's routed veth, host end lxc<hash>, whose
//          pod end holds the /32, default route via the router IP), PUT /v1/endpoint/container-id:<id> (the agent
//          creates the CiliumEndpoint and keeps the address); the result: eth0 in the sandbox, the /32, the routes.
//   DEL    DELETE /v1/endpoint/container-id:<id> (the agent releases the address); when the agent is not there the
//          deletion is queued in /var/run/cilium/deleteQueue for the agent to finish (lib/deletion_queue.go), so a
//          pod can still go away.
//   CHECK  GET /v1/endpoint/container-id:<id>/healthz.
// Without a data plane (req.addressOnly) ADD does the API calls only, and its result has no interfaces.
import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { shortSocketPath } from '../unix-socket-path.js';
import { createHash } from 'node:crypto';
import { addRoutedVeth, delRoutedVeth } from './links.js';
import { type Plugin, PluginError, type PluginRequest } from './plugin.js';

/** Where the agent listens on the node (pkg/defaults SockPath). */
export const CILIUM_SOCK = '/var/run/cilium/cilium.sock';
/** Where cilium-cni leaves deletions the agent could not take (plugins/cilium-cni/lib/deletion_queue.go). */
export const DELETE_QUEUE_DIR = '/var/run/cilium/deleteQueue';

/**
 * How long ADD waits for the agent. The real client retries for defaults.ClientConnectTimeout (30 s); aksemu gives
 * up sooner so the kubelet's retry (and `kubectl describe`) shows the error without a 30 s stall per pod, and
 * reports it in cilium-cni's own words.
 */
const CONNECT_WAIT_MS = 2_000;

export interface AgentResponse {
  status: number;
  body: unknown;
}

/** One request to the agent's API over its unix socket; rejects with the dial error (code ENOENT, ECONNREFUSED…). */
export function agentCall(sock: string, method: string, path: string, body?: unknown): Promise<AgentResponse> {
  const short = shortSocketPath(sock);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise<AgentResponse>((resolve, reject) => {
    const req = request(
      {
        socketPath: short.path,
        // No pooled connection: /proc/self/fd/<n> names another directory once the fd number is reused.
        agent: false,
        method,
        path,
        headers: {
          host: 'localhost',
          accept: 'application/json',
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
        timeout: 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text === '' ? undefined : JSON.parse(text);
          } catch {
            // a non-JSON body is reported as text
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('i/o timeout'), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.on('close', short.release);
    req.end(payload);
  });
}

/** What Go's net.Dial says for a unix socket error (the text after `connect: `). */
function dialWords(err: NodeJS.ErrnoException): string {
  if (err.code === 'ENOENT') return 'no such file or directory';
  if (err.code === 'ECONNREFUSED') return 'connection refused';
  if (err.code === 'EACCES') return 'permission denied';
  return err.message;
}

/** GET /v1/config until the agent answers, as client.NewDefaultClientWithTimeout; throws cilium-cni's error. */
async function connect(sock: string, waitMs: number): Promise<Record<string, unknown>> {
  const end = Date.now() + waitMs;
  let last = '';
  for (;;) {
    try {
      const res = await agentCall(sock, 'GET', '/v1/config');
      if (res.status === 200 && isObject(res.body)) return res.body;
      last = `[GET /config][${res.status}] getConfig`;
    } catch (e) {
      last = `Get "http://localhost/v1/config": dial unix ${CILIUM_SOCK}: connect: ${dialWords(e as NodeJS.ErrnoException)}`;
    }
    if (Date.now() >= end) {
      // client.Hint adds the question for a socket that is missing or refusing.
      throw new Error(
        `unable to connect to Cilium daemon: failed to create cilium agent client after 30.000000 seconds timeout: ${last}\nIs the agent running?`,
      );
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function field(obj: unknown, ...keys: string[]): unknown {
  let cur = obj;
  for (const k of keys) cur = isObject(cur) && Object.hasOwn(cur, k) ? cur[k] : undefined;
  return cur;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** The host end's name (pkg/datapath/connector Endpoint2IfName: "lxc" and SHA-256 of the container id, 11 hex digits). */
export function hostIfName(containerId: string): string {
  return `lxc${createHash('sha256').update(containerId).digest('hex').slice(0, 11)}`;
}

/** The endpoint id cilium-cni uses for a container (pkg/endpoint/id ContainerIdPrefix). */
export function endpointId(containerId: string): string {
  return `container-id:${containerId}`;
}

/** The agent's error text: its API answers errors as a JSON string (go-swagger). */
function agentError(res: AgentResponse): string {
  return typeof res.body === 'string' ? res.body : JSON.stringify(res.body ?? '');
}

async function add(req: PluginRequest, sock: string): Promise<Record<string, unknown>> {
  if (req.config['prevResult'] !== undefined) {
    throw new Error('CNI PrevResult supplied, but not in chaining mode -- this is invalid, please set chaining-mode in CNI configuration');
  }
  const podNs = req.args['K8S_POD_NAMESPACE'] ?? '';
  const podName = req.args['K8S_POD_NAME'] ?? '';
  const config = await connect(sock, CONNECT_WAIT_MS);
  const owner = encodeURIComponent(`${podNs}/${podName}`);
  // CNI_ARGS IP= (aksemu's: a restored pod asks its address back, docs/dataplane.md §15) through the agent's
  // POST /ipam/{ip}; cilium-cni itself only ever asks for any address.
  const wanted = req.args['IP'];
  const ipam = wanted
    ? await agentCall(sock, 'POST', `/v1/ipam/${encodeURIComponent(wanted)}?owner=${owner}`)
    : await agentCall(sock, 'POST', `/v1/ipam?owner=${owner}&expiration=true`);
  if (ipam.status !== (wanted ? 200 : 201)) {
    const call = wanted ? 'POST /ipam/{ip}' : 'POST /ipam';
    throw new Error(`unable to allocate IP via local cilium agent: [${call}][${ipam.status}] ipamAllocateFailure ${agentError(ipam)}`);
  }
  const ip = wanted ?? str(field(ipam.body, 'address', 'ipv4'));
  const router = wanted ? str(field(config, 'status', 'addressing', 'ipv4', 'ip')) : str(field(ipam.body, 'host-addressing', 'ipv4', 'ip'));
  if (ip === '' || router === '') throw new Error('invalid IPAM response, missing addressing');
  const release = () => agentCall(sock, 'DELETE', `/v1/ipam/${encodeURIComponent(ip)}`).catch(() => undefined);
  const mtu = Number(field(config, 'status', 'deviceMTU')) || 1500;
  let mac = '';
  let hostIf = '';
  try {
    if (!req.addressOnly) {
      hostIf = hostIfName(req.containerId);
      mac = (
        await addRoutedVeth({ netns: req.netns, ifName: req.ifName, hostIf, ip, gateway: router, mtu, ...(req.hostNetns ? { hostNetns: req.hostNetns } : {}) })
      ).podMac;
    }
    const ep = await agentCall(sock, 'PUT', `/v1/endpoint/${encodeURIComponent(endpointId(req.containerId))}`, {
      'container-id': req.containerId,
      'k8s-pod-name': podName,
      'k8s-namespace': podNs,
      'interface-name': hostIf,
      state: 'waiting-for-identity',
      addressing: { ipv4: ip, 'ipv4-expiration-uuid': str(field(ipam.body, 'ipv4', 'expiration-uuid')) },
      'sync-build-endpoint': true,
    });
    if (ep.status !== 201) throw new Error(`unable to create endpoint: [PUT /endpoint/{id}][${ep.status}] putEndpointIdFailed ${agentError(ep)}`);
  } catch (e) {
    if (!req.addressOnly) await delRoutedVeth(hostIfName(req.containerId), req.hostNetns).catch(() => undefined);
    await release();
    throw e;
  }
  const routes = [{ dst: `${router}/32` }, { dst: '0.0.0.0/0', gw: router }];
  const address = { address: `${ip}/32`, gateway: router };
  if (req.addressOnly) return { ips: [address], routes };
  return { interfaces: [{ name: req.ifName, mac, sandbox: req.netns }], ips: [{ ...address, interface: 0 }], routes };
}

async function del(req: PluginRequest, sock: string): Promise<undefined> {
  const id = endpointId(req.containerId);
  try {
    await agentCall(sock, 'DELETE', `/v1/endpoint/${encodeURIComponent(id)}`);
  } catch {
    // lib.NewDeletionFallbackClient: the agent is not there, so the deletion waits in its queue.
    const dir = join(req.nodeRoot, DELETE_QUEUE_DIR);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${req.containerId.replace(/[^A-Za-z0-9_.-]/g, '_')}.delete`), id);
  }
  if (!req.addressOnly) await delRoutedVeth(hostIfName(req.containerId), req.hostNetns).catch(() => undefined);
  return undefined;
}

async function check(req: PluginRequest, sock: string): Promise<undefined> {
  try {
    await connect(sock, 0);
  } catch (e) {
    throw new PluginError(11, 'DaemonDown', (e as Error).message);
  }
  const health = await agentCall(sock, 'GET', `/v1/endpoint/${encodeURIComponent(endpointId(req.containerId))}/healthz`);
  if (health.status !== 200) throw new PluginError(100, 'HealthzFailed', `failed to retrieve container health: ${agentError(health)}`);
  return undefined;
}

export const ciliumCni: Plugin = {
  // cmd.go's PluginSupports list.
  supportedVersions: ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0'],
  async run(req) {
    const sock = join(req.nodeRoot, CILIUM_SOCK);
    if (req.command === 'ADD') return add(req, sock);
    if (req.command === 'DEL') return del(req, sock);
    if (req.command === 'CHECK') return check(req, sock);
    return undefined;
  },
};
