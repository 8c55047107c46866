// Azure DNS in a VNet's router namespace (docs/dataplane.md §14.4): 168.63.129.16 on the router's loopback, which
// every host of the VNet reaches through its default route (the subnet gateway is the router), and dns-server.js
// in Azure mode answering the VNet's zone (dataplane/azure-dns-zone.ts) on it, as nobody. The zone is sent again
// when the topology changes it; a server that died is started again on the next apply. It goes with the router's
// namespace (its processes are killed before the namespace is deleted, gc.ts).
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { AZURE_DNS } from '../../aks/azure-dns.js';
import type { AzureDnsZone } from '../azure-dns-zone.js';
import { netnsPath } from './exec.js';
import { spawnInNetns } from './spawn.js';
import type { RouterState } from './state.js';

const DNS_SERVER = fileURLToPath(new URL('./dns-server.js', import.meta.url));
const START_TIMEOUT_MS = 10_000;

export interface AzureDnsState {
  child: ChildProcess;
  /** The zone line last sent. */
  sent: string | undefined;
}

/** Starts the router's Azure DNS when it is not running, and sends it the zone when it changed. */
export async function convergeAzureDns(r: RouterState, zone: AzureDnsZone | undefined): Promise<void> {
  if (!r.dns || r.dns.child.exitCode !== null || r.dns.child.signalCode !== null) r.dns = await startAzureDns(r.netns);
  const line = JSON.stringify(zone ?? { records: [] });
  if (line === r.dns.sent) return;
  r.dns.child.stdin?.write(`${line}\n`);
  r.dns.sent = line;
}

/** Stops the router's Azure DNS (its namespace is going, or the data plane is closing). */
export function stopAzureDns(r: RouterState): void {
  r.dns?.child.kill('SIGKILL');
  r.dns = undefined;
}

async function startAzureDns(netns: string): Promise<AzureDnsState> {
  const child = spawnInNetns(netnsPath(netns), [process.execPath, DNS_SERVER, '53', '--azure', '--bind', AZURE_DNS], { user: 'nobody' });
  child.stdin?.on('error', () => undefined);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error('did not start in time')), START_TIMEOUT_MS);
    const fail = (e: Error): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`Azure DNS in ${netns}: ${stderr.trim() || e.message}`));
    };
    child.on('error', fail);
    child.on('exit', (code) => fail(new Error(`exited (${code})`)));
    child.stdout?.on('data', (d: Buffer) => {
      if (!d.toString().includes('serving')) return;
      clearTimeout(timer);
      resolve();
    });
  });
  return { child, sent: undefined };
}
