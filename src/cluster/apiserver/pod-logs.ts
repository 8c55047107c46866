// GET /api/v1/namespaces/NS/pods/NAME/log: what `kubectl logs` reads. The apiserver's part (pkg/registry/core/
// pod/strategy.go LogLocation, pkg/apis/core/validation ValidatePodLogOptions) picks the container and checks the
// options; the kubelet's part (pkg/kubelet/kubelet_pods.go validateContainerLogStatus, then the CRI log reader
// pkg/kubelet/kuberuntime/logs) picks the container run from the pod's status and reads its log file
// (kubelet/container-logs.ts) with tailLines, sinceSeconds / sinceTime, timestamps and limitBytes; follow
// streams new lines until the container ends or the client goes.
import type { KubeObject } from '../apimachinery/object.js';
import type { ContainerStatus, Pod } from '../apimachinery/types.js';
import type { ObjectStore } from './storage/store.js';
import { PODS } from '../apimachinery/resources.js';
import { badRequest, fieldError, invalidObject, notFound, type StatusCause } from '../apimachinery/status.js';

export interface LogRef {
  node: string;
  namespace: string;
  pod: string;
  uid: string;
}

export interface LogLine {
  /** Milliseconds since the epoch (the time it was written). */
  time: number;
  /** The CRI timestamp as written (nanosecond precision). */
  timestamp: string;
  stream: 'stdout' | 'stderr';
  /** The text, without its newline; `partial` when the process has not ended the line. */
  text: string;
  partial: boolean;
}

export interface LogListener {
  line(line: LogLine): void;
  /** The container run ended (or its pod went). */
  end(): void;
}

/** What the apiserver asks of the node's container logs (the kubelet's /containerLogs, kubelet/container-logs.ts). */
export interface LogReader {
  /** The run's lines, or undefined when it has no log. */
  read(ref: LogRef, container: string, restart: number): LogLine[] | undefined;
  /** Hears each new line of the run and its end; returns the unsubscribe. */
  follow(ref: LogRef, container: string, restart: number, listener: LogListener): () => void;
}

/** A response written as it is produced (a followed log): text chunks until end(). */
export interface StreamSink {
  write(text: string): void;
  end(): void;
}

export type LogResponse = { status: number; text: string; contentType: string } | { stream: (sink: StreamSink) => { stop(): void }; contentType: string };

const TEXT = 'text/plain';

interface LogOptions {
  container?: string;
  previous: boolean;
  follow: boolean;
  timestamps: boolean;
  tailLines?: number;
  limitBytes?: number;
  sinceMs?: number;
}

const truthy = (v: string | null) => v === 'true' || v === '1';

/** The query as PodLogOptions, validated as the apiserver validates it (422 with its field paths). */
function options(query: URLSearchParams, name: string): LogOptions {
  const errors: StatusCause[] = [];
  const int = (field: string, min: number, message: string): number | undefined => {
    const raw = query.get(field);
    if (raw === null || raw === '') return undefined;
    const n = Number(raw);
    if (!/^-?\d{1,18}$/.test(raw)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(raw)}: invalid syntax`);
    if (n < min) errors.push(fieldError.invalid(field, n, message));
    return n;
  };
  const tailLines = int('tailLines', 0, 'must be greater than or equal to 0');
  const limitBytes = int('limitBytes', 1, 'must be greater than 0');
  const sinceSeconds = int('sinceSeconds', 1, 'must be greater than 0');
  const sinceTime = query.get('sinceTime');
  let sinceMs: number | undefined;
  if (sinceTime) {
    sinceMs = Date.parse(sinceTime);
    if (!Number.isFinite(sinceMs)) throw badRequest(`parsing time ${JSON.stringify(sinceTime)} as "2006-01-02T15:04:05Z07:00": cannot parse`);
  }
  if (sinceSeconds !== undefined && sinceTime)
    errors.push({ reason: 'FieldValueForbidden', message: 'Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified', field: 'sinceSeconds' });
  if (errors.length > 0) throw invalidObject('PodLogOptions', '', name, errors);
  if (sinceSeconds !== undefined) sinceMs = Date.now() - sinceSeconds * 1000;
  const container = query.get('container') || undefined;
  return {
    ...(container ? { container } : {}),
    previous: truthy(query.get('previous')),
    follow: truthy(query.get('follow')),
    timestamps: truthy(query.get('timestamps')),
    ...(tailLines !== undefined ? { tailLines } : {}),
    ...(limitBytes !== undefined ? { limitBytes } : {}),
    ...(sinceMs !== undefined ? { sinceMs } : {}),
  };
}

/** LogLocation: the container named, or the pod's only one. */
export function containerOf(pod: Pod, asked: string | undefined): string | undefined {
  const spec = pod.spec ?? {};
  const names = (spec.containers ?? []).map((c) => c.name);
  const inits = (spec.initContainers ?? []).map((c) => c.name);
  const ephemeral = (Array.isArray(spec.ephemeralContainers) ? spec.ephemeralContainers : []).map((c) => c?.name);
  const name = pod.metadata.name;
  if (asked) {
    if (!names.includes(asked) && !inits.includes(asked) && !ephemeral.includes(asked)) throw badRequest(`container ${asked} is not valid for pod ${name}`);
    return asked;
  }
  if (names.length === 1) return names[0];
  if (names.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
  const more =
    (inits.length > 0 ? ` or one of the init containers: [${inits.join(' ')}]` : '') +
    (ephemeral.length > 0 ? ` or one of the ephemeral containers: [${ephemeral.join(' ')}]` : '');
  throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${names.join(' ')}]${more}`);
}

