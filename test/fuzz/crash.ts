// The crash harness: the real `aksemu start` as a child process, driven through creates, scales, pool
// adds, deletes and template deployments, SIGKILLed at a seeded random moment, restarted; then every
// operation must end, no address be held twice or leaked, the kubectl objects made before the kill be
// there, and state.db pass integrity_check (read-only, right after the kill, before the restart).
import { spawn, type ChildProcess } from 'node:child_process';
import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kubectl } from '../cluster/harness.js';
import { armCall, armToken, waitForOperation, type ArmReply } from './arm-session.js';
import { clusterBody, templateBody } from './arm-grammar.js';
import { FuzzClient } from './client.js';
import { Findings } from './oracle.js';
import { Rng } from './prng.js';
import { allocationProblems, nodeProblems, readStore, unfinishedOperations } from './state.js';

const BIN = fileURLToPath(new URL('../../../bin/aksemu.js', import.meta.url));
const AKS = '2022-11-01';

interface Running {
  proc: ChildProcess;
  client: FuzzClient;
  token: string;
  sub: string;
}

export interface CrashFigures {
  rounds: number;
  operationsStarted: number;
  ended: Record<string, number>;
  kubectlObjects: number;
  kubectlSurvived: number;
  elapsedMs: number;
}

/** `aksemu start --home H --port 0`, ready once it says it serves ARM. */
async function start(home: string): Promise<Running> {
  const proc = spawn(process.execPath, [BIN, 'start', '--home', home, '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  for (let i = 0; i < 600 && !stderr.includes('serving ARM'); i++) {
    if (proc.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  if (!stderr.includes('serving ARM')) {
    proc.kill('SIGKILL');
    throw new Error(`aksemu start did not come up: ${stderr.slice(-500)}`);
  }
  const info = JSON.parse(readFileSync(join(home, 'endpoint.json'), 'utf8'));
  const client = new FuzzClient({ url: info.url, caPem: readFileSync(info.caFile, 'utf8') }, { maxSockets: 4, timeoutMs: 15_000 });
  return { proc, client, token: await armToken(client, info), sub: info.subscriptionId };
}

async function kill(r: Running): Promise<void> {
  r.client.close();
  if (r.proc.exitCode !== null || r.proc.signalCode !== null) return;
  const exited = new Promise((res) => r.proc.once('exit', res));
  r.proc.kill('SIGKILL');
  await exited;
}

interface KubeObject {
  cluster: string;
  kind: 'configmap' | 'deployment';
  name: string;
}

/**
 * Faults written into state.db after the first kill, to show the checks fire: an address handed to a
 * second (non-existent) owner, and a kubectl-created ConfigMap removed from the store.
 */
export type InjectedFault = 'double-address' | 'lost-object';

function inject(home: string, fault: InjectedFault): void {
  const db = new Database(join(home, 'state.db'));
  try {
    if (fault === 'double-address') {
      const row = db.prepare("SELECT k, key, value FROM entries WHERE k LIKE 'aksemu:ipam/subnet:%' LIMIT 1").get() as { key: string; value: string };
      const a = JSON.parse(row.value);
      const owner = `${a.owner}-ghost`;
      const key = `aksemu:ipam/subnet:${a.subnetId}|${owner}`;
      db.prepare('INSERT INTO entries (k, key, value) VALUES (?, ?, ?)').run(key.toLowerCase(), key, JSON.stringify({ ...a, owner }));
    } else {
      db.prepare("DELETE FROM entries WHERE k LIKE 'aksemu:k8s%/configmaps/default/crash-configmap-0'").run();
    }
  } finally {
    db.close();
  }
}

export async function runCrashRounds(options: {
  seed: number;
  rounds: number;
  inject?: InjectedFault;
}): Promise<{ findings: Findings; figures: CrashFigures; summary: string }> {
  const findings = new Findings(options.seed);
  const figures: CrashFigures = { rounds: 0, operationsStarted: 0, ended: {}, kubectlObjects: 0, kubectlSurvived: 0, elapsedMs: 0 };
  const started = Date.now();
  const home = mkdtempSync(join(tmpdir(), 'aksemu-crash-'));
  const scratch = mkdtempSync(join(tmpdir(), 'aksemu-crash-kube-'));
  let srv = await start(home);
  const g = `/subscriptions/${srv.sub}/resourceGroups/crash`;
  const clusterPath = (name: string) => `${g}/providers/Microsoft.ContainerService/managedClusters/${name}`;
  const objects: KubeObject[] = [];
  const kubeconfigs = new Map<string, string>();
  try {
    await armCall(srv.client, srv.token, 'PUT', `${g}?api-version=2021-04-01`, { location: 'eastus' });
    // A cluster that lives through every round and holds the kubectl objects.
    const keep = clusterBody(new Rng(1), 'keep') as any;
    keep.properties.networkProfile = { networkPlugin: 'kubenet' };
    const made = await armCall(srv.client, srv.token, 'PUT', `${clusterPath('keep')}?api-version=${AKS}`, keep);
    if ((await waitForOperation(srv.client, srv.token, made)) !== 'Succeeded') throw new Error('the long-lived cluster was not created');
    const alive = new Set(['keep']);
    for (let round = 0; round < options.rounds; round++) {
      const rng = new Rng((options.seed ^ 0xc0ffee) + round * 7919);
      // 1. kubectl objects through the real kubectl, before the kill: these must survive it.
      const kc = await kubeconfigFor(srv, clusterPath('keep'), scratch, kubeconfigs);
      for (const kind of ['configmap', 'deployment'] as const) {
        const name = `crash-${kind}-${round}`;
        const args =
          kind === 'configmap'
            ? ['create', 'configmap', name, '--from-literal=round=' + round]
            : ['create', 'deployment', name, '--image=nginx', '--replicas=1'];
        const res = await kubectl({ kubeconfig: kc, scratch }, args, 30_000);
        if (res.code === 0) objects.push({ cluster: 'keep', kind, name });
        else findings.add('state', `kubectl create ${kind}`, `kubectl ${args.join(' ')} failed before the kill: ${res.stderr.slice(0, 200)}`);
      }
      // 2. A burst of long-running operations, answered but (mostly) not finished when the kill comes.
      const ops: Array<Promise<ArmReply | undefined>> = [];
      const begin = (method: string, path: string, body?: unknown) => {
        figures.operationsStarted++;
        ops.push(armCall(srv.client, srv.token, method, path, body).catch(() => undefined));
      };
      const name = `c${round}`;
      const body = clusterBody(rng, name) as any;
      body.properties.networkProfile = { networkPlugin: rng.pick(['kubenet', 'azure']) };
      body.properties.agentPoolProfiles[0].count = rng.int(1, 3);
      begin('PUT', `${clusterPath(name)}?api-version=${AKS}`, body);
      alive.add(name);
      begin('PUT', `${clusterPath('keep')}/agentPools/nodepool1?api-version=${AKS}`, {
        properties: { count: rng.int(1, 3), vmSize: 'Standard_DS2_v2', mode: 'System', osType: 'Linux' },
      });
      begin('PUT', `${clusterPath('keep')}/agentPools/p${round}?api-version=${AKS}`, {
        properties: { count: rng.int(1, 2), vmSize: 'Standard_DS2_v2', mode: 'User', osType: 'Linux' },
      });
      if (round > 0 && rng.chance(0.7)) begin('DELETE', `${clusterPath('keep')}/agentPools/p${round - 1}?api-version=${AKS}`);
      const victim = [...alive].filter((c) => c !== 'keep' && c !== name);
      if (victim.length > 0 && rng.chance(0.6)) {
        const v = rng.pick(victim);
        begin('DELETE', `${clusterPath(v)}?api-version=${AKS}`);
        alive.delete(v);
      }
      begin('PUT', `${g}/providers/Microsoft.Resources/deployments/d${round}?api-version=2021-04-01`, templateBody(rng));
      begin('PUT', `${g}/providers/Microsoft.Network/networkInterfaces/nic${round}?api-version=2022-07-01`, {
        location: 'eastus',
        properties: {
          ipConfigurations: [
            { name: 'ipconfig1', properties: { subnet: { id: `${g}/providers/Microsoft.Network/virtualNetworks/fz-tvnet5${round % 10}/subnets/sub2` } } },
          ],
        },
      });
      // 3. SIGKILL at a seeded moment: before some answers, between them, or while the work runs.
      // Some answers first (so operations are recorded and running), then a little more time.
      await Promise.race([Promise.all(ops.slice(0, rng.int(0, ops.length))), new Promise((r) => setTimeout(r, 10_000))]);
      await new Promise((r) => setTimeout(r, rng.int(0, 150)));
      await kill(srv);
      await Promise.allSettled(ops);
      figures.rounds++;
      // 4. The store as the kill left it.
      const after = readStore(home);
      if (after.integrity !== 'ok') findings.add('state', 'integrity after kill', `round ${round}: PRAGMA integrity_check after SIGKILL: ${after.integrity}`);
      if (options.inject && round === 0) inject(home, options.inject);
      // 5. Restart; every operation ends.
      srv = await start(home);
      let store = readStore(home);
      for (let i = 0; i < 150 && unfinishedOperations(store.entries).length > 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        store = readStore(home);
      }
      for (const op of unfinishedOperations(store.entries))
        findings.add('state', `stuck ${op.value?.kind}`, `round ${round}: operation ${op.value?.kind} still ${op.value?.status} 15 s after the restart`);
      for (const p of [...allocationProblems(store.entries), ...nodeProblems(store.entries)])
        findings.add('state', `round addresses ${p.split(':')[0]}`, `round ${round}: ${p}`);
      await checkAddresses(srv, round, findings);
      // 6. The kubectl objects made before any kill are all still there; nodes and pods hold distinct IPs.
      const kc2 = await kubeconfigFor(srv, clusterPath('keep'), scratch, kubeconfigs);
      await checkClusterIps({ kubeconfig: kc2, scratch }, round, findings);
      for (const o of objects) {
        const res = await kubectl({ kubeconfig: kc2, scratch }, ['get', o.kind, o.name, '-o', 'name'], 30_000);
        if (res.code !== 0)
          findings.add(
            'state',
            `lost ${o.kind}`,
            `round ${round}: ${o.kind} ${o.name}, created by kubectl before a kill, is gone after the restart: ${res.stderr.slice(0, 160)}`,
          );
      }
    }
    const final = readStore(home);
    for (const e of final.entries) if (e.key.startsWith('aksemu:operations/')) figures.ended[e.value.status] = (figures.ended[e.value.status] ?? 0) + 1;
    figures.kubectlObjects = objects.length;
    const kc = await kubeconfigFor(srv, clusterPath('keep'), scratch, kubeconfigs);
    for (const o of objects)
      if ((await kubectl({ kubeconfig: kc, scratch }, ['get', o.kind, o.name, '-o', 'name'], 30_000)).code === 0) figures.kubectlSurvived++;
  } finally {
    await kill(srv);
    rmSync(home, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  }
  figures.elapsedMs = Date.now() - started;
  const ended = Object.entries(figures.ended)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const summary = `crash harness: ${figures.rounds} SIGKILL rounds in ${(figures.elapsedMs / 1000).toFixed(1)} s — ${figures.operationsStarted} operations started; operations ended: ${ended}; kubectl objects survived ${figures.kubectlSurvived}/${figures.kubectlObjects}`;
  return { findings, figures, summary };
}

/** The keep cluster's user kubeconfig (same port after restarts; fetched again if it moved). */
async function kubeconfigFor(srv: Running, clusterId: string, scratch: string, cache: Map<string, string>): Promise<string> {
  const creds = await armCall(srv.client, srv.token, 'POST', `${clusterId}/listClusterUserCredential?api-version=${AKS}`);
  if (creds.status !== 200) throw new Error(`listClusterUserCredential: ${creds.status} ${creds.res.text.slice(0, 200)}`);
  const file = join(scratch, 'kubeconfig');
  writeFileSync(file, Buffer.from(creds.json.kubeconfigs[0].value, 'base64'), { mode: 0o600 });
  cache.set(clusterId, file);
  return file;
}

/** Through ARM: no two NICs hold one address in a subnet; through each cluster's API: no two nodes or pods share an IP. */
async function checkAddresses(srv: Running, round: number, findings: Findings): Promise<void> {
  const nics = await armCall(srv.client, srv.token, 'GET', `/subscriptions/${srv.sub}/providers/Microsoft.Network/networkInterfaces?api-version=2022-07-01`);
  const seen = new Map<string, string>();
  for (const nic of nics.json?.value ?? []) {
    for (const ipc of nic.properties?.ipConfigurations ?? []) {
      const k = `${String(ipc.properties?.subnet?.id).toLowerCase()}|${ipc.properties?.privateIPAddress}`;
      if (seen.has(k) && seen.get(k) !== nic.id)
        findings.add('state', 'NIC address twice', `round ${round}: ${ipc.properties?.privateIPAddress} held by ${seen.get(k)} and ${nic.id}`);
      seen.set(k, nic.id);
    }
  }
  const clusters = await armCall(
    srv.client,
    srv.token,
    'GET',
    `/subscriptions/${srv.sub}/providers/Microsoft.ContainerService/managedClusters?api-version=${AKS}`,
  );
  for (const c of clusters.json?.value ?? []) {
    const state = c.properties?.provisioningState;
    if (!['Succeeded', 'Failed', 'Canceled'].includes(state))
      findings.add('state', `cluster ${state}`, `round ${round}: cluster ${c.name} is ${state} after the operations ended`);
  }
}

/** No two nodes, and no two pods off the host network, share an IP in the cluster (kubectl's view). */
async function checkClusterIps(env: { kubeconfig: string; scratch: string }, round: number, findings: Findings): Promise<void> {
  for (const [what, args] of [
    ['node', ['get', 'nodes', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.status.addresses[?(@.type=="InternalIP")].address}{"\\n"}{end}']],
    [
      'pod',
      [
        'get',
        'pods',
        '-A',
        '-o',
        'jsonpath={range .items[?(@.status.podIP)]}{.metadata.namespace}/{.metadata.name} {.spec.hostNetwork} {.status.podIP}{"\\n"}{end}',
      ],
    ],
  ] as const) {
    const res = await kubectl(env, [...args], 30_000);
    if (res.code !== 0) {
      findings.add('state', `kubectl get ${what}s`, `round ${round}: kubectl get ${what}s failed after the restart: ${res.stderr.slice(0, 160)}`);
      continue;
    }
    const owner = new Map<string, string>();
    for (const line of res.stdout.split('\n').filter(Boolean)) {
      const parts = line.trim().split(/\s+/);
      const ip = parts[parts.length - 1]!;
      if (what === 'pod' && parts[1] === 'true') continue;
      if (owner.has(ip)) findings.add('state', `${what} IP twice`, `round ${round}: ${what}s ${owner.get(ip)} and ${parts[0]} share ${ip}`);
      owner.set(ip, parts[0]!);
    }
  }
}
