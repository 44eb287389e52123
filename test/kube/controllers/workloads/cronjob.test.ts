// batch/v1 CronJobs: served (defaults, schedule validation worded as robfig/cron and
// validateScheduleFormat in pkg/apis/batch/validation/validation.go, kubectl's Table columns from
// printCronJob in pkg/printers/internalversion/printers.go) and run by the CronJob controller
// (pkg/controller/cronjob/cronjob_controllerv2.go) under a clock the test drives: Jobs named
// `<cronjob>-<minutes since epoch>` with the scheduled-timestamp annotation, Forbid, history limits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl } from '../../../helpers/kubectl.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import { nextTime, parseSchedule } from '../../../../src/kube/builtins/cron.ts';

interface Obj extends JsonObject {
  metadata: JsonObject & { name: string; uid: string; annotations?: Record<string, string> };
  spec: JsonObject;
  status: JsonObject;
}

/** `eventually` for checks that return the object they waited for. */
async function found<T>(check: () => T | undefined, opts: { what: string }): Promise<T> {
  return (await eventually(check, opts)) as T;
}

describe('cron schedules', () => {
  test('next times in UTC and in a time zone', () => {
    const at = Date.parse('2025-03-10T10:07:30Z');
    assert.equal(new Date(nextTime(parseSchedule('*/15 * * * *'), at)!).toISOString(), '2025-03-10T10:15:00.000Z');
    assert.equal(new Date(nextTime(parseSchedule('@hourly'), at)!).toISOString(), '2025-03-10T11:00:00.000Z');
    assert.equal(new Date(nextTime(parseSchedule('0 3 * * 1-5'), at)!).toISOString(), '2025-03-11T03:00:00.000Z');
    assert.equal(new Date(nextTime(parseSchedule('@monthly'), at)!).toISOString(), '2025-04-01T00:00:00.000Z');
    // 03:00 in Paris (UTC+1 in March before the switch) is 02:00Z.
    assert.equal(
      new Date(nextTime(parseSchedule('0 3 * * *'), at, 'Europe/Paris')!).toISOString(),
      '2025-03-11T02:00:00.000Z',
    );
  });

  test('parse errors are worded as robfig/cron', () => {
    assert.throws(() => parseSchedule('61 * * * *'), { message: 'end of range (61) above maximum (59): 61' });
    assert.throws(() => parseSchedule('* * *'), { message: 'expected exactly 5 fields, found 3: [* * *]' });
    assert.throws(() => parseSchedule('@often'), { message: 'unrecognized descriptor: @often' });
  });
});

