// The kubelet's prober (pkg/kubelet/prober: worker.go, prober.go, prober_manager.go) for the containers the pod
// lifecycle runs. Each running container gets one worker per probe it declares; a worker probes once its
// container has run initialDelaySeconds, then every periodSeconds, each probe bounded by timeoutSeconds, and
// changes its result only after successThreshold / failureThreshold results in a row. Readiness starts as
// Failure, liveness as Success, startup as Unknown; until the startup probe succeeds the other two do not run
// (and the container is not `started`). A readiness result sets the container's `ready`, hence the pod's Ready
// and ContainersReady and the EndpointSlices' conditions; a liveness or startup failure has the container killed
// and restarted (the lifecycle's back-off), its worker on hold until the new container starts a fresh one. Each
// failed probe is the kubelet's Warning `Unhealthy` event (`Readiness probe failed: …`); a probe that could not
// be run is `… probe errored and resulted in unknown state: …` and its result is thrown away, as the kubelet does a prober error.
//
// Where a probe goes (ProbeTarget, sandbox.ts): httpGet, tcpSocket and grpc probes of a container that really
// listens (or may: any process) are sent from the node's network namespace to the pod's address by the node's
// prober process (dataplane/netns/node-prober.ts), so NetworkPolicy never blocks them, as on AKS; without a data
// plane a catalogued server's declared listeners judge them, and anything else cannot be probed (an errored
// event says so). Exec probes run the command as the container's shell would (the container runtime's
// execProbe). A catalogued program whose health endpoints aksemu does not serve (CNI agents, coredns) answers
// every probe with its own state: ready as it reports it, alive while it runs. docs/architecture.md §7.
import type { NodeNetwork } from '../images/program.js';
import { NodeProber, type NodeProbeOutcome } from '../../dataplane/netns/node-prober-process.js';
import type { BoundPod, Container } from '../apimachinery/types.js';
import type { ContainerRunner, ProbeTarget, ServedListener } from './sandbox.js';
import { type ProbeHandler, type ProbeSpec, type ProbeType, probeSpecOf, resolvePort } from './probe-spec.js';

type Result = 'Success' | 'Failure' | 'Unknown';

/** What the prober needs of the pod lifecycle. */
interface ProbeHost {
  /** The pod as stored, unless it went. */
  pod(uid: string): BoundPod | undefined;
  /** A kubelet event on the pod about the container (fieldPath spec.containers{NAME}). */
  event(pod: BoundPod, reason: string, message: string, container: string): void;
  /** A container's readiness or started changed: the pod's status is written again. */
  changed(uid: string): void;
  /** A liveness or startup probe failed past its threshold: the container is killed (and restarted as its policy says). */
  failed(uid: string, key: string, type: 'Liveness' | 'Startup'): void;
  runner: ContainerRunner;
  /** The data plane's node networking (its nodeNetns), undefined without a data plane. */
  network(): NodeNetwork | undefined;
  /** The kubelet's minor version (the probes' User-Agent kube-probe/1.MINOR). */
  minor: number;
}

/** One running container as the prober sees it. */
interface ProbedContainer {
  uid: string;
  /** The lifecycle's run key (the container's name for app containers). */
  key: string;
  container: Container;
  node: string;
  /** The container's id of this run: a new one restarts the workers from scratch. */
  id: string;
  /** When this run started (ms). */
  startedAt: number;
  podIp: () => string | undefined;
  /** What answers its probes (updated when a server binds). */
  target: () => ProbeTarget;
  /** Its program's own readiness (setReady; true unless it said otherwise). */
  programReady: () => boolean;
}

interface Worker {
  type: ProbeType;
  spec: ProbeSpec;
  result: Result;
  last?: Result;
  run: number;
  onHold: boolean;
  timer?: NodeJS.Timeout;
  busy: boolean;
  /** A run asked while one was in flight (a trigger). */
  again: boolean;
}

