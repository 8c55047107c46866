// The API servers' addresses on the emulated internet (docs/dataplane.md §12.7): each cluster's address
// (aks/azure-dns.ts apiServerAddress) is added to the internet namespace's loopback, where every VNet router reaches
// it (router.ts routes API_SERVER_RANGE there), and a listening socket bound to it there is handed to the aksemu
// process (api-listener-process.ts), which serves the cluster's API on it. Closing the listener removes the address.
import type { Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Cidr, IpAddress } from '../../net/ip.js';
import { API_SERVER_RANGE } from '../../aks/azure-dns.js';
import { mayFail, netnsPath } from './exec.js';
import { spawnInNetns } from './spawn.js';
import type { NetnsState } from './state.js';

const SCRIPT = fileURLToPath(new URL('./api-listener-process.js', import.meta.url));
const HANDOFF_TIMEOUT_MS = 10_000;

/** Binds address:port in the internet namespace and returns the listening socket; one listener per address. */
export async function openApiListener(state: NetnsState, address: string, port: number): Promise<Server> {
  const ip = IpAddress.tryParse(address);
  if (!ip || !Cidr.parse(API_SERVER_RANGE).contains(ip)) throw new Error(`${address} is not an API server address (${API_SERVER_RANGE})`);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`invalid port ${port}`);
  const inet = state.inet;
  if (!inet) throw new Error('the internet namespace is not built');
  if (state.apiListeners.has(address)) throw new Error(`${address} already serves another cluster's API`);
  state.apiListeners.set(address, undefined);
  try {
    await state.ip.batch(inet, [`addr replace ${address}/32 dev lo`]);
    const server = await handOff(netnsPath(inet), address, port);
    state.apiListeners.set(address, server);
    server.once('close', () => {
      if (state.apiListeners.get(address) !== server) return;
      state.apiListeners.delete(address);
      if (state.inet === inet) void state.ip.batch(inet, [mayFail(`addr del ${address}/32 dev lo`)]).catch(() => undefined);
    });
    return server;
  } catch (e) {
    state.apiListeners.delete(address);
    await state.ip.batch(inet, [mayFail(`addr del ${address}/32 dev lo`)]).catch(() => undefined);
    throw e;
  }
}

/** Runs the binding process in the namespace (as nobody: the namespace lets it bind any port) and takes its socket. */
function handOff(path: string, address: string, port: number): Promise<Server> {
  const child = spawnInNetns(path, [process.execPath, SCRIPT, address, String(port)], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  return new Promise<Server>((resolve, reject) => {
    let stderr = '';
    let got: Server | undefined;
    const timer = setTimeout(() => child.kill('SIGKILL'), HANDOFF_TIMEOUT_MS);
    child.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-2000);
    });
    child.on('message', (message, handle) => {
      if (message === 'listening' && handle && 'listen' in handle) got = handle as Server;
    });
    child.on('error', () => undefined);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (got) resolve(got);
      else reject(new Error(`could not listen on ${address}:${port}: ${stderr.trim() || `the listener process exited (${code})`}`));
    });
  });
}