describe('CronJob controller', () => {
  let cp: TestCluster;
  let now = Date.now();
  before(async () => {
    cp = await startTestCluster({ nodes: 1, clock: { now: () => now }, cronJobResyncMs: 50 });
  });
  after(() => cp.stop());

  const get = (prefix: string, ns: string, name: string): Obj | undefined => {
    const s = cp.internals.storage.get(`${prefix}${ns}/${name}`);
    return s ? (JSON.parse(s.json) as Obj) : undefined;
  };
  const jobsOf = (ns: string, cronJob: string): Obj[] =>
    cp.internals.storage
      .list(`/batch/jobs/${ns}/`)
      .map((s) => JSON.parse(s.json) as Obj)
      .filter((j) => ((j.metadata.ownerReferences ?? []) as JsonObject[]).some((r) => r.name === cronJob));
  const isComplete = (j: Obj): boolean =>
    ((j.status.conditions ?? []) as JsonObject[]).some((c) => c.type === 'Complete' && c.status === 'True');
  /** Moves the driven clock to the next whole minute (plus a second). */
  const nextMinute = (): number => {
    now = (Math.floor(now / 60_000) + 1) * 60_000 + 1000;
    return Math.floor((now - 1000) / 60_000);
  };
  const apply = async (manifest: JsonObject): Promise<void> => {
    const r = await kubectl(cp.kubeconfigPath, ['apply', '-f', '-'], { input: JSON.stringify(manifest) });
    assert.equal(r.code, 0, r.stderr);
  };
  const cronJob = (name: string, spec: JsonObject, command: string[]): JsonObject => ({
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name, namespace: 'default' },
    spec: {
      schedule: '* * * * *',
      ...spec,
      jobTemplate: {
        spec: {
          template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command }] } },
        },
      },
    },
  });

  test('defaults, validation and kubectl columns', async () => {
    for (const version of ['1.27', '1.33']) {
      const name = `tick-${version.replace('.', '-')}`;
      const created = await kubectl(
        cp.kubeconfigPath,
        ['create', 'cronjob', name, '--image=busybox', '--schedule=*/5 * * * *', '--', 'sh', '-c', 'exit 0'],
        { version },
      );
      assert.equal(created.code, 0, created.stderr);
      const cj = get('/batch/cronjobs/', 'default', name)!;
      assert.equal(cj.spec.concurrencyPolicy, 'Allow');
      assert.equal(cj.spec.suspend, false);
      assert.equal(cj.spec.successfulJobsHistoryLimit, 3);
      assert.equal(cj.spec.failedJobsHistoryLimit, 1);
      const got = await kubectl(cp.kubeconfigPath, ['get', 'cronjob', name], { version });
      assert.equal(got.code, 0, got.stderr);
      const [header, row] = got.stdout.trimEnd().split('\n');
      assert.match(header, /^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE$/);
      assert.match(row, new RegExp(`^${name}\\s+\\*/5 \\* \\* \\* \\*\\s+<none>\\s+False\\s+0\\s+<none>\\s+\\S+$`));
      const bad = await kubectl(
        cp.kubeconfigPath,
        ['create', 'cronjob', 'bad', '--image=busybox', '--schedule=61 * * * *'],
        { version },
      );
      assert.notEqual(bad.code, 0);
      assert.match(
        bad.stderr,
        /CronJob\.batch "bad" is invalid: spec\.schedule: Invalid value: "61 \* \* \* \*": end of range \(61\) above maximum \(59\): 61/,
      );
      // create job --from=cronjob/x copies the template and runs to completion.
      const fromCron = await kubectl(cp.kubeconfigPath, ['create', 'job', `${name}-manual`, `--from=cronjob/${name}`], {
        version,
      });
      assert.equal(fromCron.code, 0, fromCron.stderr);
      const wait = await kubectl(
        cp.kubeconfigPath,
        ['wait', '--for=condition=complete', `job/${name}-manual`, '--timeout=30s'],
        { version },
      );
      assert.equal(wait.code, 0, wait.stderr);
    }
  });

  test('creates a Job per scheduled minute and keeps successfulJobsHistoryLimit of them', async () => {
    now = Date.now() - 120_000; // behind the CronJob's creation: nothing is due yet
    await apply(cronJob('every', { successfulJobsHistoryLimit: 2 }, ['sh', '-c', 'exit 0']));
    const cj = get('/batch/cronjobs/', 'default', 'every')!;
    now = Date.parse(String(cj.metadata.creationTimestamp));
    const names: string[] = [];
    for (let i = 0; i < 3; i++) {
      const minute = nextMinute();
      const name = `every-${minute}`;
      names.push(name);
      const job = await found(() => get('/batch/jobs/', 'default', name), { what: `job ${name}` });
      assert.equal(
        job.metadata.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'],
        new Date(minute * 60_000).toISOString().replace('.000Z', 'Z'),
      );
      assert.deepEqual(job.metadata.ownerReferences, [
        {
          apiVersion: 'batch/v1',
          kind: 'CronJob',
          name: 'every',
          uid: cj.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      await eventually(() => isComplete(get('/batch/jobs/', 'default', name) ?? job), { what: `${name} complete` });
      await eventually(() => !get('/batch/cronjobs/', 'default', 'every')!.status.active, { what: 'active cleared' });
    }
    // The oldest of three successful Jobs goes.
    await eventually(() => !get('/batch/jobs/', 'default', names[0]), { what: 'history limit' });
    assert.deepEqual(
      jobsOf('default', 'every')
        .map((j) => j.metadata.name)
        .sort(),
      names.slice(1).sort(),
    );
    const status = get('/batch/cronjobs/', 'default', 'every')!.status;
    assert.equal(
      status.lastScheduleTime,
      new Date(Math.floor(now / 60_000) * 60_000).toISOString().replace('.000Z', 'Z'),
    );
    assert.ok(status.lastSuccessfulTime);
    await kubectl(cp.kubeconfigPath, ['delete', 'cronjob', 'every']);
  });

  test('concurrencyPolicy Forbid skips runs while a Job is active', async () => {
    now = Date.now() - 120_000;
    await apply(cronJob('forbid', { concurrencyPolicy: 'Forbid' }, ['sleep', '3600']));
    now = Date.parse(String(get('/batch/cronjobs/', 'default', 'forbid')!.metadata.creationTimestamp));
    nextMinute();
    await eventually(() => jobsOf('default', 'forbid').length === 1, { what: 'first job' });
    await eventually(
      () => ((get('/batch/cronjobs/', 'default', 'forbid')!.status.active ?? []) as JsonObject[]).length === 1,
      { what: 'one active' },
    );
    const skipped = `forbid-${nextMinute()}`;
    const events = (): string[] =>
      cp.internals.storage
        .list('/core/events/default/')
        .map((s) => JSON.parse(s.json) as JsonObject)
        .filter((e) => (e.involvedObject as JsonObject).name === 'forbid')
        .map((e) => String(e.reason));
    await eventually(() => events().includes('JobAlreadyActive'), { what: 'JobAlreadyActive event' });
    assert.equal(get('/batch/jobs/', 'default', skipped), undefined);
    assert.equal(jobsOf('default', 'forbid').length, 1);
  });
});