interface Probed {
  c: ProbedContainer;
  workers: Worker[];
  stopped: boolean;
}

const INITIAL: Record<ProbeType, Result> = { Readiness: 'Failure', Liveness: 'Success', Startup: 'Unknown' };

type Outcome = { result: 'success' | 'warning' | 'failure'; output: string } | { error: string };

export class Prober {
  private readonly probed = new Map<string, Probed>();
  private readonly nodes = new Map<string, NodeProber>();
  private closed = false;

  constructor(private readonly host: ProbeHost) {}

  private static id(uid: string, key: string): string {
    return `${uid}/${key}`;
  }

  /** A container (re)started: its probes begin from scratch. */
  started(c: ProbedContainer): void {
    this.stopped(c.uid, c.key);
    if (this.closed) return;
    const workers: Worker[] = [];
    for (const type of ['Startup', 'Readiness', 'Liveness'] as const) {
      const spec = probeSpecOf(c.container, type);
      if (spec) workers.push({ type, spec, result: INITIAL[type], run: 0, onHold: false, busy: false, again: false });
    }
    if (workers.length === 0) return;
    const p: Probed = { c, workers, stopped: false };
    this.probed.set(Prober.id(c.uid, c.key), p);
    for (const w of workers) this.schedule(p, w, Math.max(0, c.startedAt + w.spec.initialDelayMs - Date.now()));
  }

  /** The container's run ended (or the pod went): its workers stop. */
  stopped(uid: string, key: string): void {
    const id = Prober.id(uid, key);
    const p = this.probed.get(id);
    if (!p) return;
    this.probed.delete(id);
    p.stopped = true;
    for (const w of p.workers) clearTimeout(w.timer);
  }

  /** Every container of the pod. */
  podGone(uid: string): void {
    for (const p of [...this.probed.values()]) if (p.c.uid === uid) this.stopped(uid, p.c.key);
  }

  /** The node went: its prober process too. */
  nodeGone(node: string): void {
    this.nodes.get(node)?.close();
    this.nodes.delete(node);
  }

  /**
   * The readiness the container's probes give: undefined without a readiness probe (ready once started), else
   * the readiness worker's result (false until it succeeds, and while the container has not started).
   */
  ready(uid: string, key: string): boolean | undefined {
    const p = this.probed.get(Prober.id(uid, key));
    const w = p?.workers.find((x) => x.type === 'Readiness');
    if (!p || !w) return undefined;
    return this.isStarted(p) && w.result === 'Success';
  }

  /** Started (containerStatuses[].started): false until a startup probe succeeds; undefined without one. */
  startedOf(uid: string, key: string): boolean | undefined {
    const p = this.probed.get(Prober.id(uid, key));
    if (!p || !p.workers.some((w) => w.type === 'Startup')) return undefined;
    return this.isStarted(p);
  }

  private isStarted(p: Probed): boolean {
    const s = p.workers.find((w) => w.type === 'Startup');
    return !s || s.result === 'Success';
  }

  /**
   * The container's program changed its readiness, or its server bound its listeners: its readiness probe runs
   * now rather than a period later (as the kubelet's manual trigger on a status update does).
   */
  retrigger(uid: string, key: string): void {
    const p = this.probed.get(Prober.id(uid, key));
    const w = p?.workers.find((x) => x.type === 'Readiness');
    if (p && w && Date.now() >= p.c.startedAt + w.spec.initialDelayMs) this.trigger(p, w);
  }

  private schedule(p: Probed, w: Worker, ms: number): void {
    clearTimeout(w.timer);
    if (p.stopped || this.closed) return;
    w.timer = setTimeout(() => {
      w.timer = undefined;
      this.trigger(p, w);
    }, ms);
    w.timer.unref();
  }

