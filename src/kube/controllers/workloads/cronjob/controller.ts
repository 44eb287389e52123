// The CronJob controller (kube-controller-manager's cronjob controller v2,
// pkg/controller/cronjob/cronjob_controllerv2.go and utils.go): creates Jobs on schedule.
//
// - The most recent schedule time in (lastScheduleTime or creation, now] is run, once: the Job is
//   `<cronjob>-<scheduled time in minutes since the epoch>` with the template's labels and
//   annotations, the annotation `batch.kubernetes.io/cronjob-scheduled-timestamp` (RFC 3339 in the
//   CronJob's time zone) and a controller ownerReference; status.active gains a reference to it
//   and status.lastScheduleTime becomes the scheduled time. Missed times older than
//   startingDeadlineSeconds are not run.
// - concurrencyPolicy: Allow runs regardless; Forbid skips the run while a Job is active (the run
//   happens once it finished, if still within the deadline); Replace deletes the active Jobs first.
// - Finished Jobs leave status.active (lastSuccessfulTime from a Complete one); beyond
//   successfulJobsHistoryLimit / failedJobsHistoryLimit the oldest finished Jobs are deleted.
// - Suspended CronJobs create nothing. Time comes from a clock the control plane is given, so tests
//   can drive it: each CronJob is looked at when its next time is due and on a periodic resync.
import { deepEqual, isObject } from '../../../../apimachinery/json/index.ts';
import type { PassiveClock } from '../../../../apimachinery/backoff.ts';
import type { JsonObject, ObjectMeta } from '../../../../apimachinery/meta/index.ts';
import { formatTime } from '../../../../apimachinery/time/index.ts';
import { formatInZone, nextTime, parseSchedule, type Schedule } from '../../../builtins/cron.ts';
import type { ResourceCatalog } from '../../../registry/catalog.ts';
import { internalContext } from '../../../registry/context.ts';
import type { ResourceDef } from '../../../registry/resource.ts';
import type { ObjectStore } from '../../../registry/store/index.ts';
import type { Change, Storage } from '../../../storage/storage.ts';
import { ChangeDrivenController } from '../../change-driven.ts';
import { EventRecorder } from '../../events.ts';
import {
  controllerRef,
  deleteExactly,
  errorCode,
  int,
  listObjects,
  ownerRefTo,
  parseObject,
  retryAfterBackoff,
  syncBackoff,
  writeStatusUnlessWritten,
  type WorkloadObject,
} from '../common.ts';
import { OwnerRouting } from '../routing.ts';

const COMPONENT = 'cronjob-controller';
const ctx = internalContext(COMPONENT);
const CRONJOB_PREFIX = '/batch/cronjobs/';
const JOB_PREFIX = '/batch/jobs/';
export const SCHEDULED_TIMESTAMP_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
/** kube gives up listing missed times past this many (and says so in an event). */
const MAX_MISSED = 100;

export interface CronJobControllerOptions {
  clock?: PassiveClock;
  /** How often every CronJob is looked at besides its own timer. Default 10 s. */
  resyncMs?: number;
}

function finishedType(job: WorkloadObject): 'Complete' | 'Failed' | undefined {
  const conditions = Array.isArray(job.status.conditions) ? job.status.conditions.filter(isObject) : [];
  for (const type of ['Complete', 'Failed'] as const)
    if (conditions.some((c) => c.type === type && c.status === 'True')) return type;
  return undefined;
}

function timeOf(v: unknown): number | undefined {
  const t = typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isNaN(t) ? undefined : t;
}

export class CronJobController extends ChangeDrivenController {
  private readonly cronJobsDef: ResourceDef;
  private readonly jobsDef: ResourceDef;
  private readonly events: EventRecorder;
  private readonly backoff = syncBackoff();
  private readonly clock: PassiveClock;
  private readonly resyncMs: number;
  private resync?: NodeJS.Timeout;
  private readonly routing: OwnerRouting;

  constructor(storage: Storage, store: ObjectStore, catalog: ResourceCatalog, options: CronJobControllerOptions = {}) {
    super(COMPONENT, storage, store, catalog);
    this.cronJobsDef = catalog.lookup('batch', 'v1', 'cronjobs')!;
    this.jobsDef = catalog.lookup('batch', 'v1', 'jobs')!;
    this.events = new EventRecorder(store, catalog, COMPONENT);
    this.clock = options.clock ?? { now: () => Date.now() };
    this.resyncMs = options.resyncMs ?? 10_000;
    this.routing = new OwnerRouting(storage, this.loop, {
      group: 'batch',
      kind: 'CronJob',
      prefix: CRONJOB_PREFIX,
      // CronJobs adopt nothing: only the Jobs they control wake them.
      owned: [{ prefix: JOB_PREFIX }],
      backoff: this.backoff,
      events: this.events,
    });
  }

