// Wall time of `aksemu az aks create` until the cluster is Succeeded, as a user sees it: the az-style client
// as a child process against a server started in this process. The seed's 3-node BYO CNI cluster, then a
// 1,000-node Azure CNI cluster (31,000 NIC addresses) on a /16, measured in the same run.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startServer } from '../src/server/server.js';
import { SEED_AKS_CREATE } from '../test/az/helpers.js';

const BIN = fileURLToPath(new URL('../../bin/aksemu.js', import.meta.url));

export function az(home: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    execFile(process.execPath, [BIN, 'az', ...args, '-o', 'none'], { env: { ...process.env, AKSEMU_HOME: home }, maxBuffer: 1 << 28 }, (err, _out, stderr) => {
      if (err) reject(new Error(`aksemu az ${args.join(' ')} failed: ${stderr}`));
      else resolve(performance.now() - t0);
    });
  });
}

/** The VNet 'big' of myResourceGroup (which must exist) with one subnet, 'nodes', on all of 10.240.0.0/16: its id. */
export async function bigVnet(home: string, subscriptionId: string): Promise<string> {
  await az(home, [
    'network',
    'vnet',
    'create',
    '-g',
    'myResourceGroup',
    '-n',
    'big',
    '--address-prefixes',
    '10.240.0.0/16',
    '--subnet-name',
    'nodes',
    '--subnet-prefixes',
    '10.240.0.0/16',
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

export interface CreateTiming {
  name: string;
  ms: number;
}

export async function benchAzCreate(): Promise<CreateTiming[]> {
  const home = mkdtempSync(join(tmpdir(), 'aksemu-bench-'));
  const server = await startServer({ home, port: 0, log: () => {} });
  try {
    await az(home, ['group', 'create', '--location', 'eastus', '--name', 'myResourceGroup']);
    const subnet = await bigVnet(home, server.identity.subscriptionId);
    const seed = await az(home, [...SEED_AKS_CREATE]);
    const big = await createBigCluster(home, subnet, 1000);
    return [
      { name: 'aksemu az aks create, seed 3-node BYO CNI cluster → Succeeded', ms: seed },
      { name: 'aksemu az aks create, 1,000-node Azure CNI cluster (31,000 addresses) → Succeeded', ms: big },
    ];
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
}