/** validateContainerLogStatus: which run of the container the log is read from (its restart number), or the kubelet's error. */
function runOf(pod: Pod, container: string, previous: boolean): { restart: number; live: boolean } {
  const name = pod.metadata.name;
  const all: ContainerStatus[] = [
    ...(pod.status?.containerStatuses ?? []),
    ...(pod.status?.initContainerStatuses ?? []),
    ...(pod.status?.ephemeralContainerStatuses ?? []),
  ];
  const s = all.find((c) => c.name === container);
  if (!s) throw badRequest(`container "${container}" in pod "${name}" is not available`);
  const restarts = s.restartCount ?? 0;
  const state = s.state ?? {};
  const last = s.lastState?.terminated as { containerID?: string } | undefined;
  // The last run is the current one's predecessor, unless no new run started yet (waiting to restart).
  const lastRun = { restart: state.waiting ? restarts : restarts - 1, live: false };
  if (previous) {
    if (!last?.containerID) throw badRequest(`previous terminated container "${container}" in pod "${name}" not found`);
    return lastRun;
  }
  if (state.running) return { restart: restarts, live: true };
  if (state.terminated) return { restart: restarts, live: false };
  if (last?.containerID) return lastRun;
  const reason = (state.waiting as { reason?: string } | undefined)?.reason;
  if (reason === 'ErrImagePull') throw badRequest(`container "${container}" in pod "${name}" is waiting to start: image can't be pulled`);
  if (reason === 'ImagePullBackOff') throw badRequest(`container "${container}" in pod "${name}" is waiting to start: trying and failing to pull image`);
  if (reason) throw badRequest(`container "${container}" in pod "${name}" is waiting to start: ${reason}`);
  throw badRequest(`container "${container}" in pod "${name}" is waiting to start - no logs yet`);
}

/** Go's time.RFC3339Nano: trailing zeros of the fraction dropped. */
function rfc3339Nano(timestamp: string): string {
  return timestamp.replace(/\.(\d*?)0+Z$/, (_, digits: string) => (digits ? `.${digits}Z` : 'Z'));
}

/** Writes lines as the kubelet's log reader does, counting limitBytes; returns false once the limit is reached. */
class LogWriter {
  private left: number;
  constructor(
    private readonly opts: LogOptions,
    private readonly out: (text: string) => void,
  ) {
    this.left = opts.limitBytes ?? Number.POSITIVE_INFINITY;
  }

  line(l: LogLine): boolean {
    if (this.left <= 0) return false;
    if (this.opts.sinceMs !== undefined && l.time < this.opts.sinceMs) return true;
    let text = `${this.opts.timestamps ? `${rfc3339Nano(l.timestamp)} ` : ''}${l.text}${l.partial ? '' : '\n'}`;
    const bytes = Buffer.byteLength(text);
    if (bytes > this.left) text = Buffer.from(text).subarray(0, this.left).toString('utf8');
    this.left -= Math.min(bytes, this.left);
    this.out(text);
    return this.left > 0;
  }
}

/** The log of a pod's container, as the apiserver serves it from the kubelet. */
export function podLog(objects: ObjectStore, logs: LogReader, namespace: string, name: string, query: URLSearchParams): LogResponse {
  const opts = options(query, name);
  const pod = objects.get(PODS, namespace, name) as (KubeObject & Pod) | undefined;
  if (!pod) throw notFound('pods', '', name);
  const container = containerOf(pod, opts.container);
  const node = pod.spec?.nodeName;
  // A pod not yet scheduled has no kubelet to ask: the apiserver answers with nothing.
  if (!node || !container) return { status: 200, text: '', contentType: TEXT };
  const run = runOf(pod, container, opts.previous);
  const ref: LogRef = { node, namespace, pod: name, uid: String(pod.metadata.uid) };
  let lines = logs.read(ref, container, run.restart) ?? [];
  if (opts.sinceMs !== undefined) lines = lines.filter((l) => l.time >= opts.sinceMs!);
  if (opts.tailLines !== undefined) lines = opts.tailLines === 0 ? [] : lines.slice(-opts.tailLines);
  if (!opts.follow || !run.live) {
    let text = '';
    const writer = new LogWriter(opts, (t) => (text += t));
    for (const l of lines) if (!writer.line(l)) break;
    return { status: 200, text, contentType: TEXT };
  }
  return {
    contentType: TEXT,
    stream: (sink) => {
      const writer = new LogWriter(opts, (t) => sink.write(t));
      let open = true;
      let unsubscribe = () => {};
      const finish = () => {
        if (!open) return;
        open = false;
        unsubscribe();
        sink.end();
      };
      for (const l of lines) {
        if (!writer.line(l)) {
          finish();
          return { stop: finish };
        }
      }
      unsubscribe = logs.follow(ref, container, run.restart, {
        line: (l) => {
          if (open && !writer.line(l)) finish();
        },
        end: finish,
      });
      if (!open) unsubscribe();
      return { stop: finish };
    },
  };
}