  override start(): void {
    super.start();
    this.routing.enqueueAll();
    this.resync = setInterval(() => this.routing.enqueueAll(), this.resyncMs);
    this.resync.unref();
  }

  override stop(): void {
    clearInterval(this.resync);
    super.stop();
  }

  protected observe(c: Change): void {
    this.routing.observe(c);
  }

  protected async process(key: string): Promise<void> {
    const cj = parseObject(this.storage.get(CRONJOB_PREFIX + key)?.json);
    if (!cj || cj.metadata.deletionTimestamp) return;
    try {
      await this.sync(cj, key);
      this.backoff.forget(key);
    } catch (e) {
      retryAfterBackoff(this.loop, this.backoff, COMPONENT, key, e);
    }
  }

  private jobsOf(cj: WorkloadObject): WorkloadObject[] {
    return listObjects(this.storage, JOB_PREFIX, cj.metadata.namespace ?? '').filter(
      (j) => controllerRef(j.metadata)?.uid === cj.metadata.uid,
    );
  }

  private async sync(cj: WorkloadObject, key: string): Promise<void> {
    const now = this.clock.now();
    const jobs = this.jobsOf(cj);
    const byUid = new Map(jobs.map((j) => [j.metadata.uid!, j]));
    const status: JsonObject = { ...cj.status };
    let active = (Array.isArray(cj.status.active) ? cj.status.active : []).filter(isObject);

    // Active references: finished Jobs leave, Jobs that are gone leave; running Jobs it owns join.
    for (const j of jobs) {
      const finished = finishedType(j);
      const listed = active.some((r) => r.uid === j.metadata.uid);
      if (!finished && !listed) active = [...active, this.jobRef(j)];
      if (finished && listed) {
        active = active.filter((r) => r.uid !== j.metadata.uid);
        await this.event(
          cj,
          'Normal',
          'SawCompletedJob',
          `Saw completed job: ${j.metadata.name}, condition: ${finished}`,
        );
      }
      const completed = timeOf(j.status.completionTime);
      if (finished === 'Complete' && completed !== undefined) {
        const last = timeOf(status.lastSuccessfulTime);
        if (last === undefined || completed > last) status.lastSuccessfulTime = formatTime(completed);
      }
    }
    active = active.filter((r) => byUid.has(String(r.uid)));

    await this.cleanupHistory(cj, jobs);

    let schedule: Schedule | undefined;
    try {
      schedule = parseSchedule(String(cj.spec.schedule ?? ''));
    } catch {
      schedule = undefined;
    }
    const tz = typeof cj.spec.timeZone === 'string' ? cj.spec.timeZone : 'UTC';
    if (schedule && cj.spec.suspend !== true) {
      const scheduled = this.mostRecent(cj, schedule, tz, now);
      const deadline = cj.spec.startingDeadlineSeconds;
      const tooLate = scheduled !== undefined && typeof deadline === 'number' && scheduled < now - deadline * 1000;
      if (scheduled !== undefined && tooLate) {
        await this.event(
          cj,
          'Warning',
          'MissSchedule',
          `Missed scheduled time to start a job: ${formatInZone(scheduled, tz)}`,
        );
      } else if (scheduled !== undefined) {
        const policy = cj.spec.concurrencyPolicy;
        if (policy === 'Forbid' && active.length > 0) {
          await this.event(
            cj,
            'Normal',
            'JobAlreadyActive',
            'Not starting job because prior execution is running and concurrency policy is Forbid',
          );
        } else {
          if (policy === 'Replace') {
            for (const r of active) {
              const j = byUid.get(String(r.uid));
              if (j) await this.deleteJob(cj, j);
            }
            active = [];
          }
          const created = await this.createJob(cj, scheduled, tz);
          if (created && !active.some((r) => r.uid === created.metadata.uid))
            active = [...active, this.jobRef(created)];
          status.lastScheduleTime = formatTime(scheduled);
        }
      }
    }

    if (active.length > 0) status.active = active;
    else delete status.active;
    await this.writeStatus(cj, status);

    if (schedule && cj.spec.suspend !== true) {
      const next = nextTime(schedule, now, tz);
      if (next !== undefined) this.loop.addAfter(key, Math.min(next - now + 100, this.resyncMs));
    }
  }

