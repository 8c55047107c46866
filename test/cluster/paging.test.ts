// Paged lists read from the store's sorted keys (paging.ts pageKeys) give the pages the list-and-slice reading gives
// (page): the same items, continue tokens and remainingItemCount, in a namespace or across all, with and without a
// selector; and the keys stay sorted as objects come and go.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { page, pageKeys } from '../../src/cluster/apiserver/paging.js';
import { keyRange, ObjectStore } from '../../src/cluster/apiserver/storage/store.js';
import { CONFIGMAPS } from '../../src/cluster/apimachinery/resources.js';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';

test('pages from sorted keys are the pages of the listed objects, token for token', () => {
  const store = new ObjectStore();
  const namespaces = ['a', 'b-x', 'b', 'kube-system', 'z'];
  for (let i = 0; i < 300; i++) {
    const ns = namespaces[(i * 7) % namespaces.length]!;
    store.put(CONFIGMAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${(i * 37) % 1000}`, namespace: ns, labels: { even: String(i % 2 === 0) } },
    });
  }
  for (let i = 0; i < 300; i += 9) store.delete(CONFIGMAPS, namespaces[(i * 7) % namespaces.length], `cm-${(i * 37) % 1000}`);
  const even = (o: KubeObject) => o.metadata.labels?.['even'] === 'true';
  for (const ns of [undefined, 'b', 'kube-system', 'none']) {
    for (const matches of [undefined, even]) {
      for (const limit of ['', '1', '7', '50', '500']) {
        const keys = store.keys(CONFIGMAPS);
        const [from, to] = ns === undefined ? [0, keys.length] : keyRange(keys, `${ns}/`);
        const source = { keys, from, to, get: (k: string) => store.byKey(CONFIGMAPS, k)! };
        const all = store.list(CONFIGMAPS, ns);
        const listed = all.filter((o) => !matches || matches(o));
        let cont = '';
        let seen = 0;
        for (let pages = 0; pages < 400; pages++) {
          const query = new URLSearchParams(`limit=${limit}${cont ? `&continue=${cont}` : ''}`);
          const want = page(all, query, 7, matches);
          const got = pageKeys(source, matches, query, 7);
          // As the apiserver: what is left is counted only when nothing is selected.
          if (got.continue) assert.equal(got.remainingItemCount, matches ? undefined : listed.length - seen - got.items.length);
          assert.deepEqual(
            { ...got, items: got.items.map((o) => o.metadata.name) },
            { ...want, items: want.items.map((o) => o.metadata.name) },
            `ns ${ns} limit ${limit} page ${pages}`,
          );
          seen += got.items.length;
          if (!got.continue) break;
          cont = got.continue;
        }
        assert.equal(seen, listed.length);
      }
    }
  }
});
