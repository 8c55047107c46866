// The Kubernetes API of one cluster, independent of HTTP: /version, discovery, OpenAPI, and list / get /
// watch / create / update / patch / delete on every served resource, with Tables when kubectl asks for them.
import { parseBody } from './body.js';
import { catalogOf, type Catalog } from './catalog.js';
import type { ClusterRecord } from '../../model/cluster-records.js';
import { discoveryAnswer } from './discovery.js';
import { clone, type KubeObject } from '../apimachinery/object.js';
import type { ObjectStore } from './storage/store.js';
import { openApiDoc, openApiIndex } from './openapi.js';
import { openApiV2Document, OPENAPI_V2_PROTOBUF } from './openapi-v2.js';
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { jsonPatch, mergePatch, strategicMergePatch } from './patch.js';
import { serverSideApply } from './apply/apply.js';
import { managerName, recordUpdate, type Writer } from './apply/managed-fields.js';
import { checkPatchOptions, checkPreconditions, checkResourceVersionMatches, checkUpdate, deleteOptions, isDryRun } from './write-options.js';
import { deleteObject, finishIfDue } from './deletion.js';
import { k8sTime } from '../apimachinery/time.js';
import { isPlainObject, own } from '../../http/own.js';
import { type Page, page, pageKeys } from './paging.js';
import { keyRange } from './storage/store.js';
import type { KindBehaviour, KindHost } from './kind-behaviour.js';
import { defaultPrinter } from './printers.js';
import { groupVersion, NAMESPACES, PODS, SERVICEACCOUNTS, type ResourceType } from '../apimachinery/resources.js';
import { requestToken } from './token-request.js';
import { type LogReader, podLog, type StreamSink } from './pod-logs.js';
import { parseSelector, selects, type Selector } from '../apimachinery/selectors.js';
import { kindSelector, METADATA_ONLY } from './field-labels.js';
import {
  alreadyExists,
  badRequest,
  fieldError,
  invalidObject,
  KubeError,
  methodNotSupported,
  notFound,
  pathNotFound,
  successStatus,
} from '../apimachinery/status.js';
import { includeObjectOf, table, wantsTable, watchTable } from './tables.js';
import { openWatch, type WatchEvent, type WatchSink } from './watch.js';
import { WatchMetrics, type WatchResponse } from './watch-stream.js';
import { admitDeletion, mutate, validateCreate } from './admission/plugins.js';
import { randomSuffix } from '../apimachinery/generated-names.js';
import { checkDepth, checkObjectSize } from './validation/limits.js';
import { checkMetadata, checkShape, decodeBody } from './validation/object.js';

export interface ApiRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  accept?: string;
  contentType?: string;
  body?: string;
  /** The body's bytes, for binary media types (protobuf); body is their UTF-8 reading. */
  bytes?: Uint8Array;
  /** The client's User-Agent: names the field manager of a write that names none. */
  userAgent?: string;
}

/** A response with a JSON body (a Status, an object, a list). */
export interface BodyResponse {
  status: number;
  body: unknown;
  contentType: string;
}

export type ApiResponse =
  | { status: number; body: unknown; contentType?: string; text?: undefined; warnings?: readonly string[] }
  | { status: number; text: string; contentType: string; body?: undefined; warnings?: readonly string[] }
  | WatchResponse
  | { stream: (sink: StreamSink) => { stop(): void }; contentType: string };