  /** Runs the worker's probe now (once the one in flight ended); the next one a period later. */
  private trigger(p: Probed, w: Worker): void {
    if (p.stopped || this.closed) return;
    if (w.busy) {
      w.again = true;
      return;
    }
    w.busy = true;
    clearTimeout(w.timer);
    void this.doProbe(p, w)
      .catch(() => undefined)
      .finally(() => {
        w.busy = false;
        if (p.stopped || this.closed) return;
        if (w.again) {
          w.again = false;
          this.trigger(p, w);
        } else this.schedule(p, w, w.spec.periodMs);
      });
  }

  /** worker.go doProbe. */
  private async doProbe(p: Probed, w: Worker): Promise<void> {
    if (w.onHold) return;
    const pod = this.host.pod(p.c.uid);
    if (!pod) return;
    // Liveness and startup are not probed while the pod shuts down.
    if (pod.metadata.deletionTimestamp && w.type !== 'Readiness') return;
    const started = this.isStarted(p);
    if (w.type === 'Startup' ? started : !started) return;
    const outcome = await this.runProbe(p, w, pod);
    if (p.stopped || this.closed) return;
    const name = p.c.container.name;
    if ('error' in outcome) {
      this.host.event(pod, 'Unhealthy', `${w.type} probe errored and resulted in unknown state: ${outcome.error}`, name);
      return;
    }
    if (outcome.result === 'warning') this.host.event(pod, 'ProbeWarning', `${w.type} probe warning: ${outcome.output}`, name);
    else if (outcome.result === 'failure') this.host.event(pod, 'Unhealthy', `${w.type} probe failed: ${outcome.output}`, name);
    const result: Result = outcome.result === 'failure' ? 'Failure' : 'Success';
    if (w.last === result) w.run++;
    else {
      w.last = result;
      w.run = 1;
    }
    if ((result === 'Failure' && w.run < w.spec.failureThreshold) || (result === 'Success' && w.run < w.spec.successThreshold)) return;
    const before = w.result;
    w.result = result;
    if (w.type !== 'Readiness' && result === 'Failure') {
      // The container is killed; nothing more is probed until a new one starts.
      w.onHold = true;
      w.run = 0;
      this.host.failed(p.c.uid, p.c.key, w.type);
      return;
    }
    if (before === result) return;
    if (w.type === 'Startup') {
      // Started: the other probes may run now, readiness at once (the kubelet triggers it on the status update).
      const readiness = p.workers.find((x) => x.type === 'Readiness');
      if (readiness) this.trigger(p, readiness);
    }
    this.host.changed(p.c.uid);
  }

  /** One probe of the worker's handler, as pkg/kubelet/prober runProbe does it. */
  private async runProbe(p: Probed, w: Worker, pod: BoundPod): Promise<Outcome> {
    const { handler, timeoutMs } = w.spec;
    const target = p.c.target();
    if (handler.kind === 'none') return { error: `missing probe handler for ${pod.metadata.name}_${pod.metadata.namespace}(${p.c.uid}):${p.c.container.name}` };
    if (target.kind === 'program') return this.programAnswer(p, w, handler);
    if (handler.kind === 'exec') {
      if (!this.host.runner.execProbe) return { error: 'aksemu cannot run exec probes in this runtime' };
      const r = await this.host.runner.execProbe({ pod, node: p.c.node, container: p.c.container }, handler.command, timeoutMs);
      if ('unsupported' in r) return { error: `aksemu cannot run ${JSON.stringify(handler.command.join(' '))} in the container: ${r.unsupported}` };
      return r.code === 0 ? { result: 'success', output: r.output } : { result: 'failure', output: r.output };
    }
    const port = resolvePort(handler.port, p.c.container);
    if (typeof port === 'string') return { error: port };
    const podIp = p.c.podIp() ?? '';
    const host = (handler.kind !== 'grpc' && handler.host) || podIp;
    const netns = await this.host.network()?.nodeNetns?.(p.c.node);
    if (p.stopped || this.closed) return { error: 'stopped' };
    if (netns) {
      let prober = this.nodes.get(p.c.node);
      if (!prober) this.nodes.set(p.c.node, (prober = new NodeProber(netns)));
      const outcome: NodeProbeOutcome = await prober.probe({
        kind: handler.kind,
        host,
        port,
        timeoutMs,
        userAgent: `kube-probe/1.${this.host.minor}`,
        ...(handler.kind === 'http' ? { scheme: handler.scheme, path: handler.path, headers: handler.headers } : {}),
        ...(handler.kind === 'grpc' ? { service: handler.service } : {}),
      });
      return outcome;
    }
    if (target.kind === 'listeners' && host === podIp) return declaredAnswer(handler, host, port, target.listeners, timeoutMs);
    return {
      error: `aksemu cannot send a ${handler.kind === 'http' ? 'httpGet' : handler.kind === 'tcp' ? 'tcpSocket' : 'grpc'} probe to ${host}:${port} without a data plane (aksemu start --dataplane netns, as root); nothing was checked`,
    };
  }