  /** mostRecentScheduleTime: the latest scheduled time in (earliest, now], if any. */
  private mostRecent(cj: WorkloadObject, schedule: Schedule, tz: string, now: number): number | undefined {
    let earliest = timeOf(cj.status.lastScheduleTime) ?? timeOf(cj.metadata.creationTimestamp) ?? now;
    const deadline = cj.spec.startingDeadlineSeconds;
    if (typeof deadline === 'number') earliest = Math.max(earliest, now - deadline * 1000);
    let t = nextTime(schedule, earliest, tz);
    if (t === undefined || t > now) return undefined;
    let missed = 0;
    for (;;) {
      const n = nextTime(schedule, t, tz);
      if (n === undefined || n > now) return t;
      t = n;
      // Far behind: search backwards from now instead of walking every missed time.
      if (++missed > MAX_MISSED) return this.latestBefore(schedule, now, tz) ?? t;
    }
  }

  /** The latest scheduled time at or before `now`, searched backwards hour by hour. */
  private latestBefore(schedule: Schedule, now: number, tz: string): number | undefined {
    for (let from = now - 3_600_000; from > now - 366 * 86_400_000; from -= 3_600_000) {
      let t = nextTime(schedule, from, tz);
      if (t === undefined || t > now) continue;
      for (let n = nextTime(schedule, t, tz); n !== undefined && n <= now; n = nextTime(schedule, n, tz)) t = n;
      return t;
    }
    return undefined;
  }

  private jobRef(j: WorkloadObject): JsonObject {
    return {
      kind: 'Job',
      namespace: j.metadata.namespace,
      name: j.metadata.name,
      uid: j.metadata.uid,
      apiVersion: 'batch/v1',
      resourceVersion: j.metadata.resourceVersion,
    };
  }

  private async createJob(cj: WorkloadObject, scheduled: number, tz: string): Promise<WorkloadObject | undefined> {
    const template = isObject(cj.spec.jobTemplate) ? cj.spec.jobTemplate : {};
    const tm = (isObject(template.metadata) ? template.metadata : {}) as ObjectMeta;
    const name = `${cj.metadata.name}-${Math.floor(scheduled / 60_000)}`;
    const metadata: ObjectMeta = {
      name,
      namespace: cj.metadata.namespace,
      ...(isObject(tm.labels) ? { labels: { ...tm.labels } } : {}),
      annotations: {
        ...(isObject(tm.annotations) ? tm.annotations : {}),
        [SCHEDULED_TIMESTAMP_ANNOTATION]: formatInZone(scheduled, tz),
      },
      ownerReferences: [ownerRefTo('CronJob', cj, 'batch/v1')],
    };
    const job: JsonObject = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: metadata as JsonObject,
      spec: structuredClone(isObject(template.spec) ? template.spec : {}),
    };
    try {
      const created = await this.store.create(this.jobsDef, cj.metadata.namespace, job, ctx);
      await this.event(cj, 'Normal', 'SuccessfulCreate', `Created job ${name}`);
      return parseObject(JSON.stringify(created));
    } catch (e) {
      // Created by an earlier sync whose status write was lost: that Job is the one.
      if (errorCode(e) === 409)
        return parseObject(this.storage.get(`${JOB_PREFIX}${cj.metadata.namespace}/${name}`)?.json);
      await this.event(cj, 'Warning', 'FailedCreate', `Error creating job: ${(e as Error).message}`);
      throw e;
    }
  }

  private async deleteJob(cj: WorkloadObject, j: WorkloadObject): Promise<void> {
    if (await deleteExactly(this.store, this.jobsDef, j.metadata, ctx, 'Background'))
      await this.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${j.metadata.name}`);
  }

  /** cleanupFinishedJobs: the oldest (by start time) beyond each history limit are deleted. */
  private async cleanupHistory(cj: WorkloadObject, jobs: WorkloadObject[]): Promise<void> {
    const limits = {
      Complete: int(cj.spec.successfulJobsHistoryLimit, 3),
      Failed: int(cj.spec.failedJobsHistoryLimit, 1),
    };
    for (const type of ['Complete', 'Failed'] as const) {
      const done = jobs
        .filter((j) => finishedType(j) === type && !j.metadata.deletionTimestamp)
        .sort((a, b) => (timeOf(a.status.startTime) ?? 0) - (timeOf(b.status.startTime) ?? 0));
      for (const j of done.slice(0, Math.max(0, done.length - limits[type]))) await this.deleteJob(cj, j);
    }
  }

  private async writeStatus(cj: WorkloadObject, status: JsonObject): Promise<void> {
    if (deepEqual(status, cj.status)) return;
    await writeStatusUnlessWritten(this.store, this.cronJobsDef, cj, ctx, status);
  }

  private async event(cj: WorkloadObject, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    await this.events.recordBestEffort(
      { apiVersion: 'batch/v1', kind: 'CronJob', metadata: cj.metadata },
      type,
      reason,
      message,
    );
  }
}