export function versionInfo(version: string): Record<string, string> {
  const [major, minor] = version.split('.');
  return {
    major: major!,
    minor: minor!,
    gitVersion: `v${version}`,
    gitCommit: '8e5a1bf8e5a1bf8e5a1bf8e5a1bf8e5a1bf8e5a1'.slice(0, 40),
    gitTreeState: 'clean',
    buildDate: '2025-09-10T09:13:31Z',
    goVersion: 'go1.23.12',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

export interface Target {
  r: ResourceType;
  /** How r's kind behaves (kinds.ts). */
  kind: KindBehaviour;
  namespace?: string;
  name?: string;
  subresource?: string;
}

/** /api/v1/... or /apis/{g}/{v}/... → what it names in the catalog; undefined when it is not a resource path. */
export function parseResourcePath(catalog: Pick<Catalog, 'find' | 'behaviourOf'>, segments: string[]): Target | undefined {
  let group = '';
  let version: string;
  let rest: string[];
  if (segments[0] === 'api' && segments.length >= 3) {
    version = segments[1]!;
    rest = segments.slice(2);
  } else if (segments[0] === 'apis' && segments.length >= 4) {
    group = segments[1]!;
    version = segments[2]!;
    rest = segments.slice(3);
  } else return undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    const r = catalog.find(group, version, rest[2]!);
    if (r && r.namespaced) {
      if (rest.length > 5) return undefined;
      return { r, kind: catalog.behaviourOf(r), namespace: rest[1]!, ...(rest[3] ? { name: rest[3] } : {}), ...(rest[4] ? { subresource: rest[4] } : {}) };
    }
  }
  const r = catalog.find(group, version, rest[0]!);
  if (!r || rest.length > 3) return undefined;
  return { r, kind: catalog.behaviourOf(r), ...(rest[1] ? { name: rest[1] } : {}), ...(rest[2] ? { subresource: rest[2] } : {}) };
}

function json(status: number, body: unknown, contentType = 'application/json'): ApiResponse {
  return { status, body, contentType };
}

/**
 * What the API needs of the cluster it serves, and nothing more: the apiserver imports none of the components above
 * it (docs/architecture.md §10). The cluster's runtime (cluster.ts) is one.
 */
export interface ApiServerHost {
  readonly objects: ObjectStore;
  /** The cluster's settings: its Kubernetes version and service CIDR. */
  readonly record: ClusterRecord;
  readonly kubernetesVersion: string;
  /** The kubelets' container logs, which pods/log reads. */
  readonly workloads: { readonly logs: LogReader };
  /** The key service-account tokens are signed with (TokenRequest). */
  readonly serviceAccounts: { readonly key: Buffer };
}

export class ClusterApi {
  /** The kinds served: built-in and those the cluster's CRDs add (catalog.ts). */
  readonly catalog: Catalog;
  /** The request being handled asked for fieldValidation=Strict (handle is synchronous: one request at a time). */
  private strict = false;
  /** What /metrics reports: the watchers closed for not reading (watch-stream.ts). */
  readonly watchMetrics = new WatchMetrics();

  constructor(readonly runtime: ApiServerHost) {
    this.catalog = catalogOf(runtime.objects);
  }

  private get objects() {
    return this.runtime.objects;
  }

  handle(req: ApiRequest): ApiResponse {
    this.strict = req.query.get('fieldValidation') === 'Strict';
    try {
      return this.route(req);
    } catch (e) {
      if (e instanceof KubeError) return json(e.code, e.toStatus());
      throw e;
    }
  }

  private route(req: ApiRequest): ApiResponse {
    const segments = pathSegments(req.path);
    const path = `/${segments.join('/')}`;
    const version = this.runtime.kubernetesVersion;
    if (req.method === 'GET') {
      switch (path) {
        case '/version':
          return json(200, versionInfo(version));
        case '/healthz':
        case '/livez':
        case '/readyz':
          return { status: 200, text: 'ok', contentType: 'text/plain; charset=utf-8' };
        case '/metrics':
          return { status: 200, text: this.watchMetrics.text(), contentType: 'text/plain; version=0.0.4; charset=utf-8' };
        case '/openapi/v3':
          return json(200, openApiIndex(this.catalog, version));
        case '/openapi/v2':
          return json(200, openApiV2Document(version), OPENAPI_V2_PROTOBUF);
      }
      if (segments[0] === 'openapi' && segments[1] === 'v3') {
        const doc =
          segments[2] === 'api'
            ? openApiDoc(this.catalog, '', segments[3] ?? '', version)
            : openApiDoc(this.catalog, segments[3] ?? '', segments[4] ?? '', version);
        if (doc) return { status: 200, text: doc, contentType: 'application/json' };
        throw pathNotFound();
      }
      const discovery = discoveryAnswer(this.catalog, segments, req.accept);
      if (discovery) return discovery;
    }
    const target = parseResourcePath(this.catalog, segments);
    if (!target) throw pathNotFound();
    if (target.r === PODS && target.subresource === 'log' && req.method === 'GET')
      return podLog(this.objects, this.runtime.workloads.logs, target.namespace!, target.name!, req.query);
    if (target.r === PODS && ['exec', 'attach', 'portforward'].includes(target.subresource ?? '') && target.name !== undefined) {
      // Served upgraded (kubelet/exec/upgrade.ts); a plain request gets the kubelet's answer once the pod is found.
      if (!this.objects.get(PODS, target.namespace, target.name)) throw notFound('pods', '', target.name);
      if (req.method !== 'GET' && req.method !== 'POST') throw methodNotSupported(req.method, `pods/${target.subresource}`);
      throw badRequest('Upgrade request required');
    }
    if (target.r === SERVICEACCOUNTS && target.subresource === 'token' && target.name !== undefined) {
      if (req.method !== 'POST') throw methodNotSupported(req.method, 'serviceaccounts/token');
      return json(201, requestToken(this.objects, this.runtime.serviceAccounts.key, target.namespace!, target.name, parseBody(req)));
    }
    if (target.subresource !== undefined && !(target.r.subresources ?? []).includes(target.subresource)) throw pathNotFound();
    switch (req.method) {
      case 'GET':
        if (target.name === undefined) {
          const w = req.query.get('watch');
          return w === 'true' || w === '1' ? this.watch(target, req) : this.list(target, req);
        }
        return this.get(target, req);
      case 'POST':
        if (target.name !== undefined) throw methodNotSupported('POST', target.r.resource);
        return warned(target, this.create(target, req));
      case 'PUT':
        if (target.name === undefined) throw methodNotSupported('PUT', target.r.resource);
        return warned(target, this.update(target, req));
      case 'PATCH':
        if (target.name === undefined) throw methodNotSupported('PATCH', target.r.resource);
        return warned(target, this.patch(target, req));
      case 'DELETE':
        if (target.name === undefined) throw methodNotSupported('DELETE', target.r.resource);
        return this.remove(target, req);
      default:
        throw methodNotSupported(req.method, target.r.resource);
    }
  }

  private current(t: Target): KubeObject[] {
    return t.kind.computed?.(this.objects, t.namespace) ?? this.objects.list(t.r, t.r.namespaced ? t.namespace : undefined);
  }

  private lookup(t: Target): KubeObject | undefined {
    const computed = t.kind.computed?.(this.objects, t.namespace);
    if (computed) return computed.find((o) => o.metadata.name === t.name);
    return this.objects.get(t.r, t.namespace, t.name!);
  }

  /** What the kind's hooks may use of this cluster. */
  private host(t: Target): KindHost {
    return {
      objects: this.objects,
      serviceNetwork: () => ({ serviceCidr: this.runtime.record.resolved.network.serviceCidr }),
      kubernetesVersion: () => this.runtime.kubernetesVersion,
      write: (obj) => this.store(t, obj),
    };
  }

  /** The kind's scale subresource (the route has checked the kind serves one). */
  private scale(t: Target) {
    if (!t.kind.scale) throw pathNotFound();
    return t.kind.scale;
  }

  private list(t: Target, req: ApiRequest): ApiResponse {
    const selector = listSelector(t, req.query, this.runtime.kubernetesVersion);
    const rv = this.objects.resourceVersion;
    const chunk = t.kind.computed ? page(this.current(t), req.query, rv, selecting(selector)) : this.pageStored(t, selector, req.query, rv);
    return listResponse(t, chunk, rv, req);
  }

  /** A page of stored objects, read from the store's sorted keys. */
  private pageStored(t: Target, selector: Selector, query: URLSearchParams, rv: number) {
    const keys = this.objects.keys(t.r);
    const [from, to] = t.r.namespaced && t.namespace !== undefined ? keyRange(keys, `${t.namespace}/`) : [0, keys.length];
    const byKey = this.objects.byKeyOf(t.r);
    const source = { keys, from, to, get: (k: string) => byKey(k)! };
    return pageKeys(source, selecting(selector), query, rv);
  }

  private get(t: Target, req: ApiRequest): ApiResponse {
    const obj = this.lookup(t);
    if (!obj) throw notFound(t.r.resource, t.r.group, t.name!);
    const out = viewOf(t, obj);
    if (t.subresource === 'scale') return json(200, this.scale(t).read(out));
    if (wantsTable(req.accept) && t.subresource === undefined) {
      return json(
        200,
        table(printerOf(t), [out], includeObjectOf(req.query), { resourceVersion: out.metadata.resourceVersion }),
        'application/json;as=Table;v=v1;g=meta.k8s.io',
      );
    }
    return json(200, out);
  }

  private watch(t: Target, req: ApiRequest): ApiResponse {
    checkResourceVersion(t, req.query);
    const sendInitialEvents = checkWatchOptions(req.query, this.runtime.kubernetesVersion);
    const selector = selectorOf(t, req.query, this.runtime.kubernetesVersion);
    const asTable = wantsTable(req.accept);
    const include = includeObjectOf(req.query);
    // setTimeout holds at most 2^31-1 ms; a longer timeout would fire at once.
    const timeout = Math.min(Number(req.query.get('timeoutSeconds') ?? ''), 2_147_483);
    const printer = printerOf(t);
    const r = t.r;
    return {
      contentType: asTable ? 'application/json;as=Table;v=v1;g=meta.k8s.io' : 'application/json',
      resource: `${r.group}/${r.resource}`,
      watch: (sink) => {
        let first = true;
        const tableSink: WatchSink = {
          send: (e: WatchEvent) => {
            if (e.type === 'ERROR' || e.type === 'BOOKMARK') return sink.send(e);
            const body = watchTable(printer, e.object as KubeObject, include, first);
            first = false;
            sink.send({ type: e.type, object: body });
          },
          close: () => sink.close(),
        };
        return openWatch(
          this.objects,
          r,
          t.namespace,
          selector,
          {
            resourceVersion: req.query.get('resourceVersion'),
            ...(Number.isFinite(timeout) && timeout > 0 ? { timeoutSeconds: timeout } : {}),
            allowBookmarks: req.query.get('allowWatchBookmarks') === 'true',
            ...(sendInitialEvents !== undefined ? { sendInitialEvents } : {}),
            view: (o) => viewOf(t, o),
          },
          asTable ? tableSink : sink,
        );
      },
    };
  }

  private checkNamespace(t: Target): void {
    if (!t.r.namespaced) return;
    if (!this.objects.get(NAMESPACES, undefined, t.namespace!)) throw notFound('namespaces', '', t.namespace!);
  }

  /**
   * A written object as the apiserver admits it, or its error: the body decodes into the kind's types (400),
   * names the object the URL names (400), and its metadata validates (422). Clients do not set the uid,
   * creation or deletion times (rest.BeforeCreate / BeforeUpdate): new objects lose them, others keep the
   * stored ones. `name` is the URL's; `existing` the stored object an update replaces.
   */
  private admit(t: Target, body: unknown, name?: string, existing?: KubeObject): KubeObject {
    if (!isPlainObject(body)) throw badRequest('the body of the request must be an object');
    checkDepth(body);
    if (t.kind.decode) t.kind.decode(body, this.strict);
    else decodeBody(t.r, body);
    const obj = clone(body) as KubeObject;
    obj.metadata ??= { name: '' };
    const generateName = obj.metadata['generateName'];
    if (!obj.metadata.name && typeof generateName === 'string' && generateName) obj.metadata.name = `${generateName}${randomSuffix()}`;
    if (name !== undefined && obj.metadata.name && obj.metadata.name !== name) {
      throw badRequest(`the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`);
    }
    if (name !== undefined) obj.metadata.name ||= name;
    if (!obj.metadata.name) throw new KubeError(422, 'Invalid', `${t.r.kind} "" is invalid: metadata.name: Required value: name or generateName is required`);
    if (t.r.namespaced) {
      if (obj.metadata.namespace && obj.metadata.namespace !== t.namespace)
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      obj.metadata.namespace = t.namespace!;
    } else delete obj.metadata.namespace;
    if (existing) checkUpdate(t.r, existing, obj);
    for (const k of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds']) {
      const kept = existing?.metadata[k];
      if (kept === undefined) delete obj.metadata[k];
      else obj.metadata[k] = kept;
    }
    delete obj.metadata.resourceVersion;
    checkMetadata(t.r, obj);
    obj.apiVersion = groupVersion(t.r);
    obj.kind = t.r.kind;
    return obj;
  }

  private create(t: Target, req: ApiRequest): ApiResponse {
    this.checkNamespace(t);
    const dryRun = isDryRun(req.query, 'CreateOptions');
    const obj = this.admit(t, parseBody(req));
    if (this.objects.get(t.r, t.namespace, obj.metadata.name)) throw alreadyExists(t.r.resource, t.r.group, obj.metadata.name);
    validateCreate(this.objects, t.r, t.namespace, obj.metadata.name);
    const next = this.defaults(t, obj, undefined);
    recordUpdate(undefined, next, this.writer(t, req));
    return json(201, this.store(t, next, dryRun));
  }

  /** Who writes, for managedFields: the request's field manager, the kind's version, the subresource. */
  private writer(t: Target, req: ApiRequest): Writer {
    return { manager: managerName(req.query, req.userAgent), apiVersion: groupVersion(t.r), ...(t.subresource ? { subresource: t.subresource } : {}) };
  }

  /**
   * Writes what the API admitted: refused when it is too large to store (limits.ts). A dry run answers with
   * what would be stored and stores nothing. A marked object whose last finalizer this write removed goes.
   */
  private store(t: Target, obj: KubeObject, dryRun = false): KubeObject {
    const bytes = checkObjectSize(obj);
    if (dryRun) return viewOf(t, dryRunResult(this.objects.get(t.r, t.namespace, obj.metadata.name), obj));
    const stored = this.objects.put(t.r, obj, { bytes });
    finishIfDue(this.objects, t.r, stored);
    return viewOf(t, stored);
  }

  private update(t: Target, req: ApiRequest): ApiResponse {
    const dryRun = isDryRun(req.query, 'UpdateOptions');
    const existing = this.objects.get(t.r, t.namespace, t.name!);
    if (!existing) throw notFound(t.r.resource, t.r.group, t.name!);
    if (t.subresource === 'scale') return this.rescale(t, existing, parseBody(req), req, dryRun);
    const obj = this.admit(t, parseBody(req), t.name, existing);
    const next = subresourceWrite(t, existing, obj) ?? this.defaults(t, obj, existing);
    recordUpdate(existing, next, this.writer(t, req));
    return json(200, this.store(t, next, dryRun));
  }

  private patch(t: Target, req: ApiRequest): ApiResponse {
    const type = (req.contentType ?? '').split(';')[0]!.trim();
    const dryRun = isDryRun(req.query, 'PatchOptions');
    checkPatchOptions(req.query, type);
    const existing = this.objects.get(t.r, t.namespace, t.name!);
    const body = parseBody(req);
    if (type === 'application/apply-patch+yaml') return this.apply(t, req, existing, body, dryRun);
    if (!existing) throw notFound(t.r.resource, t.r.group, t.name!);
    // The scale subresource is patched as a Scale, then written into its parent.
    const target = t.subresource === 'scale' ? this.scale(t).read(existing) : existing;
    let next: unknown;
    if (type === 'application/merge-patch+json') next = mergePatch(clone(target), body);
    else if (type === 'application/strategic-merge-patch+json') next = strategicMergePatch(clone(target), body);
    else if (type === 'application/json-patch+json') next = jsonPatch(target, body);
    else
      throw new KubeError(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`,
      );
    if (t.subresource === 'scale') return this.rescale(t, existing, next, req, dryRun);
    const obj = this.admit(t, next, t.name, existing);
    const patched = subresourceWrite(t, existing, obj) ?? this.defaults(t, obj, existing);
    recordUpdate(existing, patched, this.writer(t, req));
    return json(200, this.store(t, patched, dryRun));
  }

  /** Server-side apply (apiserver/apply/apply.ts): creates the object when there is none, as the apiserver does. */
  private apply(t: Target, req: ApiRequest, existing: KubeObject | undefined, body: unknown, dryRun: boolean): ApiResponse {
    if (!isPlainObject(body)) throw badRequest('the body of the request must be an object');
    if (!existing) {
      this.checkNamespace(t);
      validateCreate(this.objects, t.r, t.namespace, t.name!);
    }
    if (!existing && t.subresource !== undefined) throw notFound(t.r.resource, t.r.group, t.name!);
    const applied = serverSideApply(existing, stripManaged(body) as Record<string, unknown>, {
      manager: managerName(req.query, undefined),
      apiVersion: groupVersion(t.r),
      force: req.query.get('force') === 'true',
      ...(t.subresource ? { subresource: t.subresource } : {}),
    });
    const obj = this.admit(t, applied, t.name, existing);
    const next =
      (t.subresource === 'status' && existing ? { ...clone(existing), metadata: obj.metadata, status: obj['status'] } : undefined) ??
      (existing ? subresourceWrite(t, existing, obj) : undefined) ??
      this.defaults(t, obj, existing);
    return json(existing ? 200 : 201, this.store(t, next, dryRun));
  }

  /** A written Scale (autoscaling/v1, whatever the parent's kind) goes into its parent. */
  private rescale(t: Target, existing: KubeObject, scale: unknown, req: ApiRequest, dryRun: boolean): ApiResponse {
    if (!isPlainObject(scale)) throw badRequest('the body of the request must be an object');
    checkShape({ kind: 'Scale', version: 'v1' }, scale);
    checkResourceVersionMatches(t.r, existing, own(own(scale, 'metadata'), 'resourceVersion'));
    const view = this.scale(t);
    const next = this.defaults(t, view.write(existing, scale), existing);
    recordUpdate(existing, next, this.writer(t, req));
    return json(200, view.read(this.store(t, next, dryRun)));
  }

  /**
   * What the apiserver does to a written object: the kind's status kept from the controllers and its defaults
   * (kinds.ts), the admission plugins' changes (admission/plugins.ts), the kind's validation and admission; then
   * generation bumps on spec changes only.
   */
  private defaults(t: Target, obj: KubeObject, existing: KubeObject | undefined): KubeObject {
    const { controllerStatus, defaults, admit } = t.kind;
    if (controllerStatus) obj['status'] = existing ? clone(existing['status']) : clone(controllerStatus.initial);
    defaults?.(obj, existing);
    mutate(this.objects, t.r, obj, existing);
    admit?.(obj, existing, this.host(t));
    // Compared once defaulted: a write that leaves out what defaulting fills in changes nothing.
    const specChanged = !existing || !isDeepStrictEqual(existing['spec'], obj['spec']);
    obj.metadata.generation = existing ? (existing.metadata.generation ?? 1) + (specChanged ? 1 : 0) : 1;
    return obj;
  }

  private remove(t: Target, req: ApiRequest): ApiResponse {
    const options = deleteOptions(req);
    const existing = this.lookup(t);
    if (!existing) throw notFound(t.r.resource, t.r.group, t.name!);
    admitDeletion(t.r, existing);
    checkPreconditions(t.r, existing, options.preconditions);
    if (options.dryRun) return json(200, viewOf(t, existing));
    const defer = t.kind.deferDeletion;
    const host = this.host(t);
    const done = deleteObject(this.objects, t.r, existing, {
      ...(options.propagationPolicy ? { propagationPolicy: options.propagationPolicy } : {}),
      ...(options.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: options.gracePeriodSeconds } : {}),
      ...(defer ? { defer: (o: KubeObject) => defer(o, host) } : {}),
    });
    if (!done.removed) return json(200, viewOf(t, done.object));
    const details: Record<string, string> = { name: t.name!, kind: t.r.resource, uid: String(existing.metadata.uid ?? '') };
    if (t.r.group !== '') details['group'] = t.r.group;
    return json(200, successStatus(details));
  }
}

/**
 * What a write (PUT, PATCH, apply) through a subresource stores: the kind's own rule for it (kinds.ts
 * subresourceWrites: a CSR's approval, a pod's ephemeral containers), the status subresource's; undefined for a
 * write of the object itself.
 */
function subresourceWrite(t: Target, existing: KubeObject, obj: KubeObject): KubeObject | undefined {
  if (t.subresource === undefined) return undefined;
  const sub = t.kind.subresourceWrites?.[t.subresource];
  if (sub) return sub(clone(existing), obj);
  return t.subresource === 'status' ? statusWrite(t, existing, obj) : undefined;
}

/** What a write through the status subresource changes: the status, and the metadata where the kind says so. */
function statusWrite(t: Target, existing: KubeObject, obj: KubeObject): KubeObject {
  return { ...clone(existing), ...(t.kind.statusWritesMetadata ? { metadata: obj.metadata } : {}), status: obj['status'] };
}

/** A write's answer with the warnings its kind declares (written as `Warning: 299 - "..."` headers). */
function warned(t: Target, response: ApiResponse): ApiResponse {
  return t.kind.warnings && 'status' in response && !t.subresource ? { ...response, warnings: t.kind.warnings } : response;
}

/** The object as read. */
function viewOf(t: Target, obj: KubeObject): KubeObject {
  return t.kind.view ? t.kind.view(obj, Date.now()) : obj;
}

/**
 * A list's checks of its query, in the apiserver's order (each a 400 or 422), and its selector: the field labels the
 * kind takes at the cluster's version (field-labels.ts).
 */
export function listSelector(t: Target, query: URLSearchParams, kubernetesVersion: string): Selector {
  checkResourceVersion(t, query);
  return selectorOf(t, query, kubernetesVersion);
}

/** The request's label and field selectors, each field label as the kind takes it (a 400 for one it does not). */
function selectorOf(t: Target, query: URLSearchParams, kubernetesVersion: string): Selector {
  return kindSelector(t.kind.fieldLabels ?? METADATA_ONLY, parseSelector(query), kubernetesVersion);
}

/** What a selector lets through; undefined when it selects everything (nothing to test, and a count of what is left). */
export function selecting(selector: Selector): ((o: KubeObject) => boolean) | undefined {
  return selector.labels.length === 0 && selector.fields.length === 0 ? undefined : (o) => selects(selector, o);
}

/** A page of a list as the client gets it, at revision `rv`: JSON, or the Table kubectl asks for. */
export function listResponse(t: Target, chunk: Page, rv: number, req: Pick<ApiRequest, 'query' | 'accept'>): BodyResponse {
  const items = chunk.items.map((o) => viewOf(t, o));
  const metadata = {
    resourceVersion: String(rv),
    ...(chunk.continue ? { continue: chunk.continue, remainingItemCount: chunk.remainingItemCount } : {}),
  };
  if (wantsTable(req.accept))
    return { status: 200, body: table(printerOf(t), items, includeObjectOf(req.query), metadata), contentType: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
  return { status: 200, body: { kind: `${t.r.kind}List`, apiVersion: groupVersion(t.r), metadata, items }, contentType: 'application/json' };
}

/** How the kind prints in `kubectl get` (kinds.ts, or a CRD's columns). */
function printerOf(t: Target) {
  return t.kind.printer ?? defaultPrinter;
}

/** What a dry run answers: the object as it would be stored (a new one with the uid and time it would get). */
function dryRunResult(existing: KubeObject | undefined, obj: KubeObject): KubeObject {
  const out = clone(obj);
  out.metadata.uid = existing?.metadata.uid ?? randomUUID();
  out.metadata.creationTimestamp = existing?.metadata.creationTimestamp ?? k8sTime(Date.now());
  if (existing) out.metadata.resourceVersion = existing.metadata.resourceVersion;
  return out;
}

function stripManaged(body: unknown): unknown {
  const out = clone(body);
  if (isPlainObject(out) && isPlainObject(out['metadata'])) delete out['metadata']['managedFields'];
  return out;
}

/** The storage versioner's parse of `resourceVersion`: a decimal count, or the 422 the apiserver answers. */
function checkResourceVersion(t: Target, query: URLSearchParams): void {
  const rv = query.get('resourceVersion');
  if (rv && !/^\d{1,19}$/.test(rv)) {
    throw invalidObject(t.r.resource, t.r.group, '', [
      fieldError.invalid('resourceVersion', rv, `strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`),
    ]);
  }
}

/** The first minor version whose apiserver enables the WatchList feature gate (beta, on by default, in 1.32). */
const WATCH_LIST_FROM_MINOR = 32;

/**
 * A watch's sendInitialEvents and resourceVersionMatch, as ValidateListOptions checks them (422 on ListOptions);
 * returns sendInitialEvents (undefined when not given).
 */
function checkWatchOptions(query: URLSearchParams, kubernetesVersion: string): boolean | undefined {
  const send = query.get('sendInitialEvents');
  const match = query.get('resourceVersionMatch') ?? '';
  const causes = [];
  if (send !== null) {
    if (match !== 'NotOlderThan')
      causes.push(fieldError.forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    if (Number(kubernetesVersion.split('.')[1]) < WATCH_LIST_FROM_MINOR)
      causes.push(fieldError.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'));
  }
  if (match !== '') {
    if (send === null)
      causes.push(fieldError.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    if (match !== 'NotOlderThan') causes.push(fieldError.unsupported('resourceVersionMatch', match, ['NotOlderThan']));
    if (query.get('continue')) causes.push(fieldError.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
  }
  if (causes.length > 0) throw invalidObject('ListOptions', 'meta.k8s.io', '', causes);
  // As the query converts to a *bool (runtime.Convert_Slice_string_To_Pointer_bool): only "0" and "false" are false.
  return send === null ? undefined : !(send === '0' || send.toLowerCase() === 'false');
}

/** A request path's segments, each decoded (a bad escape is the apiserver's 400). */
export function pathSegments(path: string): string[] {
  return path
    .split('/')
    .filter((s) => s !== '')
    .map(decodeSegment);
}

/** A path segment, percent-decoded; 400 for an escape that is not one (Go's url parser refuses the request). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest(`invalid URL escape in ${JSON.stringify(segment)}`);
  }
}
