// A measurement, not a test (issue 11, defect 7): how long the event loop is blocked, and how long a
// concurrent GET waits, while a resource group of N clusters is deleted. Does nothing unless given N:
//   node dist/test/arm/group-delete-stall.js 220 3      # 220 clusters of 3 nodes (minutes to build)
import { arm, pathOf, type Reply } from './helpers.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';

/** Polls a URL the server handed out until done() holds (the helpers' polls give up after ~2 s). */
async function poll(server: TestServer, url: unknown, done: (res: Reply) => boolean): Promise<Reply> {
  for (;;) {
    const res = await arm(server, 'GET', pathOf(url));
    if (done(res)) return res;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function measure(clusters: number, nodes: number): Promise<void> {
  const home = tempHome();
  const server = await startTestServer({ home });
  try {
    const group = `/subscriptions/${server.identity.subscriptionId}/resourceGroups/big`;
    await arm(server, 'PUT', `${group}?api-version=2021-04-01`, { body: { location: 'eastus' } });
    const started = Date.now();
    for (let i = 0; i < clusters; i += 10) {
      const batch = Array.from({ length: Math.min(10, clusters - i) }, (_, k) =>
        arm(server, 'PUT', `${group}/providers/Microsoft.ContainerService/managedClusters/c${i + k}?api-version=2022-11-01`, {
          body: {
            location: 'eastus',
            identity: { type: 'SystemAssigned' },
            properties: {
              dnsPrefix: `c${i + k}`,
              agentPoolProfiles: [{ name: 'nodepool1', count: nodes, vmSize: 'Standard_DS2_v2', mode: 'System', osType: 'Linux' }],
              networkProfile: { networkPlugin: 'kubenet' },
            },
          },
        }).then((res) => poll(server, res.headers['azure-asyncoperation'], (op) => op.body?.status !== 'InProgress')),
      );
      await Promise.all(batch);
    }
    // Each cluster's API comes up after its create commits (with a key pair of its own): wait for all.
    const ids = server.store.list(`${group}/providers/Microsoft.ContainerService/managedClusters/`, { children: true }).map((e) => e.key);
    while (ids.some((id) => server.clusterApis.urlOf(id) === undefined)) await new Promise((r) => setTimeout(r, 50));
    console.log(`created ${clusters} clusters of ${nodes} nodes in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    // The longest gap between 1 ms ticks is the longest the event loop was blocked.
    let last = performance.now();
    let longestBlock = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      longestBlock = Math.max(longestBlock, now - last);
      last = now;
    }, 1);
    let probing = true;
    let longestGet = 0;
    const probe = (async () => {
      while (probing) {
        const t = performance.now();
        await arm(server, 'GET', `/subscriptions/${server.identity.subscriptionId}?api-version=2021-04-01`);
        longestGet = Math.max(longestGet, performance.now() - t);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const t0 = Date.now();
    const del = await arm(server, 'DELETE', `${group}?api-version=2021-04-01`);
    const result = await poll(server, del.headers['location'], (res) => res.status !== 202);
    const deleteMs = Date.now() - t0;
    await new Promise((r) => setTimeout(r, 1500)); // what follows the commits: cluster APIs going away
    probing = false;
    await probe;
    clearInterval(ticker);
    console.log(
      `delete ${result.status} in ${deleteMs} ms; longest event-loop block ${longestBlock.toFixed(0)} ms; longest concurrent GET ${longestGet.toFixed(0)} ms`,
    );
  } finally {
    await server.close();
    removeHome(home);
  }
}

const [clusters, nodes] = process.argv.slice(2).map(Number);
if (clusters) await measure(clusters, nodes || 1);
