// The ARM front door fuzz run, shared by the CI test and `npm run soak`: fixtures through valid calls, then
// `total` generated requests judged one by one, then the run-level checks — the store holds nothing no
// 2xx answer reported and passes integrity_check, unauthenticated requests still get 401, the server comes
// back after a restart — and finally each failure class is shrunk to a minimal request.
import { armCall, armPut } from './arm-session.js';
import { CLUSTERS, clusterBody, FIXTURE_GROUP, generateArm, nicBody, rebuildArm, vnetBody } from './arm-grammar.js';
import type { FuzzClient, WireResponse } from './client.js';
import { drive, type Campaign } from './driver.js';
import { FuzzServer } from './fuzz-server.js';
import { Findings, figuresLine, judgeTransport, STALL_MS, newFigures, normalizeMessage, parseJson, stackSignature, type Figures, type Sent } from './oracle.js';
import { Rng } from './prng.js';
import { shrink, type Rebuild } from './shrink.js';
import { allocationProblems, armIdProblem, nodeProblems, readStore, unfinishedOperations } from './state.js';

export interface FuzzOptions {
  seed: number;
  total: number;
  concurrency?: number;
  deadlineMs?: number;
  /** How many failure classes to shrink (each costs up to ~30 requests). */
  shrinkClasses?: number;
  /** A server already running (npm run soak runs both fuzzers on one): used as is, left running, not restarted at the end. */
  server?: FuzzServer;
}

export interface FuzzResult {
  findings: Findings;
  figures: Figures;
  summary: string;
}

/** What valid requests created: ids reported by 2xx answers, and subtrees the server fills in itself. */
export class ArmModel {
  readonly reported = new Set<string>();
  readonly subtrees = new Set<string>();
  readonly deploymentGroups = new Set<string>();

  report(id: string): void {
    this.reported.add(id.toLowerCase());
  }

  /** Every "id" in a 2xx body (the resource, its inline children, the references it holds). */
  reportBody(body: unknown, depth = 0): void {
    if (depth > 50 || body === null || typeof body !== 'object') return;
    if (Array.isArray(body)) return body.forEach((b) => this.reportBody(b, depth + 1));
    const rec = body as Record<string, unknown>;
    if (typeof rec['id'] === 'string') this.report(rec['id']);
    const type = typeof rec['type'] === 'string' ? (rec['type'] as string).toLowerCase() : '';
    if (type === 'microsoft.containerservice/managedclusters' && typeof rec['id'] === 'string') {
      // A cluster owns its pools, and its node resource group with the NICs, VNet and route table in it.
      this.subtrees.add(rec['id'].toLowerCase());
      const nrg = (rec['properties'] as Record<string, unknown> | undefined)?.['nodeResourceGroup'];
      if (typeof nrg === 'string') this.subtrees.add(`${rec['id'].split('/').slice(0, 3).join('/')}/resourcegroups/${nrg}`.toLowerCase());
    }
    if (type === 'microsoft.resources/deployments' && typeof rec['id'] === 'string') {
      // A deployment keeps its operations under its id.
      this.deploymentGroups.add(rec['id'].split('/').slice(0, 5).join('/').toLowerCase());
      this.subtrees.add(rec['id'].toLowerCase());
    }
    for (const v of Object.values(rec)) this.reportBody(v, depth + 1);
  }

  allows(key: string): boolean {
    const k = key.toLowerCase();
    if (this.reported.has(k)) return true;
    for (const t of this.subtrees) if (k === t || k.startsWith(`${t}/`)) return true;
    // Template deployments create VNets (and their subnets) after the PUT's answer, named by parameters the
    // fuzzer may have mutated (a VNet '-1' is a valid deployment's work).
    const group = k.split('/').slice(0, 5).join('/');
    return this.deploymentGroups.has(group) && /\/providers\/microsoft\.network\/virtualnetworks\/[^/]+(\/subnets\/[^/]+)?$/.test(k);
  }

  /** A request whose outcome is unknown (no answer): whatever it named may exist. */
  uncertain(path: string): void {
    const p = path
      .split('?')[0]!
      .split('/')
      .filter(Boolean)
      .map((s) => {
        try {
          return decodeURIComponent(s);
        } catch {
          return s;
        }
      });
    this.subtrees.add(`/${p.join('/')}`.toLowerCase());
  }
}

