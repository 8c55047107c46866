// Wall time of `aksemu az aks create` until the cluster is Succeeded, as a user sees it: the az-style client
// as a child process against a server started in this process. The seed's 3-node BYO CNI cluster, then a
// 1,000-node Azure CNI cluster (31,000 NIC addresses) on a /16, measured in the same run.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { discard } from './trash.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startServer } from '../src/server/server.js';
import { SEED_AKS_CREATE } from '../test/az/helpers.js';

const BIN = fileURLToPath(new URL('../../bin/aksemu.js', import.meta.url));

/** Runs `aksemu az <args>` against the server of `home`: what it printed (give `-o`). */
export function azOutput(home: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BIN, 'az', ...args], { env: { ...process.env, AKSEMU_HOME: home }, maxBuffer: 1 << 28 }, (err, out, stderr) => {
      if (err) reject(new Error(`aksemu az ${args.join(' ')} failed: ${stderr}`));
      else resolve(out);
    });
  });
}

/** Runs `aksemu az <args> -o none`: its wall time. */
export async function az(home: string, args: string[]): Promise<number> {
  const t0 = performance.now();
  await azOutput(home, [...args, '-o', 'none']);
  return performance.now() - t0;
}

/** CPU time (ms) of this process's children that have ended (Linux: /proc/self/stat's cutime + cstime), else 0. */
function childrenCpuMs(): number {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return 0;
  }
}

/** Runs `work` and says what it took: wall time, this process's CPU (the server) and its children's (the az processes). */
export async function measured(work: () => Promise<unknown>): Promise<Measured> {
  const cpu0 = process.cpuUsage();
  const children0 = childrenCpuMs();
  const t0 = performance.now();
  await work();
  const cpu = process.cpuUsage(cpu0);
  return { ms: performance.now() - t0, serverCpuMs: (cpu.user + cpu.system) / 1000, clientCpuMs: childrenCpuMs() - children0 };
}

export interface Measured {
  ms: number;
  /** CPU time of the server (this process, all threads): what a loaded machine moves least. */
  serverCpuMs: number;
  /** CPU time of the `aksemu az` processes. */
  clientCpuMs: number;
}

/** "1.23 s (CPU: server 0.45 s, az 0.50 s)" */
export function describe(m: Measured): string {
  return `${(m.ms / 1000).toFixed(2)} s (CPU: server ${(m.serverCpuMs / 1000).toFixed(2)} s, az ${(m.clientCpuMs / 1000).toFixed(2)} s)`;
}

/** The VNet 'big' of myResourceGroup (which must exist) with one subnet, 'nodes', on all of `prefix`: its id. */
export async function bigVnet(home: string, subscriptionId: string, prefix = '10.240.0.0/16'): Promise<string> {
  await az(home, [
    'network',
    'vnet',
    'create',
    '-g',
    'myResourceGroup',
    '-n',
    'big',
    '--address-prefixes',
    prefix,
    '--subnet-name',
    'nodes',
    '--subnet-prefixes',
    prefix,
  ]);
  return `/subscriptions/${subscriptionId}/resourceGroups/myResourceGroup/providers/Microsoft.Network/virtualNetworks/big/subnets/nodes`;
}

/** `aksemu az aks create` of the Azure CNI cluster 'big' of `nodes` nodes on `subnet`, to Succeeded: its wall time. */
export function createBigCluster(home: string, subnet: string, nodes: number): Promise<number> {
  return az(home, [
    'aks',
    'create',
    '-g',
    'myResourceGroup',
    '-n',
    'big',
    '--network-plugin',
    'azure',
    '--node-count',
    String(nodes),
    '--vnet-subnet-id',
    subnet,
    '--skip-subnet-role-assignment',
    '--generate-ssh-keys',
  ]);
}

export interface CreateTiming extends Measured {
  name: string;
  /** The goal for it (seconds). */
  goalS: number;
}

export async function benchAzCreate(): Promise<CreateTiming[]> {
  const home = mkdtempSync(join(tmpdir(), 'aksemu-bench-'));
  const server = await startServer({ home, port: 0, log: () => {} });
  try {
    await az(home, ['group', 'create', '--location', 'eastus', '--name', 'myResourceGroup']);
    const subnet = await bigVnet(home, server.identity.subscriptionId);
    // The seed's create is the first in a fresh home: az makes the SSH key (--generate-ssh-keys) as a new user's does.
    const seed = await measured(() => az(home, [...SEED_AKS_CREATE]));
    const big = await measured(() => createBigCluster(home, subnet, 1000));
    return [
      { name: 'aksemu az aks create, seed 3-node BYO CNI cluster → Succeeded', goalS: 0.5, ...seed },
      { name: 'aksemu az aks create, 1,000-node Azure CNI cluster (31,000 addresses) → Succeeded', goalS: 2, ...big },
    ];
  } finally {
    await server.close();
    discard(home);
  }
}

// `node dist/bench/az-create.js [runs]`: these two creates alone, each run in a fresh home and server, for comparing builds.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (let run = 0; run < Number(process.argv[2] ?? 1); run++) {
    for (const c of await benchAzCreate()) console.log(`${c.name}\n  ${describe(c)}   goal ≤ ${c.goalS} s`);
  }
}
