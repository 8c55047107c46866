// The cluster API fuzz run, shared by the CI test and `npm run soak`: a server with one kubenet cluster,
// fixtures in the fuzzer's namespaces, `total` generated requests authenticated with the cluster's own
// credential (listClusterUserCredential), each judged; then the run-level checks — stored objects were all
// reported by 2xx answers and pass the apiserver's validation, the lists kubectl needs still answer,
// unauthenticated requests still get 401, and the cluster comes back after a restart.
import { parse as parseYaml } from 'yaml';
import { armCall, armPut } from './arm-session.js';
import { clusterBody, FIXTURE_GROUP } from './arm-grammar.js';
import { FuzzClient, type WireResponse } from './client.js';
import { NAMESPACES, generateCluster, validObject } from './cluster-grammar.js';
import { drive, type Campaign, type Health } from './driver.js';
import { FuzzServer } from './fuzz-server.js';
import { confirmStalls, replay, shrinkAll, type FuzzOptions, type FuzzResult } from './arm-fuzz.js';
import { Findings, figuresLine, judgeTransport, newFigures, normalizeMessage, parseJson, stackSignature, type Sent } from './oracle.js';
import { Rng } from './prng.js';
import { applyMutations, serialize } from './mutate.js';
import { readStore } from './state.js';
import { kubeObjectProblem } from './kube-validation.js';

export interface ClusterTarget {
  clusterId: string;
  client: FuzzClient;
  token: string;
  nodes: string[];
}

/** A kubenet cluster of two nodes, its API's URL and token from the user kubeconfig ARM hands out. */
export async function createCluster(fs: FuzzServer, name = 'fz-k0', concurrency = 4, group = FIXTURE_GROUP): Promise<ClusterTarget> {
  const g = `/subscriptions/${fs.sub}/resourceGroups/${group}`;
  await armPut(fs.client, fs.token, `${g}?api-version=2021-04-01`, { location: 'eastus' });
  const body = clusterBody(new Rng(3), name) as any;
  body.properties.networkProfile = { networkPlugin: 'kubenet' };
  body.properties.agentPoolProfiles[0].count = 2;
  const id = `${g}/providers/Microsoft.ContainerService/managedClusters/${name}`;
  await armPut(fs.client, fs.token, `${id}?api-version=2022-11-01`, body);
  return connectCluster(fs, id, concurrency);
}

export async function connectCluster(fs: FuzzServer, clusterId: string, concurrency = 4): Promise<ClusterTarget> {
  const creds = await armCall(fs.client, fs.token, 'POST', `${clusterId}/listClusterUserCredential?api-version=2022-11-01`);
  if (creds.status !== 200) throw new Error(`listClusterUserCredential answered ${creds.status}: ${creds.res.text.slice(0, 200)}`);
  const kubeconfig = parseYaml(Buffer.from(creds.json.kubeconfigs[0].value, 'base64').toString('utf8'));
  const server = kubeconfig.clusters[0].cluster.server as string;
  const caPem = Buffer.from(kubeconfig.clusters[0].cluster['certificate-authority-data'], 'base64').toString('utf8');
  const token = kubeconfig.users[0].user.token as string;
  const client = new FuzzClient({ url: server, caPem }, { maxSockets: concurrency });
  const nodes = await client.send({ method: 'GET', path: '/api/v1/nodes', headers: { authorization: `Bearer ${token}` } });
  const names = ((parseJson(nodes.text) as any)?.items ?? []).map((n: any) => n.metadata.name as string);
  return { clusterId, client, token, nodes: names };
}

