// CoreDNS as the coredns Deployment AKS runs it (cloud/addons.ts: mcr.microsoft.com/oss/kubernetes/coredns,
// `-conf /etc/coredns/Corefile`), in the catalogue of programs (catalogue.ts): its kubernetes plugin watches
// Namespaces, Services, EndpointSlices and Pods through the cluster's API and serves the cluster.local zone
// (cluster/dns/zone.ts) on UDP and TCP 53 in the pod's network namespace (dataplane/netns/dns-server.ts), fed the
// zone over stdin on every change; the container is Ready once the server listens. Without a data plane there is
// no namespace to serve in: the program watches nothing and is Ready, as the pod is on a cluster whose DNS is
// never asked. The behaviour is AKS's default Corefile; coredns-custom overrides are not applied. docs/dataplane.md §14.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sysctl } from '../../dataplane/netns/exec.js';
import { spawnInNetns } from '../../dataplane/netns/spawn.js';
import { IpAddress } from '../../net/ip.js';
import { podResolvConfPath } from '../nodefs/node-root.js';
import { buildZone } from '../dns/zone.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { ImageSpec, ProgramContext } from './program.js';

const DNS_SERVER = fileURLToPath(new URL('../../dataplane/netns/dns-server.js', import.meta.url));
/** Changes arriving together (a Deployment's pods, a Service and its slices) make one zone. */
const DEBOUNCE_MS = 50;
/** The server's stderr kept for the container's log when it dies. */
const STDERR_TAIL = 4096;

const WATCHED = {
  namespaces: '/api/v1/namespaces',
  services: '/api/v1/services',
  endpointSlices: '/apis/discovery.k8s.io/v1/endpointslices',
  pods: '/api/v1/pods',
} as const;

/** A pod counts for the zone only with a hostname and a subdomain (it may name a headless Service's endpoint). */
function namesItself(pod: KubeObject): boolean {
  const spec = (pod as { spec?: { hostname?: unknown; subdomain?: unknown } }).spec;
  return typeof spec?.hostname === 'string' && typeof spec.subdomain === 'string';
}

/** What the kubernetes plugin's informers hold, by namespace/name. */
class Informers {
  readonly held = { namespaces: new Map<string, KubeObject>(), services: new Map(), endpointSlices: new Map(), pods: new Map() } as Record<
    keyof typeof WATCHED,
    Map<string, KubeObject>
  >;

  /** Applies one event; false when it cannot change the zone. */
  apply(kind: keyof typeof WATCHED, type: string, object: KubeObject): boolean {
    const key = `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
    const map = this.held[kind];
    if (kind === 'pods' && !namesItself(object) && !map.has(key)) return false;
    if (type === 'DELETED' || (kind === 'pods' && !namesItself(object))) return map.delete(key);
    if (type !== 'ADDED' && type !== 'MODIFIED') return false;
    map.set(key, object);
    return true;
  }

  zone() {
    return buildZone({
      serial: Math.floor(Date.now() / 1000),
      namespaces: [...this.held.namespaces.values()].map((n) => n.metadata.name),
      services: [...this.held.services.values()],
      endpointSlices: [...this.held.endpointSlices.values()],
      pods: [...this.held.pods.values()],
    });
  }
}

/** `v1.11.3-2` (AKS's build suffix) → 1.11.3, as the binary prints its version. */
function versionOf(image: string): string {
  return /:v?(\d+\.\d+\.\d+)[^/:]*$/.exec(image.split('@')[0] ?? '')?.[1] ?? 'dev';
}

/** How long the program waits for the kubelet to write the pod's resolv.conf (written asynchronously at sandbox set-up). */
const RESOLV_WAIT_MS = 2000;

/** The first IPv4 nameserver of the pod's resolv.conf (kubelet/pod-files.ts), or undefined when it has none. */
async function upstreamOf(ctx: ProgramContext): Promise<string | undefined> {
  const uid = ctx.pod.metadata.uid;
  if (!uid) return undefined;
  const deadline = Date.now() + RESOLV_WAIT_MS;
  for (;;) {
    try {
      const text = await readFile(podResolvConfPath(ctx.nodeRoot, uid), 'utf8');
      return resolverNameservers(text).find((ip) => IpAddress.tryParse(ip)?.family === 4);
    } catch {
      if (Date.now() > deadline || ctx.signal.aborted) return undefined;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** The `nameserver` lines' addresses. */
function resolverNameservers(text: string): string[] {
  return text.split('\n').flatMap((line) => {
    const [key, value] = line.trim().split(/\s+/);
    return key === 'nameserver' && value ? [value] : [];
  });
}

const banner = (ctx: ProgramContext): void => ctx.write('stdout', `.:53\nCoreDNS-${versionOf(ctx.image)}\nlinux/amd64\n`);

async function coredns(ctx: ProgramContext): Promise<number> {
  const { signal, netns } = ctx;
  if (!netns) {
    // No namespace to serve in: nothing asks, so nothing is watched (no cost on the cluster's hot paths).
    banner(ctx);
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    return 0;
  }
  ctx.setReady(false);
  const informers = new Informers();
  let send: ((line: string) => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const publish = (): void => {
    timer = undefined;
    send?.(`${JSON.stringify(informers.zone())}\n`);
  };
  const stops = (Object.keys(WATCHED) as Array<keyof typeof WATCHED>).map((kind) =>
    ctx.api.watch(WATCHED[kind], (type, object) => {
      if (informers.apply(kind, type, object)) timer ??= setTimeout(publish, DEBOUNCE_MS);
    }),
  );
  try {
    // Port 53 as nobody: the pod's own namespace lets unprivileged users bind every port, as the container's
    // NET_BIND_SERVICE capability does on AKS; nothing outside that namespace changes.
    await sysctl(basename(netns), { 'net.ipv4.ip_unprivileged_port_start': 0 });
    // `forward . /etc/resolv.conf`: the pod's first nameserver (dnsPolicy Default: the node's, Azure DNS).
    const upstream = await upstreamOf(ctx);
    const child = spawnInNetns(netns, [process.execPath, DNS_SERVER, '53', ...(upstream ? ['--forward', upstream] : [])], { user: 'nobody', signal });
    let stderr = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (d: string) => {
      stderr = (stderr + d).slice(-STDERR_TAIL);
    });
    child.stdin?.on('error', () => undefined);
    send = (line) => child.stdin?.write(line);
    publish();
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (d: string) => {
      if (!d.includes('serving')) return;
      banner(ctx);
      ctx.setReady(true);
    });
    const code = await new Promise<number>((resolve, reject) => {
      child.on('error', (e) => (signal.aborted ? resolve(0) : reject(e)));
      child.on('exit', (status, sig) => resolve(status ?? (sig ? 128 : 1)));
    });
    if (signal.aborted) return 0;
    throw new Error(`[FATAL] the DNS server exited with status ${code}${stderr.trim() ? `: ${stderr.trim()}` : ''}`);
  } finally {
    clearTimeout(timer);
    send = undefined;
    for (const stop of stops) stop();
  }
}

export const COREDNS_IMAGES: ImageSpec[] = [
  {
    // AKS's build, and the upstream image wherever it is mirrored from (registry.k8s.io, docker.io).
    image: /(?:^|\/)(?:oss\/kubernetes\/coredns|coredns\/coredns)$/,
    entrypoint: ['/coredns'],
    programs: { coredns },
  },
];