async function fixtures(fs: FuzzServer, model: ArmModel): Promise<void> {
  const rng = new Rng(1);
  const g = `/subscriptions/${fs.sub}/resourceGroups/${FIXTURE_GROUP}`;
  const put = async (path: string, body: unknown, api: string) =>
    model.reportBody((await armPut(fs.client, fs.token, `${path}?api-version=${api}`, body)).json);
  await put(g, { location: 'eastus' }, '2021-04-01');
  await put(
    `${g}/providers/Microsoft.Network/virtualNetworks/fz-vnet0`,
    {
      ...(vnetBody(rng, 'fz-vnet0') as object),
      properties: {
        addressSpace: { addressPrefixes: ['10.10.0.0/16'] },
        subnets: [
          { name: 's0', properties: { addressPrefix: '10.10.0.0/24' } },
          { name: 's1', properties: { addressPrefix: '10.10.1.0/24' } },
        ],
      },
    },
    '2022-07-01',
  );
  await put(`${g}/providers/Microsoft.Network/networkSecurityGroups/fz-nsg0`, { location: 'eastus' }, '2022-07-01');
  await put(`${g}/providers/Microsoft.Network/routeTables/fz-rt0`, { location: 'eastus' }, '2022-07-01');
  await put(`${g}/providers/Microsoft.Network/networkInterfaces/fz-nic0`, nicBody(new Rng(2), fs.sub), '2022-07-01');
  const c = clusterBody(rng, CLUSTERS[0]) as any;
  c.properties.networkProfile = { networkPlugin: 'kubenet' };
  c.properties.agentPoolProfiles[0].count = 1;
  // The cluster's own answer is a 201 in Creating: fetch it once it is done to learn its node resource group.
  await put(`${g}/providers/Microsoft.ContainerService/managedClusters/${CLUSTERS[0]}`, c, '2022-11-01');
  model.reportBody(
    (await armCall(fs.client, fs.token, 'GET', `${g}/providers/Microsoft.ContainerService/managedClusters/${CLUSTERS[0]}?api-version=2022-11-01`)).json,
  );
}

function judgeArm(fs: FuzzServer, findings: Findings, sent: Sent, res: WireResponse): void {
  {
    if (!judgeTransport(findings, sent, res, fs.server.timings.get(sent.index))) return;
    const json = parseJson(res.text) as any;
    if (res.status >= 500) {
      const id = res.headers['x-ms-request-id'];
      const stack = typeof id === 'string' ? fs.server.stackOf(id) : undefined;
      const sig = stack ? stackSignature(stack) : `${res.status} ${normalizeMessage(String(json?.error?.code ?? res.text.slice(0, 60)))}`;
      findings.add('5xx', sig, `${res.status}: ${sig}`, sent, res);
    }
    if (sent.expectUnauthorized && res.status !== 401 && res.status !== 431) {
      findings.add('auth', `${sent.labels[0]} ${res.status}`, `${sent.labels[0]}: answered ${res.status}, not 401`, sent, res);
    }
    if (res.status >= 400 && sent.wire.method !== 'HEAD') {
      const ok = typeof json?.error?.code === 'string' && typeof json?.error?.message === 'string';
      if (!ok)
        findings.add(
          'envelope',
          `${res.status} ${normalizeMessage(res.text.slice(0, 50))}`,
          `${res.status} not in ARM's error envelope: ${JSON.stringify(res.text.slice(0, 120))}`,
          sent,
          res,
        );
    }
    if (res.status < 300 && json && typeof json === 'object') {
      for (const id of [json.id, ...(Array.isArray(json.value) ? json.value.map((v: any) => v?.id) : [])]) {
        if (typeof id !== 'string') continue;
        const problem = armIdProblem(id, fs.sub);
        if (problem) findings.add('bad-id', `${sent.template} ${problem}`, `${res.status} with a malformed id (${problem}): ${id.slice(0, 160)}`, sent, res);
      }
    }
  }
}

/** Waits (bounded) for every long-running operation to end, then checks the store. */
export async function checkArmState(fs: FuzzServer, model: ArmModel, findings: Findings): Promise<void> {
  let store = readStore(fs.home);
  for (let i = 0; i < 200 && unfinishedOperations(store.entries).length > 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    store = readStore(fs.home);
  }
  for (const op of unfinishedOperations(store.entries))
    findings.add('state', `operation stuck ${op.value?.kind}`, `operation ${op.value?.kind} still ${op.value?.status} 20 s after the run`);
  if (store.integrity !== 'ok') findings.add('state', 'integrity', `PRAGMA integrity_check: ${store.integrity}`);
  const sub = fs.sub;
  for (const { key, value } of store.entries) {
    const id = key.startsWith('aksemu:authorization/roleAssignments/') ? String(value?.id ?? key) : key;
    if (!id.startsWith('/')) continue;
    const problem = armIdProblem(id, sub);
    if (problem) findings.add('state', `malformed stored id ${problem}`, `stored under a malformed id (${problem}): ${id.slice(0, 200)}`);
    else if (!id.startsWith('/tenants/') && id.toLowerCase() !== `/subscriptions/${sub}`.toLowerCase() && !model.allows(id)) {
      findings.add('state', `unreported ${id.split('/').slice(-2, -1)[0]}`, `stored though no 2xx answer reported it: ${id.slice(0, 200)}`);
    }
  }
  for (const p of [...allocationProblems(store.entries), ...nodeProblems(store.entries)]) findings.add('state', normalizeMessage(p), p);
}

