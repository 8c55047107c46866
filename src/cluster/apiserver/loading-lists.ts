// The lists a cluster answers while its objects load after a restart (cluster/server.ts): a list with a limit and no
// resourceVersion, and every continuation of one, which the real apiserver reads from etcd rather than from its
// watch cache (what `kubectl get pods -A` asks, 500 at a time). Here the saved rows are that etcd: nothing writes a
// cluster's rows while they load, so a page is read from them in key order, each row checked as the load checks it,
// and answered through the list's own checks, paging and printing (api.ts): the bytes the loaded store would give
// at the same revision, with a continue token the loaded store takes up. `/version` needs no object and is answered
// too: the kubectl on this image asks it first to pick its build (docs/clients.md), and so are the discovery documents,
// from the saved CRDs (a kubectl without a discovery cache asks them next). Anything else waits for the load.
import { findResource, resourceKey } from '../apimachinery/resources.js';
import { KubeError } from '../apimachinery/status.js';
import { type ApiRequest, type BodyResponse, versionInfo, listResponse, listSelector, selecting, parseResourcePath, pathSegments, type Target } from './api.js';
import { CRDS, ServedKinds } from './catalog.js';
import { discoveryAnswer, isDiscoveryPath } from './discovery.js';
import { behaviourOf } from './kinds.js';
import { pageQuery, pageRows } from './paging.js';
import type { ObjectPersistence } from './storage/persistence.js';
import { FIRST_REVISION } from './storage/store.js';
import type { KubeObject } from '../apimachinery/object.js';

/** The rows a page may read during the load: a selector that few rows match waits for the load instead. */
const MOST_ROWS = 5_000;

/** Names whose byte order is the stored rows' order (the store's keys are compared lower-cased): DNS names only. */
const ORDERED_NAMES = /^[a-z0-9.-]*\/[a-z0-9.-]*$/;

/** The built-in kinds: a custom kind's path is known once its CRD is loaded. */
const BUILT_IN = { find: findResource, behaviourOf };

/** A cluster whose objects are loading, as its requests are answered meanwhile (one record per load). */
export interface LoadingCluster {
  persistence: ObjectPersistence;
  /** The Kubernetes version the cluster reports (its record's): `/version` needs no object. */
  kubernetesVersion: string;
}

/** A page read from the rows too far, or from rows the store would order otherwise: the load answers it instead. */
class NotFromRows extends Error {}

/**
 * The answer to `req` from the saved rows of a cluster whose objects are loading, or undefined when it must wait for
 * the load (a watch, a get, a write, a whole list, a resourceVersion asked for, a custom kind). A request the loaded
 * cluster would refuse (a bad limit, continue token or selector) gets the same Status now.
 */
export function answerWhileLoading(loading: LoadingCluster, req: ApiRequest): BodyResponse | undefined {
  const { persistence: rows, kubernetesVersion } = loading;
  const q = req.query;
  if (req.method === 'GET' && req.path === '/version') return { status: 200, body: versionInfo(kubernetesVersion), contentType: 'application/json' };
  if (req.method !== 'GET' || q.get('watch') === 'true' || q.get('watch') === '1') return undefined;
  try {
    const segments = pathSegments(req.path);
    if (isDiscoveryPath(segments)) return discoveryAnswer(savedKinds(loading), segments, req.accept);
    if (q.get('resourceVersion') || q.has('resourceVersionMatch') || !(q.get('limit') || q.get('continue'))) return undefined;
    const t = parseResourcePath(BUILT_IN, segments);
    if (!t || !fromRows(t)) return undefined;
    const selector = listSelector(t, q, kubernetesVersion);
    const { limit, start } = pageQuery(q);
    if (limit <= 0 || (start !== undefined && !ORDERED_NAMES.test(start))) return undefined;
    const bucket = resourceKey(t.r);
    const within = t.r.namespaced && t.namespace !== undefined ? `${t.namespace}/` : '';
    const stored = rows.stored(bucket, within, start, Math.min(limit + 1, 1_000));
    const revision = Math.max(FIRST_REVISION, stored.revision);
    let read = 0;
    const next = (): IteratorResult<[string, KubeObject]> => {
      const row = stored.next();
      if (!row.done && (++read > MOST_ROWS || !ORDERED_NAMES.test(row.value[0]))) throw new NotFromRows();
      return row;
    };
    const chunk = pageRows({ next }, selecting(selector), limit, revision, (last) => rows.countAfter(bucket, within, last));
    return listResponse(t, chunk, revision, req);
  } catch (e) {
    if (e instanceof KubeError) return { status: e.code, body: e.toStatus(), contentType: 'application/json' };
    // Rows the store would order otherwise or hold under another name (NotFromRows, OutOfPlace), or a row that does
    // not parse: the load answers the request, as it answered every request before pages were read from the rows.
    return undefined;
  }
}

/** A list of the kind is its saved rows as they are: a collection of a kind kept as written, not made at start. */
function fromRows(t: Target): boolean {
  if (t.name !== undefined || t.subresource !== undefined || t.kind.computed || t.kind.storage === 'derived' || t.r === CRDS) return false;
  return t.r.nameRule === undefined || t.r.nameRule === 'subdomain' || t.r.nameRule === 'label' || t.r.nameRule === 'dns1035';
}

/** The CRDs a discovery document may read during the load: more wait for it. */
const MOST_CRDS = 2_000;

/**
 * The kinds of each loading cluster's saved CRDs, read once: nothing writes its rows while they load. Kept by the
 * load's own record, so they go with it when the cluster serves.
 */
const SAVED_KINDS = new WeakMap<LoadingCluster, ServedKinds>();

/** The kinds the loaded cluster will serve: the built-in ones and its saved Established CRDs', each row checked as the load checks it. */
function savedKinds(loading: LoadingCluster): ServedKinds {
  let kinds = SAVED_KINDS.get(loading);
  if (kinds) return kinds;
  const crds: KubeObject[] = [];
  const stored = loading.persistence.stored(resourceKey(CRDS), '', undefined, 500);
  for (let row = stored.next(); !row.done; row = stored.next()) {
    if (crds.length === MOST_CRDS) throw new NotFromRows();
    crds.push(row.value[1]);
  }
  kinds = new ServedKinds(crds);
  SAVED_KINDS.set(loading, kinds);
  return kinds;
}
