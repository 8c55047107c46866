// The dashboard's event hub finds a cluster's API within a second of its start; a page that read the cluster before
// then must hear of it even when the API changes nothing after it is found (CI caught this under load: the cluster
// page stayed without its nodes).
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import type { ClusterApis } from '../../src/cluster/server.js';
import { EventHub } from '../../src/dashboard/events.js';
import { CLUSTER_API_PREFIX } from '../../src/store/keys.js';
import type { ChangeFeed } from '../../src/store/observed.js';
import type { Store } from '../../src/store/store.js';

const CLUSTER = '/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/c';

/** A response that keeps what is written to it. */
class Sink extends EventEmitter {
  written = '';
  writableEnded = false;
  writeHead(): this {
    return this;
  }
  write(text: string): boolean {
    this.written += text;
    return true;
  }
  end(): void {
    this.writableEnded = true;
    this.emit('close');
  }
}

test('a cluster API found after a page read it is announced once, though it changes nothing afterwards', async () => {
  let started = false;
  let subscribed = 0;
  const store = {
    list: (prefix: string) => (started && prefix === CLUSTER_API_PREFIX ? [{ key: `${CLUSTER_API_PREFIX}x`, value: { clusterId: CLUSTER } }] : []),
    onCommit: () => () => {},
  } as unknown as Store & ChangeFeed;
  // An object store that never changes once watched: the nodes were made before the hub looked.
  const objects = {
    subscribe: () => {
      subscribed++;
      return () => {};
    },
  };
  const apis = { runtimeOf: (id: string) => (started && id === CLUSTER ? { objects } : undefined) } as unknown as ClusterApis;
  const hub = new EventHub(store, apis);
  const res = new Sink();
  try {
    assert.ok(hub.open('session', res as unknown as ServerResponse));
    started = true;
    const deadline = Date.now() + 5000;
    while (!res.written.includes('event: change') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(subscribed, 1, 'the hub watches the API it found');
    const events = res.written.split('\n\n').filter((e) => e.startsWith('event: change'));
    assert.equal(events.length, 1, res.written);
    assert.deepEqual(JSON.parse(events[0]!.split('data: ')[1]!), { arm: [], clusters: [CLUSTER] });
    // Found once, announced once: later looks at the same API say nothing more.
    await new Promise((r) => setTimeout(r, 1300));
    assert.equal(res.written.split('\n\n').filter((e) => e.startsWith('event: change')).length, 1);
  } finally {
    hub.close();
  }
});