/** Unauthenticated and forged requests are still refused after the run (pollution can open them). */
export async function checkStillLocked(fs: FuzzServer, findings: Findings): Promise<void> {
  for (const [label, headers] of [
    ['no token', {}],
    ['a garbage token', { authorization: 'Bearer x.y.z' }],
  ] as const) {
    for (const path of ['/subscriptions?api-version=2021-04-01', `/subscriptions/${fs.sub}/resourcegroups?api-version=2021-04-01`]) {
      const res = await fs.client.send({ method: 'GET', path, headers });
      if (res.status !== 401)
        findings.add('auth', `after run ${label}`, `after the run, GET ${path.split('?')[0]} with ${label} answered ${res.outcome} ${res.status}, not 401`);
    }
  }
}

/** Replays each failure class's first request, shrinking it to the smallest that still fails the same way. */
export async function shrinkAll(findings: Findings, classes: number, replay: (s: Sent) => Promise<string[]>, rebuild: Rebuild): Promise<void> {
  let done = 0;
  for (const f of findings.failures.values()) {
    if (done >= classes) break;
    if (!f.example || f.kind === 'hang' || f.kind === 'crash' || f.kind === 'pollution') continue;
    done++;
    const reproduces = async (s: Sent) => (await replay(s)).includes(f.key);
    const min = await shrink(f.example, reproduces, rebuild);
    if (min) f.minimal = min;
  }
}

/** Sends one request again and judges it on its own: the failure classes it shows. */
export async function replay(s: Sent, judge: (f: Findings, s: Sent, r: WireResponse) => void, client: FuzzClient): Promise<string[]> {
  const res = await client.send(s.wire);
  await new Promise((r) => setTimeout(r, 30)); // the server's log line of a 500 may trail its answer
  const tmp = new Findings(0);
  judge(tmp, s, res);
  return [...tmp.failures.keys()];
}

/**
 * A stall seen under concurrency may be a bystander that started before the real culprit blocked the
 * loop: each is replayed alone, and kept only if it still holds the server STALL_MS or more.
 */
export async function confirmStalls(findings: Findings, fs: FuzzServer, max = 8): Promise<void> {
  let n = 0;
  for (const [key, f] of findings.failures) {
    if (!key.startsWith('hang stall') || !f.example) continue;
    if (n++ >= max) break;
    const index = 100_000_000 + f.example.index;
    const res = await fs.client.send({ ...f.example.wire, headers: { ...f.example.wire.headers, 'x-fuzz-index': String(index) } });
    await new Promise((r) => setTimeout(r, 50));
    const ms = Math.max(fs.server.timings.get(index) ?? 0, res.outcome === 'timeout' ? res.ms : 0);
    if (ms < STALL_MS) findings.failures.delete(key);
    else f.detail = f.detail.replace(/^held the server \d+ ms/, `held the server ${Math.round(ms)} ms (alone)`);
    if (!(await fs.health()).ok) await fs.restart();
  }
}

export async function runArmFuzz(options: FuzzOptions): Promise<FuzzResult> {
  const concurrency = options.concurrency ?? 4;
  const findings = new Findings(options.seed);
  const figures = newFigures();
  const fs = options.server ?? (await FuzzServer.start(concurrency));
  const model = new ArmModel();
  try {
    await fixtures(fs, model);
    const campaign: Campaign = {
      name: 'ARM fuzz',
      total: options.total,
      concurrency,
      batch: 100,
      deadlineMs: options.deadlineMs ?? 120_000,
      generate: (i) => generateArm(options.seed, i, { sub: fs.sub, token: fs.token }),
      client: () => fs.client,
      judge: (sent, res) => judgeArm(fs, findings, sent, res),
      observe: (sent, res) => {
        if (res.outcome !== 'response') model.uncertain(sent.wire.path);
        else if (res.status < 300 && sent.wire.method !== 'GET' && sent.wire.method !== 'HEAD') model.reportBody(parseJson(res.text));
      },
      health: () => fs.health(),
      recover: async (why) => {
        if (await fs.restart()) return true;
        findings.add('restart', 'arm', `the server did not come back on its own store after: ${why}`);
        await fs.fresh();
        await fixtures(fs, model);
        return true;
      },
    };
    await drive(campaign, findings, figures);
    // A polluted (or stalled) process is restarted for the run-level checks; pollution is already reported.
    if (!(await fs.health()).ok) await fs.restart();
    if ((await fs.health()).ok) {
      await checkArmState(fs, model, findings);
      await checkStillLocked(fs, findings);
      // Confirming and shrinking replay requests: done after the state check, which they would disturb.
      await confirmStalls(findings, fs);
      await shrinkAll(findings, options.shrinkClasses ?? 12, (s) => replay(s, (f, sent, res) => judgeArm(fs, f, sent, res), fs.client), rebuildArm);
      if (!options.server && !(await fs.restart(true)))
        findings.add('restart', 'arm-final', 'the server did not come back healthy after a clean restart at the end of the run');
    }
  } finally {
    if (!options.server) await fs.close();
  }
  return { findings, figures, summary: figuresLine('ARM fuzz', figures) };
}
