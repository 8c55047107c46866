// The dashboard's operations while they run (docs/dashboard.md §3): a create started with `--no-wait` is listed
// InProgress with no end, then, when it ends, a change event names the cluster and the list says Succeeded with its
// end time. The server's operations are held back 3 s before they run (lroDelayMs) so the test sees them running.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { azOk } from '../az/helpers.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { apiOk, nextEvent, signIn } from './helpers.js';

let server: TestServer;
let home: string;
let cookie: string;

before(async () => {
  home = tempHome();
  server = await startTestServer({ home, lroDelayMs: 3000 });
  cookie = await signIn(server);
  await azOk(home, ['group', 'create', '-l', 'eastus', '-n', 'opsRG', '-o', 'none']);
});

after(async () => {
  await server?.close();
  removeHome(home);
});

test('an operation is listed InProgress while it runs, and Succeeded with its end once a change event says it ended', async () => {
  const id = `/subscriptions/${server.identity.subscriptionId}/resourceGroups/opsRG/providers/Microsoft.ContainerService/managedClusters/slow`;
  const same = (a: string) => a.toLowerCase() === id.toLowerCase();
  const ended = nextEvent(server, cookie, (d) => d.arm.some(same), 60_000);
  await ended.ready;
  await azOk(home, ['aks', 'create', '-g', 'opsRG', '-n', 'slow', '--network-plugin', 'kubenet', '-c', '1', '--generate-ssh-keys', '--no-wait', '-o', 'none']);

  const running = (await apiOk(server, cookie, 'overview')).operations.find((o: { resourceId: string }) => same(o.resourceId));
  assert.ok(running, 'the create is listed at once');
  assert.deepEqual([running.kind, running.status, running.name, running.endTime], ['create', 'InProgress', 'slow', undefined]);
  const inGroup = (await apiOk(server, cookie, 'group?name=opsRG')).operations ?? [];
  assert.ok(
    inGroup.some((o: { id: string; status: string }) => o.id === running.id && o.status === 'InProgress'),
    `the group lists it too: ${JSON.stringify(inGroup)}`,
  );

  await ended.seen;
  // The event may come for the accepted PUT first: the list is read until the operation has ended.
  let done: { status: string; endTime?: string } | undefined;
  for (const until = Date.now() + 30_000; Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
    done = (await apiOk(server, cookie, 'overview')).operations.find((o: { id: string }) => o.id === running.id);
    if (done?.status !== 'InProgress') break;
  }
  assert.equal(done?.status, 'Succeeded');
  assert.ok(done.endTime && Date.parse(done.endTime) >= Date.parse(running.startTime), 'an end after the start');
});