  /** A catalogued program's own answer: its readiness as it reports it, alive while it runs. */
  private programAnswer(p: Probed, w: Worker, handler: ProbeHandler): Outcome {
    if (w.type !== 'Readiness' || p.c.programReady()) return { result: 'success', output: '' };
    const podIp = p.c.podIp() ?? '';
    switch (handler.kind) {
      case 'http':
        return { result: 'failure', output: 'HTTP probe failed with statuscode: 503' };
      case 'tcp': {
        const port = resolvePort(handler.port, p.c.container);
        return { result: 'failure', output: `dial tcp ${handler.host || podIp}:${port}: connect: connection refused` };
      }
      case 'grpc':
        return { result: 'failure', output: 'service unhealthy (responded with "NOT_SERVING")' };
      default:
        return { result: 'failure', output: '' };
    }
  }

  close(): void {
    this.closed = true;
    for (const p of [...this.probed.values()]) this.stopped(p.c.uid, p.c.key);
    for (const n of this.nodes.values()) n.close();
    this.nodes.clear();
  }
}

/**
 * Without a data plane, a catalogued server's probe judged by what it declares it serves (what pod-server.js
 * answers with one: an HTTP path it serves 200, another 404; a TCP listener accepts), in pkg/probe's words.
 */
function declaredAnswer(
  handler: Exclude<ProbeHandler, { kind: 'exec' } | { kind: 'none' }>,
  host: string,
  port: number,
  listeners: ReadonlyArray<ServedListener>,
  timeoutMs: number,
): Outcome {
  const addr = `${host}:${port}`;
  const on = listeners.filter((l) => l.port === port && l.proto !== 'udp');
  const refused = `dial tcp ${addr}: connect: connection refused`;
  if (handler.kind === 'tcp') return on.length ? { result: 'success', output: '' } : { result: 'failure', output: refused };
  if (handler.kind === 'grpc')
    return on.length
      ? { result: 'failure', output: `error: this server does not implement the grpc health protocol (grpc.health.v1.Health): ` }
      : { result: 'failure', output: `timeout: failed to connect service "${addr}" within ${timeoutMs / 1000}s: context deadline exceeded` };
  const url = `${handler.scheme}://${addr}${handler.path.startsWith('/') ? handler.path : `/${handler.path}`}`;
  if (on.length === 0) return { result: 'failure', output: `Get "${url}": ${refused}` };
  const served = on.find((l) => l.proto === 'http');
  if (!served || handler.scheme === 'https') return { result: 'failure', output: `Get "${url}": EOF` };
  let path = '/';
  try {
    path = new URL(handler.path, 'http://probe/').pathname;
  } catch {
    // formatURL passes a path it cannot parse as it is: no served path is one
    path = handler.path;
  }
  if (served.paths && !served.paths.includes(path)) return { result: 'failure', output: 'HTTP probe failed with statuscode: 404' };
  return { result: 'success', output: '' };
}
