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

export interface CreateTiming {
  name: string;
  ms: number;
}

export async function benchAzCreate(): Promise<CreateTiming[]> {
  const home = mkdtempSync(join(tmpdir(), 'aksemu-bench-'));
  const server = await startServer({ home, port: 0, log: () => {} });
  try {
    await az(home, ['group', 'create', '--location', 'eastus', '--name', 'myResourceGroup']);
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
    const subnet = `/subscriptions/${server.identity.subscriptionId}/resourceGroups/myResourceGroup/providers/Microsoft.Network/virtualNetworks/big/subnets/nodes`;
    const seed = await az(home, [...SEED_AKS_CREATE]);
    const big = await az(home, [
      'aks',
      'create',
      '-g',
      'myResourceGroup',
      '-n',
      'big',
      '--network-plugin',
      'azure',
      '--node-count',
      '1000',
      '--vnet-subnet-id',
      subnet,
      '--skip-subnet-role-assignment',
      '--generate-ssh-keys',
    ]);
    return [
      { name: 'aksemu az aks create, seed 3-node BYO CNI cluster → Succeeded', ms: seed },
      { name: 'aksemu az aks create, 1,000-node Azure CNI cluster (31,000 addresses) → Succeeded', ms: big },
    ];
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
}
