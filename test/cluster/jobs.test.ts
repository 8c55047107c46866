// batch/v1 Jobs and CronJobs through the real kubectl: a Job whose pod runs `sh -c 'echo done'` completes
// (`kubectl wait --for=condition=complete` succeeds, the conditions and counts as the 1.31+ job controller
// writes them, kubectl's STATUS / COMPLETIONS columns), parallel and indexed completions, a failing Job ends
// Failed with BackoffLimitExceeded, the apiserver's defaults and refusals, ttlSecondsAfterFinished, and a
// CronJob stored with its defaults.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { stringify } from 'yaml';
import { JOB_BACKOFF } from '../../src/cluster/controllers/jobs.js';
import { api, eventually, HAVE_KUBECTL, kubectl, withCluster, type ClusterEnv } from './harness.js';

const skip = HAVE_KUBECTL ? false : 'no /usr/bin/kubectl on this machine';

type Obj = Record<string, any>;

function job(name: string, script: string, spec: Obj = {}, restartPolicy = 'Never'): Obj {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: { ...spec, template: { spec: { restartPolicy, containers: [{ name: 'work', image: 'busybox:1.36', command: ['sh', '-c', script] }] } } },
  };
}

async function create(env: ClusterEnv, objects: Obj[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const file = join(env.scratch, `objects-${Date.now()}-${Math.random()}.yaml`);
  writeFileSync(file, objects.map((o) => stringify(o)).join('---\n'));
  return kubectl(env, ['create', '-f', file]);
}

async function getJob(env: ClusterEnv, name: string): Promise<Obj> {
  return (await api(env, 'GET', `/apis/batch/v1/namespaces/default/jobs/${name}`)).json;
}

describe('batch/v1 Jobs and CronJobs', { skip }, () => {
  test('Jobs run their pods to completion or fail; CronJobs are stored with their defaults', () =>
    withCluster({ networkPlugin: 'kubenet' }, async (env) => {
      // The pod failure back-off, shortened: 10 s doubling in a real cluster.
      JOB_BACKOFF.initialMs = 500;
      const made = await create(env, [
        job('hello', 'echo done'),
        job('fails', 'echo trying; exit 2', { backoffLimit: 1 }),
        job('many', 'echo part', { completions: 3, parallelism: 2 }),
        job('indexed', 'echo index $JOB_COMPLETION_INDEX', { completions: 3, parallelism: 3, completionMode: 'Indexed' }),
        job('brief', 'true', { ttlSecondsAfterFinished: 0 }),
        job('slow', 'sleep 3600', { activeDeadlineSeconds: 2 }),
        {
          apiVersion: 'batch/v1',
          kind: 'CronJob',
          metadata: { name: 'nightly' },
          spec: {
            schedule: '0 3 * * *',
            jobTemplate: {
              spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox:1.36', command: ['true'] }] } } },
            },
          },
        },
      ]);
      assert.equal(made.code, 0, made.stderr);

      const waited = await kubectl(env, ['wait', '--for=condition=complete', 'job/hello', '--timeout=30s']);
      assert.equal(waited.code, 0, waited.stderr);
      assert.equal(waited.stdout.trim(), 'job.batch/hello condition met');
      const hello = await getJob(env, 'hello');
      const uid = hello.metadata.uid;
      // SetDefaults_Job and the generated selector.
      assert.deepEqual(
        [
          hello.spec.completions,
          hello.spec.parallelism,
          hello.spec.backoffLimit,
          hello.spec.completionMode,
          hello.spec.suspend,
          hello.spec.podReplacementPolicy,
        ],
        [1, 1, 6, 'NonIndexed', false, 'TerminatingOrFailed'],
      );
      assert.deepEqual(hello.spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
      assert.equal(hello.spec.template.metadata.labels['batch.kubernetes.io/job-name'], 'hello');
      assert.equal(hello.spec.template.metadata.labels['controller-uid'], uid);
      // The status the controller writes (cluster 1.32: the interim condition, then Complete with its reason).
      assert.equal(hello.status.succeeded, 1);
      assert.equal(hello.status.active, undefined);
      assert.equal(hello.status.ready, 0);
      assert.equal(hello.status.terminating, 0);
      assert.deepEqual(hello.status.uncountedTerminatedPods, {});
      assert.ok(hello.status.startTime && hello.status.completionTime);
      assert.deepEqual(
        hello.status.conditions.map((c: Obj) => [c.type, c.status, c.reason, c.message]),
        [
          ['SuccessCriteriaMet', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods'],
          ['Complete', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods'],
        ],
      );
      // Its pod: labelled, owned, Completed, its log readable through the job.
      const pods = (await api(env, 'GET', '/api/v1/namespaces/default/pods?labelSelector=batch.kubernetes.io%2Fjob-name%3Dhello')).json.items as Obj[];
      assert.equal(pods.length, 1);
      assert.match(pods[0]!.metadata.name, /^hello-[a-z0-9]{5}$/);
      assert.equal(pods[0]!.metadata.ownerReferences[0].kind, 'Job');
      assert.equal(pods[0]!.status.phase, 'Succeeded');
      assert.equal((await kubectl(env, ['logs', 'job/hello'])).stdout, 'done\n');

      // A failing Job: retried until more than backoffLimit pods failed, then Failed.
      const failedWait = await kubectl(env, ['wait', '--for=condition=failed', 'job/fails', '--timeout=30s']);
      assert.equal(failedWait.code, 0, failedWait.stderr);
      const fails = await getJob(env, 'fails');
      assert.equal(fails.status.failed, 2);
      assert.equal(fails.status.completionTime, undefined);
      assert.deepEqual(
        fails.status.conditions.map((c: Obj) => [c.type, c.reason, c.message]),
        [
          ['FailureTarget', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
          ['Failed', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
        ],
      );
      const events = (await api(env, 'GET', '/api/v1/namespaces/default/events')).json.items as Obj[];
      assert.ok(events.some((e) => e.involvedObject.name === 'fails' && e.reason === 'BackoffLimitExceeded' && e.type === 'Warning'));
      assert.ok(events.some((e) => e.involvedObject.name === 'hello' && e.reason === 'Completed' && e.message === 'Job completed'));

      // activeDeadlineSeconds: the running pod is deleted and the Job Failed with DeadlineExceeded.
      const slowWait = await kubectl(env, ['wait', '--for=condition=failed', 'job/slow', '--timeout=30s']);
      assert.equal(slowWait.code, 0, slowWait.stderr);
      assert.deepEqual(
        (await getJob(env, 'slow')).status.conditions.map((c: Obj) => [c.type, c.reason, c.message]),
        [
          ['FailureTarget', 'DeadlineExceeded', 'Job was active longer than specified deadline'],
          ['Failed', 'DeadlineExceeded', 'Job was active longer than specified deadline'],
        ],
      );

      // Completions 3, two at a time; indexed completions.
      const more = await kubectl(env, ['wait', '--for=condition=complete', 'job/many', 'job/indexed', '--timeout=30s']);
      assert.equal(more.code, 0, more.stderr);
      assert.equal((await getJob(env, 'many')).status.succeeded, 3);
      const indexed = await getJob(env, 'indexed');
      assert.equal(indexed.status.completedIndexes, '0-2');
      const indexLogs = await kubectl(env, ['logs', '-l', 'batch.kubernetes.io/job-name=indexed']);
      assert.deepEqual(indexLogs.stdout.trim().split('\n').sort(), ['index 0', 'index 1', 'index 2']);

      // kubectl get jobs: STATUS, COMPLETIONS, DURATION, AGE.
      const table = await kubectl(env, ['get', 'jobs', 'hello', 'fails', 'many']);
      const rows = table.stdout
        .trim()
        .split('\n')
        .map((l) => l.trim().split(/\s{2,}/));
      assert.deepEqual(rows[0], ['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE']);
      assert.deepEqual(
        rows.slice(1).map((r) => r.slice(0, 3)),
        [
          ['hello', 'Complete', '1/1'],
          ['fails', 'Failed', '0/1'],
          ['many', 'Complete', '3/3'],
        ],
      );

      // ttlSecondsAfterFinished 0: the finished Job and its pods go.
      await eventually(async () => (await api(env, 'GET', '/apis/batch/v1/namespaces/default/jobs/brief')).status === 404, 15_000, 'brief to go');
      await eventually(
        async () => (await api(env, 'GET', '/api/v1/namespaces/default/pods?labelSelector=job-name%3Dbrief')).json.items.length === 0,
        10_000,
        'its pod to go',
      );

      // Deleting a Job deletes its pods.
      const deleted = await kubectl(env, ['delete', 'job', 'hello']);
      assert.equal(deleted.code, 0, deleted.stderr);
      await eventually(
        async () => (await api(env, 'GET', '/api/v1/namespaces/default/pods?labelSelector=job-name%3Dhello')).json.items.length === 0,
        10_000,
        'the pods of hello to go',
      );

      // What the apiserver refuses: a Job whose pods would restart forever.
      const always = await create(env, [job('forever', 'true', {}, 'Always')]);
      assert.notEqual(always.code, 0);
      assert.match(always.stderr, /spec\.template\.spec\.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"/);

      // A CronJob, stored with SetDefaults_CronJob's fields.
      const cron = (await api(env, 'GET', '/apis/batch/v1/namespaces/default/cronjobs/nightly')).json;
      assert.deepEqual(
        [cron.spec.concurrencyPolicy, cron.spec.suspend, cron.spec.successfulJobsHistoryLimit, cron.spec.failedJobsHistoryLimit],
        ['Allow', false, 3, 1],
      );
      const cronTable = await kubectl(env, ['get', 'cj']);
      const cronRows = cronTable.stdout
        .trim()
        .split('\n')
        .map((l) => l.trim().split(/\s{2,}/));
      assert.deepEqual(cronRows[0], ['NAME', 'SCHEDULE', 'TIMEZONE', 'SUSPEND', 'ACTIVE', 'LAST SCHEDULE', 'AGE']);
      assert.deepEqual(cronRows[1]!.slice(0, 6), ['nightly', '0 3 * * *', '<none>', 'False', '0', '<none>']);
    }));
});
