// What the kube-proxy netns tests share (docs/dataplane.md §12): backends that answer every connection with
// their name and the source they saw, a client that asks from any namespace, and NodeServices built from a list
// of Services the way the cluster's ServiceProxy sorts endpoints per node.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { run } from '../../src/dataplane/netns/exec.js';
import type { NodeServices, ServiceEndpoint, ServicePortEntry } from '../../src/dataplane/services.js';

const WHOAMI = fileURLToPath(new URL('../../src/dataplane/netns/whoami.js', import.meta.url));
const BACKEND = `const [name, port] = process.argv.slice(1);
require('node:net').createServer((s) => s.end(name + ' ' + s.remoteAddress + '\\n')).listen(Number(port), '0.0.0.0', () => console.log('listening'));`;

/** A listener in a namespace (path) answering `NAME SOURCE`; resolves with its process once it listens. */
export function backend(netnsPath: string, name: string, port: number): Promise<ChildProcess> {
  const child = spawn('nsenter', [`--net=${netnsPath}`, process.execPath, '-e', BACKEND, name, String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('listening') && resolve(child));
    child.on('exit', (code) => reject(new Error(`backend ${name} exited (${code})`)));
  });
}

/** One TCP connection from a namespace: `NAME SOURCE` as the backend answered, or the error code. */
export async function ask(netnsPath: string, ip: string, port: number, timeoutMs = 2000): Promise<{ name?: string; source?: string; error?: string }> {
  const r = await run('nsenter', [`--net=${netnsPath}`, process.execPath, WHOAMI, 'ask', ip, String(port), String(timeoutMs)], undefined, timeoutMs + 5000);
  const parsed = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as { seen?: string; error?: string };
  const [name, source] = (parsed.seen ?? '').split(' ');
  return { ...(name ? { name } : {}), ...(source ? { source } : {}), ...(parsed.error ? { error: parsed.error } : {}) };
}

export interface TestEndpoint extends ServiceEndpoint {
  node: number;
}

export type TestService = Omit<ServicePortEntry, 'clusterEndpoints' | 'localEndpoints' | 'hasEndpoints' | 'namespace' | 'portName' | 'protocol'> & {
  endpoints: TestEndpoint[];
};

/** Node `node`'s table: every endpoint for the Cluster policy, its own for the Local ones. */
export function tableFor(node: number, services: TestService[], clusterCidr: string | undefined): NodeServices {
  return {
    clusterId: 'c',
    ...(clusterCidr ? { clusterCidr } : {}),
    serviceCidrs: ['10.0.0.0/16'],
    ports: services.map(({ endpoints, ...s }) => ({
      ...s,
      namespace: 'default',
      portName: '',
      protocol: 'TCP' as const,
      clusterEndpoints: endpoints.map(({ ip, port }) => ({ ip, port })),
      localEndpoints: endpoints.filter((e) => e.node === node).map(({ ip, port }) => ({ ip, port })),
      hasEndpoints: endpoints.length > 0,
    })),
  };
}