/** The fuzzer's namespaces and one object of each kind in the first, made with valid requests. */
async function clusterFixtures(t: ClusterTarget, model: Set<string>): Promise<void> {
  const auth = { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' };
  for (const ns of NAMESPACES) {
    const r = await t.client.send({ method: 'POST', path: '/api/v1/namespaces', headers: auth, body: JSON.stringify({ metadata: { name: ns } }) });
    if (r.status !== 201) throw new Error(`namespace ${ns}: ${r.status} ${r.text.slice(0, 200)}`);
    model.add(`namespaces//${ns}`);
  }
  for (const resource of ['configmaps', 'deployments', 'services', 'pods']) {
    const { path, body } = validObject(resource, 'fz-a');
    const r = await t.client.send({ method: 'POST', path, headers: auth, body: serialize(body) });
    if (r.status !== 201) throw new Error(`${resource} fixture: ${r.status} ${r.text.slice(0, 200)}`);
    model.add(`${resource}/${NAMESPACES[0]}/fz-a`);
  }
}

function judgeCluster(fs: FuzzServer, findings: Findings, sent: Sent, res: WireResponse): void {
  if (!judgeTransport(findings, sent, res, fs.server.timings.get(sent.index))) return;
  const json = parseJson(res.text) as any;
  if (res.status >= 500) {
    const stack = fs.server.stackOf(`cluster API request ${sent.wire.method} ${JSON.stringify(sent.wire.path)} failed`);
    const sig = stack ? stackSignature(stack) : `${res.status} ${normalizeMessage(String(json?.message ?? res.text.slice(0, 60)))}`;
    findings.add('5xx', `cluster ${sig}`, `cluster API ${res.status}: ${sig}`, sent, res);
  }
  if (sent.expectUnauthorized && res.status !== 401)
    findings.add('auth', `cluster ${sent.labels[0]} ${res.status}`, `cluster API, ${sent.labels[0]}: answered ${res.status}, not 401`, sent, res);
  if (res.status >= 400) {
    const ok = json?.kind === 'Status' && json?.status === 'Failure' && json?.code === res.status && typeof json?.message === 'string';
    if (!ok)
      findings.add(
        'envelope',
        `cluster ${res.status} ${normalizeMessage(res.text.slice(0, 40))}`,
        `cluster API ${res.status} not a Kubernetes Status: ${JSON.stringify(res.text.slice(0, 120))}`,
        sent,
        res,
      );
  }
  if (res.status >= 200 && res.status < 300 && ['POST', 'PUT', 'PATCH'].includes(sent.wire.method) && json?.metadata) {
    const problem = kubeObjectProblem(json);
    if (problem)
      findings.add(
        'state',
        `accepted ${sent.template} ${problem.split(':')[0]}`,
        `accepted an object the apiserver refuses (${problem}): ${sent.template}`,
        sent,
        res,
      );
  }
}

/** resource/namespace/name of an object a 2xx answer reported. */
function objectKey(sent: Sent, json: any): string | undefined {
  const m = /\/(?:namespaces\/([^/]+)\/)?(configmaps|pods|deployments|services|namespaces|nodes)(?:\/|$|\?)/.exec(sent.wire.path);
  if (!m || !json?.metadata?.name) return undefined;
  return `${m[2]}/${json.metadata.namespace ?? ''}/${json.metadata.name}`.toLowerCase();
}

const WATCHED = new Set(['configmaps', 'pods', 'deployments', 'services', 'namespaces', 'nodes']);

async function checkClusterState(fs: FuzzServer, t: ClusterTarget, reported: Set<string>, uncertain: Set<string>, findings: Findings): Promise<void> {
  await new Promise((r) => setTimeout(r, 200)); // persistence writes once per event-loop turn
  const store = readStore(fs.home);
  if (store.integrity !== 'ok') findings.add('state', 'cluster integrity', `PRAGMA integrity_check: ${store.integrity}`);
  const root = `aksemu:k8s${t.clusterId.toLowerCase()}/`;
  for (const { key, value } of store.entries) {
    if (!key.toLowerCase().startsWith(root)) continue;
    const [, resource, ns, ...rest] = key.slice(root.length).split('/');
    const name = rest.join('/');
    if (!resource || !WATCHED.has(resource)) continue;
    const problem = kubeObjectProblem(value);
    if (problem)
      findings.add(
        'state',
        `stored invalid ${resource} ${problem.split(':')[0]}`,
        `stored ${resource} ${ns}/${name.slice(0, 60)} fails the apiserver's validation: ${problem}`,
      );
    const ours = (ns ?? '').startsWith('fz-') || name.startsWith('fz-');
    const owned =
      Array.isArray(value?.metadata?.ownerReferences) &&
      value.metadata.ownerReferences.some((o: any) => o?.controller === true && typeof o?.uid === 'string' && o.uid !== 'fz');
    const k = `${resource}/${ns ?? ''}/${name}`.toLowerCase();
    if (ours && !owned && !reported.has(k) && !uncertain.has(k))
      findings.add('state', `unreported ${resource}`, `stored though no 2xx answer reported it: ${resource} ${ns}/${name.slice(0, 80)}`);
  }
  const auth = { authorization: `Bearer ${t.token}`, accept: 'application/json;as=Table;v=v1;g=meta.k8s.io, application/json' };
  for (const p of ['/api/v1/nodes', '/api/v1/pods', '/apis/apps/v1/deployments', '/api/v1/namespaces', `/api/v1/namespaces/${NAMESPACES[0]}/configmaps`]) {
    const r = await t.client.send({ method: 'GET', path: p, headers: auth });
    if (r.status !== 200)
      findings.add('state', `list ${p}`, `after the run, GET ${p} (as kubectl get) answers ${r.outcome} ${r.status}: ${r.text.slice(0, 160)}`);
  }
  for (const [label, headers] of [
    ['no token', {}],
    ['a wrong token', { authorization: `Bearer ${'0'.repeat(64)}` }],
  ] as const) {
    const r = await t.client.send({ method: 'GET', path: '/api/v1/nodes', headers });
    if (r.status !== 401)
      findings.add(
        'auth',
        `cluster after run ${label}`,
        `after the run, the cluster API answers GET /api/v1/nodes with ${label}: ${r.outcome} ${r.status}, not 401`,
      );
  }
}

export async function runClusterFuzz(options: FuzzOptions): Promise<FuzzResult> {
  const concurrency = options.concurrency ?? 4;
  const findings = new Findings(options.seed);
  const figures = newFigures();
  const fs = options.server ?? (await FuzzServer.start(concurrency));
  const reported = new Set<string>();
  const uncertain = new Set<string>();
  // On a server the ARM fuzzer has had (npm run soak), a group of its own: the ARM fuzzer moves and deletes its groups.
  const [name, group] = options.server ? ['fz-k1', 'fz-soak'] : ['fz-k0', FIXTURE_GROUP];
  let t = await createCluster(fs, name, concurrency, group);
  try {
    await clusterFixtures(t, reported);
    const health = async (): Promise<Health> => {
      const h = await fs.health();
      if (!h.ok) return h;
      const r = await t.client.send({ method: 'GET', path: '/healthz', headers: { authorization: `Bearer ${t.token}` } });
      if (r.outcome === 'timeout') return { ok: false, kind: 'hang', detail: 'cluster API stopped answering (/healthz hung)' };
      if (r.status !== 200) return { ok: false, kind: 'crash', detail: `cluster API /healthz answers ${r.outcome} ${r.status}` };
      return { ok: true };
    };
    const reconnect = async () => {
      t.client.close();
      t = await connectCluster(fs, t.clusterId, concurrency);
    };
    const campaign: Campaign = {
      name: 'cluster API fuzz',
      total: options.total,
      concurrency,
      batch: 100,
      deadlineMs: options.deadlineMs ?? 120_000,
      generate: (i) => generateCluster(options.seed, i, { token: t.token, nodes: t.nodes }),
      client: () => t.client,
      judge: (sent, res) => judgeCluster(fs, findings, sent, res),
      observe: (sent, res) => {
        const json = parseJson(res.text) as any;
        if (res.outcome !== 'response' || res.status >= 500) {
          // Unknown outcome (or a 5xx): whatever the body named may or may not exist; a 5xx that stored it is still caught by listing after.
          if (res.outcome !== 'response' && sent.base) {
            const obj = applyMutations(sent.base, sent.mutations ?? []) as any;
            const k = objectKey(sent, obj);
            if (k) uncertain.add(k);
          }
          return;
        }
        if (res.status < 300 && sent.wire.method !== 'GET' && sent.wire.method !== 'DELETE') {
          const k = objectKey(sent, json);
          if (k) reported.add(k);
        }
      },
      health,
      recover: async (why) => {
        if (await fs.restart()) {
          try {
            await reconnect();
            if ((await health()).ok) return true;
          } catch {
            // fall through: the cluster did not come back
          }
        }
        findings.add('restart', 'cluster', `the server or the cluster API did not come back on its own store after: ${why}`);
        await fs.fresh();
        t.client.close();
        t = await createCluster(fs, name, concurrency, group);
        reported.clear();
        await clusterFixtures(t, reported);
        return true;
      },
    };
    await drive(campaign, findings, figures);
    // A polluted (or stalled) process is restarted for the run-level checks; pollution is already reported.
    if (!(await health()).ok && (await fs.restart())) await reconnect().catch(() => undefined);
    if ((await health()).ok) {
      await checkClusterState(fs, t, reported, uncertain, findings);
      await confirmStalls(findings, fs);
      await shrinkAll(
        findings,
        options.shrinkClasses ?? 12,
        (s) => replay(s, (f, sent, res) => judgeCluster(fs, f, sent, res), t.client),
        (s, muts) => ({
          ...s,
          wire: { ...s.wire, body: serialize(applyMutations(s.base!, muts)) },
          mutations: muts,
          labels: muts.map((m) => m.label),
        }),
      );
      // The cluster must come back from its store: a stored object that breaks loading takes its API down for good.
      // (On a shared server the soak restarts once, after every run.)
      const back =
        options.server !== undefined ||
        ((await fs.restart(true)) &&
          (await reconnect().then(
            () => true,
            () => false,
          )) &&
          (await health()).ok);
      if (!back)
        findings.add('restart', 'cluster-final', 'after a clean restart at the end of the run, the server or the cluster API did not come back healthy');
      else {
        const arm = await armCall(fs.client, fs.token, 'GET', `${t.clusterId}?api-version=2022-11-01`);
        if (arm.json?.properties?.provisioningState !== 'Succeeded')
          findings.add('state', 'cluster state', `after the run the cluster is ${arm.json?.properties?.provisioningState}`);
      }
    }
  } finally {
    t.client.close();
    if (!options.server) await fs.close();
  }
  return { findings, figures, summary: figuresLine('cluster API fuzz', figures) };
}
