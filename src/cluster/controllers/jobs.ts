import { type Change, deletePodGracefully } from '../apiserver/index.js';
import { type KubeObject, objectKey } from '../apimachinery/object.js';
import type { Condition, Job, Pod } from '../apimachinery/types.js';
import { JOBS, PODS, resourceKey } from '../apimachinery/resources.js';
import { k8sTime } from '../apimachinery/time.js';
import { BurstingController } from './burst.js';
import type { ControllerContext } from '../client/context.js';
import { controllerRef, isActive, isPodReady, isRunning } from '../client/pod-state.js';
import { createPodFrom } from './pods.js';
import { splitKey } from '../client/queue.js';

const COMPONENT = 'job-controller';

/** DefaultJobPodFailureBackOff 10 s, MaxJobPodFailureBackOff 10 min (pkg/controller/job); tests may shorten them. */
export const JOB_BACKOFF = { initialMs: 10_000, maxMs: 600_000 };
const INDEX_ANNOTATION = 'batch.kubernetes.io/job-completion-index';
const BACKOFF_MESSAGE = 'Job has reached the specified backoff limit';
const COMPLETIONS_MESSAGE = 'Reached expected number of succeeded pods';

/** Is the condition of that type True? */
function has(job: Job, type: string): boolean {
  return (job.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
}

export function jobFinished(job: Job): boolean {
  return has(job, 'Complete') || has(job, 'Failed');
}

function condition(type: string, now: number, reason?: string, message?: string): Condition {
  return {
    type,
    status: 'True',
    lastProbeTime: k8sTime(now),
    lastTransitionTime: k8sTime(now),
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
  };
}

/** The sorted indexes as the controller writes completedIndexes: `0-2,5`. */
function indexRanges(indexes: number[]): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

function indexOf(pod: KubeObject): number | undefined {
  const raw = (pod.metadata.annotations as Record<string, string> | undefined)?.[INDEX_ANNOTATION];
  const n = Number(raw);
  return raw !== undefined && Number.isInteger(n) && n >= 0 ? n : undefined;
}

export class JobController extends BurstingController {
  private readonly ttl = new Map<string, NodeJS.Timeout>();
  /** When the Jobs' pods were seen to end (ms), by pod uid. */
  private readonly ended = new Map<string, number>();
  /** Jobs waiting out their pod failure back-off. */
  private readonly waits = new Map<string, NodeJS.Timeout>();

  constructor(
    ctx: ControllerContext,
    /** The controller-manager's minor version: the conditions written changed in 1.31. */
    private readonly minor: number,
  ) {
    super(ctx, JOBS, 'job');
  }

  observe(change: Change): void {
    const pod = change.object as Pod;
    if (change.resource === resourceKey(PODS) && controllerRef(pod)?.kind === 'Job') {
      const uid = String(pod.metadata.uid);
      if (change.type === 'DELETED') this.ended.delete(uid);
      else if (!isRunning(pod) && !this.ended.has(uid)) this.ended.set(uid, Date.now());
    }
    if (change.resource === resourceKey(JOBS)) {
      if (change.type === 'DELETED') this.deleted(change.object);
      else this.enqueue(change.object);
    } else if (change.resource === resourceKey(PODS)) {
      for (const p of [change.object, change.previous]) this.enqueueController(p, 'Job');
    }
  }

  /** Background propagation: the Job's pods go with it. */
  private deleted(job: KubeObject): void {
    const key = objectKey(job.metadata.namespace, job.metadata.name);
    clearTimeout(this.ttl.get(key));
    this.ttl.delete(key);
    setImmediate(() => {
      for (const pod of this.pods(job)) {
        const now = this.ctx.objects.get(PODS, pod.metadata.namespace, pod.metadata.name);
        if (now && now.metadata.uid === pod.metadata.uid && !now.metadata.deletionTimestamp) deletePodGracefully(this.ctx.objects, now);
      }
    });
  }

  private pods(job: KubeObject): Pod[] {
    return this.ctx.index.dependents(job.metadata.uid, 'Pod').filter((p) => controllerRef(p)?.uid === job.metadata.uid) as Pod[];
  }

  override resync(): void {
    super.resync();
    // Pods whose Job went while the server was down.
    const live = new Set(this.ctx.objects.list(JOBS).map((j) => String(j.metadata.uid)));
    for (const pod of this.ctx.objects.list(PODS)) {
      const ref = controllerRef(pod);
      if (ref?.kind === 'Job' && !live.has(ref.uid)) deletePodGracefully(this.ctx.objects, pod);
    }
  }

  reconcile(key: string): void {
    const [namespace, name] = splitKey(key);
    const { objects, events } = this.ctx;
    const job = objects.get(JOBS, namespace, name) as Job | undefined;
    if (!job || job.metadata.deletionTimestamp) return;
    const now = Date.now();
    if (jobFinished(job)) return this.expireLater(key, job, now);
    const spec = job.spec ?? {};
    const pods = this.pods(job);
    const active = pods.filter(isActive);
    const indexed = spec.completionMode === 'Indexed';
    const succeededPods = pods.filter((p) => p.status?.phase === 'Succeeded');
    const failedPods = pods.filter((p) => p.status?.phase === 'Failed');
    // Counts only grow: a finished pod deleted by hand stays counted.
    const succeeded = Math.max(job.status?.succeeded ?? 0, succeededPods.length);
    const failed = Math.max(job.status?.failed ?? 0, failedPods.length);
    const completions = spec.completions ?? undefined;
    const parallelism = Math.max(0, spec.parallelism ?? 1);
    const doneIndexes = indexed ? succeededPods.map(indexOf).filter((i): i is number => i !== undefined && i < (completions ?? 0)) : [];
    const status = { ...(job.status ?? {}) };
    status.startTime ??= k8sTime(now);
    const conditions = [...(status.conditions ?? [])];
    const interim = this.minor >= 31;

    // pastBackoffLimitOnFailure: under OnFailure the restarts of the running pods count as failures.
    const restarts =
      spec.template?.spec?.restartPolicy === 'OnFailure'
        ? active.reduce(
            (n, p) => n + [...(p.status?.containerStatuses ?? []), ...(p.status?.initContainerStatuses ?? [])].reduce((m, s) => m + (s.restartCount ?? 0), 0),
            0,
          )
        : 0;
    const backoffLimit = spec.backoffLimit ?? 6;
    const complete = indexed
      ? new Set(doneIndexes).size >= (completions ?? 0)
      : completions != null
        ? succeeded >= completions
        : succeeded > 0 && active.length === 0;
    // activeDeadlineSeconds: counted from startTime; the Job is woken when it passes.
    const deadline = spec.activeDeadlineSeconds != null ? Date.parse(status.startTime) + spec.activeDeadlineSeconds * 1000 : undefined;
    const pastDeadline = deadline !== undefined && !complete && now >= deadline;
    if (deadline !== undefined && !pastDeadline && !complete) this.requeue(key, deadline - now);
    const previous = (status.conditions ?? []).find((c) => c.type === 'FailureTarget');
    const failure: [string, string] | undefined = previous
      ? [previous.reason ?? 'BackoffLimitExceeded', previous.message ?? BACKOFF_MESSAGE]
      : pastDeadline
        ? ['DeadlineExceeded', 'Job was active longer than specified deadline']
        : !complete && (failed > backoffLimit || (restarts > 0 && restarts >= backoffLimit))
          ? ['BackoffLimitExceeded', BACKOFF_MESSAGE]
          : undefined;
    const failing = failure !== undefined;
    const succeeding = has(job, 'SuccessCriteriaMet') || complete;

    if (failing || succeeding) {
      // The remaining pods go; the interim condition first, then (once they are gone) the terminal one.
      for (const pod of active) {
        deletePodGracefully(objects, pod);
        events.record(job, { type: 'Normal', reason: 'SuccessfulDelete', message: `Deleted pod: ${pod.metadata.name}`, component: COMPONENT });
      }
      const [interimType, finalType, reason, message] = failing
        ? ['FailureTarget', 'Failed', failure[0], failure[1]]
        : ['SuccessCriteriaMet', 'Complete', interim ? 'CompletionsReached' : undefined, interim ? COMPLETIONS_MESSAGE : undefined];
      if (interim && !conditions.some((c) => c.type === interimType)) conditions.push(condition(interimType, now, reason, message));
      if (!this.pods(job).some(isRunning)) {
        conditions.push(condition(finalType, now, reason, message));
        if (!failing) status.completionTime = k8sTime(now);
        if (failing) events.record(job, { type: 'Warning', reason: failure[0], message: failure[1], component: COMPONENT });
        else events.record(job, { type: 'Normal', reason: 'Completed', message: 'Job completed', component: COMPONENT });
      }
    } else if (!spec.suspend) {
      // Pods to run: up to parallelism, no more than the completions left (or the indexes without a pod).
      const left = indexed
        ? Array.from({ length: completions ?? 0 }, (_, i) => i).filter((i) => !doneIndexes.includes(i) && !active.some((p) => indexOf(p) === i))
        : [];
      const want = indexed
        ? Math.min(parallelism, active.length + left.length)
        : completions != null
          ? Math.min(parallelism, completions - succeeded)
          : succeeded > 0
            ? 0
            : parallelism;
      const wait = want > active.length ? this.backoffLeft(pods, now) : 0;
      if (wait > 0) this.requeue(key, wait);
      else this.bursts.create(key, job, want - active.length, (i) => this.createPod(job, indexed ? left[i] : undefined));
    }
    const after = this.pods(job);
    const current = after.filter(isActive);
    status.active = current.length;
    status.ready = current.filter(isPodReady).length;
    status.terminating = after.filter((p) => p.metadata.deletionTimestamp && isRunning(p)).length;
    if (succeeded > 0) status.succeeded = succeeded;
    if (failed > 0) status.failed = failed;
    if (indexed) status.completedIndexes = indexRanges(doneIndexes);
    status.uncountedTerminatedPods ??= {};
    if (status.active === 0) delete status.active;
    status.conditions = conditions;
    if (conditions.length === 0) delete status.conditions;
    const written = objects.put(JOBS, { ...job, status }, { onlyIfChanged: true }) as Job;
    if (jobFinished(written)) this.expireLater(key, written, now);
  }

  /**
   * The pod failure back-off (job_controller.go's backoffRecord): after n failures since the last success, a new
   * pod waits JOB_BACKOFF.initialMs * 2^(n-1) (at most maxMs) from the last failure. Returns what is left of it.
   */
  private backoffLeft(pods: Pod[], now: number): number {
    // When each pod ended: as this controller saw it happen (the status's times are whole seconds), else its status.
    const finishedAt = (p: Pod) => {
      const uid = String(p.metadata.uid);
      const seen = this.ended.get(uid);
      if (seen !== undefined) return seen;
      const at = Math.max(0, ...(p.status?.containerStatuses ?? []).map((s) => Date.parse(String(s.state?.terminated?.finishedAt ?? '')) || 0));
      this.ended.set(uid, at);
      return at;
    };
    const lastSuccess = Math.max(0, ...pods.filter((p) => p.status?.phase === 'Succeeded').map(finishedAt));
    const failures = pods
      .filter((p) => p.status?.phase === 'Failed')
      .map(finishedAt)
      .filter((t) => t >= lastSuccess);
    if (failures.length === 0) return 0;
    const delay = Math.min(JOB_BACKOFF.initialMs * 2 ** (failures.length - 1), JOB_BACKOFF.maxMs);
    return Math.max(...failures) + delay - now;
  }

  private requeue(key: string, ms: number): void {
    if (this.waits.has(key)) return;
    const timer = setTimeout(() => {
      this.waits.delete(key);
      this.queue.add(key);
    }, ms);
    timer.unref();
    this.waits.set(key, timer);
  }

  private createPod(job: Job, index: number | undefined): KubeObject {
    const template = job.spec?.template;
    if (index === undefined) return createPodFrom(this.ctx.objects, job, template);
    // Indexed: the index as annotation, label, hostname and JOB_COMPLETION_INDEX (the kubelet-visible forms).
    const indexed = structuredClone(template ?? {});
    const meta = (indexed.metadata ??= {});
    meta['annotations'] = { ...((meta['annotations'] as Record<string, string> | undefined) ?? {}), [INDEX_ANNOTATION]: String(index) };
    return createPodFrom(this.ctx.objects, job, indexed, {
      labels: { [INDEX_ANNOTATION]: String(index) },
      spec: (spec) => {
        spec.hostname ??= `${job.metadata.name}-${index}`;
        for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
          const env = Array.isArray(c['env']) ? (c['env'] as unknown[]) : [];
          c['env'] = [
            ...env,
            { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: `metadata.annotations['${INDEX_ANNOTATION}']` } } },
          ];
        }
      },
    });
  }

  /** ttlSecondsAfterFinished: the finished Job is deleted that long after it finished. */
  private expireLater(key: string, job: Job, now: number): void {
    const ttl = job.spec?.ttlSecondsAfterFinished;
    if (ttl == null || ttl < 0 || this.ttl.has(key)) return;
    const finished = (job.status?.conditions ?? []).find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
    const at = Date.parse(finished?.lastTransitionTime ?? '') || now;
    const timer = setTimeout(
      () => {
        this.ttl.delete(key);
        const current = this.ctx.objects.get(JOBS, job.metadata.namespace, job.metadata.name);
        if (current && current.metadata.uid === job.metadata.uid) this.ctx.objects.delete(JOBS, job.metadata.namespace, job.metadata.name);
      },
      Math.max(0, Math.min(at + ttl * 1000 - Date.now(), 2_147_483_647)),
    );
    timer.unref();
    this.ttl.set(key, timer);
  }

  override close(): void {
    super.close();
    for (const t of [...this.ttl.values(), ...this.waits.values()]) clearTimeout(t);
    this.ttl.clear();
    this.waits.clear();
  }
}
