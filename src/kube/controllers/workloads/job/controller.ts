// The Job controller (kube-controller-manager's job controller, pkg/controller/job/job_controller.go):
// runs a Job's pods to completion.
//
// - Pods are created from the template (`generateName: <job>-`, the template's labels — the
//   defaults added `batch.kubernetes.io/job-name`/`controller-uid` and their legacy forms — a
//   controller ownerReference, so the garbage collector cascades deletes) up to
//   min(parallelism, completions - succeeded) active at once; NonIndexed completion only.
// - Finished pods are tracked as kube ≥ 1.26 does: each pod carries the finalizer
//   `batch.kubernetes.io/job-tracking`; a finished pod is first listed in
//   status.uncountedTerminatedPods, its finalizer removed, then counted in succeeded/failed. A pod
//   counts as failed when its phase is Failed or it is deleted before succeeding. Pods this
//   controller deletes itself (suspend, a finished Job, too many active) lose the finalizer first
//   and are not counted. Failed pods are replaced after a backoff (10 s doubling to 10 min).
// - The Job fails (FailureTarget, then Failed once no pod is left) when failed > backoffLimit
//   (BackoffLimitExceeded) or it ran longer than activeDeadlineSeconds (DeadlineExceeded); it
//   succeeds (SuccessCriteriaMet, then Complete with completionTime) once `completions` pods
//   succeeded, or, without completions, once one succeeded and none is left running.
// - spec.suspend deletes the active pods and sets Suspended (startTime is cleared, so the deadline
//   starts over on resume); ttlSecondsAfterFinished deletes a finished Job (the TTL-after-finished
//   controller's job, done here).
// - status: active, succeeded, failed (omitted when 0), ready and terminating (always written, as
//   kube's pointer fields), startTime, completionTime, conditions, uncountedTerminatedPods.
import { isPodReady, isPodTerminal } from '../../../../apimachinery/core/index.ts';
import { isObject } from '../../../../apimachinery/json/index.ts';
import type { JsonObject, ObjectMeta } from '../../../../apimachinery/meta/index.ts';
import { formatTime } from '../../../../apimachinery/time/index.ts';
import type { ResourceCatalog } from '../../../registry/catalog.ts';
import { internalContext } from '../../../registry/context.ts';
import type { ResourceDef } from '../../../registry/resource.ts';
import type { ObjectStore } from '../../../registry/store/index.ts';
import type { Change, Storage } from '../../../storage/storage.ts';
import { ChangeDrivenController } from '../../change-driven.ts';
import { EventRecorder } from '../../events.ts';
import {
  byCreation,
  controllerRef,
  deleteExactly,
  int,
  isNamespaceTerminating,
  labelsOf,
  listObjects,
  nsAndName,
  ownerRefTo,
  parseObject,
  phaseOf,
  retryAfterBackoff,
  slowStartBatch,
  syncBackoff,
  writeStatusUnlessWritten,
  type WorkloadObject,
} from '../common.ts';
import { findCondition, isTrue, jobCondition, MESSAGE, REASON, setCondition } from './conditions.ts';
import { OwnerRouting } from '../routing.ts';
import { deepEqual } from '../../../../apimachinery/json/index.ts';

const COMPONENT = 'job-controller';
const ctx = internalContext(COMPONENT);
const JOB_PREFIX = '/batch/jobs/';
const POD_PREFIX = '/core/pods/';
export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
/** kube's DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff. */
const DEFAULT_POD_FAILURE_BACKOFF_MS = 10_000;
const MAX_POD_FAILURE_BACKOFF_MS = 600_000;
const BURST = 500;

export interface JobControllerOptions {
  /** First delay before a failed pod is replaced, doubling per failure. Default 10 s. */
  podFailureBackoffMs?: number;
}

function isJobPodRef(ref: { apiVersion?: unknown; kind?: unknown } | undefined): boolean {
  return ref?.kind === 'Job' && typeof ref.apiVersion === 'string' && ref.apiVersion.startsWith('batch/');
}

function hasTrackingFinalizer(p: WorkloadObject): boolean {
  return Array.isArray(p.metadata.finalizers) && p.metadata.finalizers.includes(JOB_TRACKING_FINALIZER);
}

/** How a finished pod counts, or undefined while it runs (isPodFailed without podFailurePolicy). */
function outcome(p: WorkloadObject): 'succeeded' | 'failed' | undefined {
  const phase = phaseOf(p);
  if (phase === 'Succeeded') return 'succeeded';
  if (phase === 'Failed' || p.metadata.deletionTimestamp) return 'failed';
  return undefined;
}

function uidList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
}

export class JobController extends ChangeDrivenController {
  private readonly jobsDef: ResourceDef;
  private readonly podsDef: ResourceDef;
  private readonly events: EventRecorder;
  private readonly backoff = syncBackoff();
  private readonly podFailureBackoffMs: number;
  /** When each Job's last counted pod failure happened (ms), for the replacement backoff. */
  private readonly lastFailure = new Map<string, number>();
  private readonly routing: OwnerRouting;

  constructor(storage: Storage, store: ObjectStore, catalog: ResourceCatalog, options: JobControllerOptions = {}) {
    super(COMPONENT, storage, store, catalog);
    this.jobsDef = catalog.lookup('batch', 'v1', 'jobs')!;
    this.podsDef = catalog.lookup('', 'v1', 'pods')!;
    this.events = new EventRecorder(store, catalog, COMPONENT);
    this.podFailureBackoffMs = options.podFailureBackoffMs ?? DEFAULT_POD_FAILURE_BACKOFF_MS;
    this.routing = new OwnerRouting(storage, this.loop, {
      group: 'batch',
      kind: 'Job',
      prefix: JOB_PREFIX,
      // Jobs adopt nothing: only the pods they control wake them.
      owned: [{ prefix: POD_PREFIX }],
      backoff: this.backoff,
      events: this.events,
      onDeleted: (key) => this.lastFailure.delete(key),
      // A deleted Job is synced once more: its pods' tracking finalizers must go.
      syncDeleted: true,
    });
  }

  override start(): void {
    super.start();
    this.routing.enqueueAll();
  }

  protected observe(c: Change): void {
    this.routing.observe(c);
  }

  protected async process(key: string): Promise<void> {
    const job = parseObject(this.storage.get(JOB_PREFIX + key)?.json);
    try {
      if (job) await this.sync(job);
      else await this.releaseOrphans(key);
      this.backoff.forget(key);
    } catch (e) {
      retryAfterBackoff(this.loop, this.backoff, COMPONENT, key, e);
    }
  }

  private podsOf(ns: string, matches: (p: WorkloadObject) => boolean): WorkloadObject[] {
    return listObjects(this.storage, POD_PREFIX, ns).filter(matches);
  }

  /** Pods of a Job that is gone keep no tracking finalizer (the garbage collector deletes them). */
  private async releaseOrphans(key: string): Promise<void> {
    const [ns, name] = nsAndName(key);
    const orphans = this.podsOf(ns, (p) => {
      const ref = controllerRef(p.metadata);
      return isJobPodRef(ref) && ref!.name === name && hasTrackingFinalizer(p);
    });
    for (const p of orphans) {
      const ref = controllerRef(p.metadata)!;
      if (this.storage.list(JOB_PREFIX + `${ns}/`).some((s) => parseObject(s.json)?.metadata.uid === ref.uid)) continue;
      await this.removeFinalizer(p);
    }
  }

  private async removeFinalizer(p: WorkloadObject): Promise<void> {
    await this.store.updateWith(this.podsDef, p.metadata.namespace, p.metadata.name!, ctx, (fresh) => {
      const m = fresh.metadata as ObjectMeta;
      if (m.uid !== p.metadata.uid || !Array.isArray(m.finalizers) || !m.finalizers.includes(JOB_TRACKING_FINALIZER))
        return undefined;
      m.finalizers = m.finalizers.filter((f) => f !== JOB_TRACKING_FINALIZER);
      if (m.finalizers.length === 0) delete m.finalizers;
      return fresh;
    });
  }

  private async writeStatus(job: WorkloadObject, status: JsonObject): Promise<WorkloadObject | undefined> {
    if (deepEqual(status, job.status)) return job;
    const written = await writeStatusUnlessWritten(this.store, this.jobsDef, job, ctx, status);
    return written && parseObject(JSON.stringify(written));
  }

  private async sync(initial: WorkloadObject): Promise<void> {
    let job = initial;
    const key = `${job.metadata.namespace}/${job.metadata.name}`;
    const ns = job.metadata.namespace ?? '';
    const uid = job.metadata.uid!;
    const pods = this.podsOf(ns, (p) => controllerRef(p.metadata)?.uid === uid);
    const nowMs = Date.now();
    const now = formatTime(nowMs);

    // 1. Finished pods still carrying the finalizer are recorded as uncounted, then released.
    const uncounted = isObject(job.status.uncountedTerminatedPods) ? job.status.uncountedTerminatedPods : {};
    const uncSucceeded = new Set(uidList(uncounted.succeeded));
    const uncFailed = new Set(uidList(uncounted.failed));
    const finishing = pods.filter((p) => hasTrackingFinalizer(p) && outcome(p) !== undefined);
    let recorded = false;
    for (const p of finishing) {
      const set = outcome(p) === 'succeeded' ? uncSucceeded : uncFailed;
      if (uncSucceeded.has(p.metadata.uid!) || uncFailed.has(p.metadata.uid!)) continue;
      set.add(p.metadata.uid!);
      recorded = true;
    }
    if (recorded) {
      const next = await this.writeStatus(job, {
        ...job.status,
        uncountedTerminatedPods: {
          ...(uncSucceeded.size ? { succeeded: [...uncSucceeded] } : {}),
          ...(uncFailed.size ? { failed: [...uncFailed] } : {}),
        },
      });
      if (!next) return;
      job = next;
    }
    for (const p of finishing) await this.removeFinalizer(p);

    // 2. Uncounted pods whose finalizer is gone (or that are gone) move into the counts.
    const stillTracked = new Set(pods.filter(hasTrackingFinalizer).map((p) => p.metadata.uid!));
    for (const p of finishing) stillTracked.delete(p.metadata.uid!);
    let succeeded = int(job.status.succeeded);
    let failed = int(job.status.failed);
    let newFailures = 0;
    for (const u of [...uncSucceeded]) {
      if (stillTracked.has(u)) continue;
      succeeded++;
      uncSucceeded.delete(u);
    }
    for (const u of [...uncFailed]) {
      if (stillTracked.has(u)) continue;
      failed++;
      newFailures++;
      uncFailed.delete(u);
    }
    if (newFailures > 0) this.lastFailure.set(key, nowMs);

    const active = pods.filter((p) => !isPodTerminal(p) && !p.metadata.deletionTimestamp);
    let conditions = (Array.isArray(job.status.conditions) ? job.status.conditions : []).filter(isObject);
    const finished = isTrue(conditions, 'Complete') || isTrue(conditions, 'Failed');
    let startTime = typeof job.status.startTime === 'string' ? job.status.startTime : undefined;
    let completionTime = typeof job.status.completionTime === 'string' ? job.status.completionTime : undefined;
    let deleted = new Set<string>();

    if (!finished && !job.metadata.deletionTimestamp) {
      const suspended = job.spec.suspend === true;
      if (suspended) {
        deleted = await this.deletePods(job, active);
        startTime = undefined;
        if (!isTrue(conditions, 'Suspended')) {
          conditions = setCondition(
            conditions,
            jobCondition('Suspended', 'True', 'JobSuspended', 'Job suspended', now),
          );
          await this.event(job, 'Normal', 'Suspended', 'Job suspended');
        }
      } else {
        if (findCondition(conditions, 'Suspended')?.status === 'True') {
          conditions = setCondition(conditions, jobCondition('Suspended', 'False', 'JobResumed', 'Job resumed', now));
          await this.event(job, 'Normal', 'Resumed', 'Job resumed');
        }
        startTime ??= now;
        const target = this.target(job, conditions, { succeeded, failed, active: active.length, startTime, nowMs });
        if (target) {
          if (!findCondition(conditions, target.type)) {
            conditions = setCondition(
              conditions,
              jobCondition(target.type, 'True', target.reason, MESSAGE[target.reason], now),
            );
            if (target.type === 'FailureTarget')
              await this.event(job, 'Warning', target.reason, MESSAGE[target.reason]);
          }
          deleted = await this.deletePods(job, active);
        } else {
          deleted = await this.manage(job, active, succeeded, failed, nowMs);
        }
      }
    }

    const remaining = active.filter((p) => !deleted.has(p.metadata.uid!));
    const terminating = pods.filter(
      (p) => (p.metadata.deletionTimestamp || deleted.has(p.metadata.uid!)) && !isPodTerminal(p),
    ).length;
    // The final condition once nothing runs any more (kube waits for terminating pods too).
    if (!finished && remaining.length === 0 && terminating === 0 && uncSucceeded.size + uncFailed.size === 0) {
      if (isTrue(conditions, 'SuccessCriteriaMet')) {
        const c = findCondition(conditions, 'SuccessCriteriaMet')!;
        conditions = setCondition(
          conditions,
          jobCondition('Complete', 'True', String(c.reason), String(c.message), now),
        );
        completionTime = now;
        await this.event(job, 'Normal', 'Completed', 'Job completed');
      } else if (isTrue(conditions, 'FailureTarget')) {
        const c = findCondition(conditions, 'FailureTarget')!;
        conditions = setCondition(conditions, jobCondition('Failed', 'True', String(c.reason), String(c.message), now));
      }
    }

    const status: JsonObject = {};
    if (conditions.length > 0) status.conditions = conditions;
    if (startTime) status.startTime = startTime;
    if (completionTime) status.completionTime = completionTime;
    if (remaining.length) status.active = remaining.length;
    if (succeeded) status.succeeded = succeeded;
    if (failed) status.failed = failed;
    status.terminating = terminating;
    status.uncountedTerminatedPods = {
      ...(uncSucceeded.size ? { succeeded: [...uncSucceeded] } : {}),
      ...(uncFailed.size ? { failed: [...uncFailed] } : {}),
    };
    status.ready = remaining.filter((p) => isPodReady(p)).length;
    for (const [k, v] of Object.entries(job.status)) if (!(k in status) && !KNOWN_STATUS.has(k)) status[k] = v;
    await this.writeStatus(job, status);

    this.requeueForTime(job, key, status, nowMs);
  }

  /** The success or failure the Job has reached, if any (not yet recorded as a condition pair). */
  private target(
    job: WorkloadObject,
    conditions: JsonObject[],
    s: { succeeded: number; failed: number; active: number; startTime: string; nowMs: number },
  ): { type: string; reason: string } | undefined {
    if (isTrue(conditions, 'SuccessCriteriaMet'))
      return { type: 'SuccessCriteriaMet', reason: REASON.completionsReached };
    if (isTrue(conditions, 'FailureTarget'))
      return { type: 'FailureTarget', reason: String(findCondition(conditions, 'FailureTarget')!.reason) };
    if (s.failed > int(job.spec.backoffLimit, 6)) return { type: 'FailureTarget', reason: REASON.backoffLimitExceeded };
    const deadline = job.spec.activeDeadlineSeconds;
    if (typeof deadline === 'number' && Date.parse(s.startTime) + deadline * 1000 <= s.nowMs)
      return { type: 'FailureTarget', reason: REASON.deadlineExceeded };
    const completions = job.spec.completions;
    const done = typeof completions === 'number' ? s.succeeded >= completions : s.succeeded > 0 && s.active === 0;
    return done ? { type: 'SuccessCriteriaMet', reason: REASON.completionsReached } : undefined;
  }

  /** Creates or deletes pods towards the wanted number of active ones. Returns the deleted uids. */
  private async manage(
    job: WorkloadObject,
    active: WorkloadObject[],
    succeeded: number,
    failed: number,
    nowMs: number,
  ): Promise<Set<string>> {
    const key = `${job.metadata.namespace}/${job.metadata.name}`;
    const parallelism = int(job.spec.parallelism, 1);
    const completions = job.spec.completions;
    // Without completions, once one pod succeeded no new ones start (work-queue Jobs).
    const want =
      typeof completions === 'number'
        ? Math.min(parallelism, Math.max(0, completions - succeeded))
        : succeeded > 0
          ? 0
          : parallelism;
    if (active.length > want) {
      const extra = [...active]
        .sort(byCreation)
        .reverse()
        .slice(0, active.length - want);
      return this.deletePods(job, extra);
    }
    const missing = Math.min(want - active.length, BURST);
    if (missing <= 0) return new Set();
    if (failed > 0) {
      const last = this.lastFailure.get(key);
      const delay = Math.min(MAX_POD_FAILURE_BACKOFF_MS, this.podFailureBackoffMs * 2 ** Math.min(failed - 1, 30));
      if (last !== undefined && nowMs < last + delay) {
        this.loop.addAfter(key, last + delay - nowMs);
        return new Set();
      }
    }
    const template = isObject(job.spec.template) ? job.spec.template : undefined;
    if (!template || !isObject(template.spec)) return new Set();
    const { error } = await slowStartBatch(missing, () => this.createPod(job, template));
    if (error !== undefined && !isNamespaceTerminating(error)) {
      await this.event(job, 'Warning', 'FailedCreate', `Error creating: ${(error as Error).message}`);
      throw error;
    }
    return new Set();
  }

  private async createPod(job: WorkloadObject, template: JsonObject): Promise<void> {
    const tm = (isObject(template.metadata) ? template.metadata : {}) as ObjectMeta;
    const finalizers = Array.isArray(tm.finalizers) ? [...tm.finalizers] : [];
    const metadata: ObjectMeta = {
      generateName: `${job.metadata.name}-`,
      namespace: job.metadata.namespace,
      labels: { ...labelsOf(template) },
      finalizers: [...finalizers, JOB_TRACKING_FINALIZER],
      ownerReferences: [ownerRefTo('Job', job, 'batch/v1')],
    };
    if (isObject(tm.annotations)) metadata.annotations = { ...tm.annotations };
    const pod: JsonObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: metadata as JsonObject,
      spec: structuredClone(template.spec as JsonObject),
    };
    const created = await this.store.create(this.podsDef, job.metadata.namespace, pod, ctx);
    await this.event(
      job,
      'Normal',
      'SuccessfulCreate',
      `Created pod: ${String((created.metadata as ObjectMeta).name)}`,
    );
  }

  /** deleteJobPods: the finalizer goes first, so these pods are not counted. */
  private async deletePods(job: WorkloadObject, pods: WorkloadObject[]): Promise<Set<string>> {
    const done = new Set<string>();
    for (const p of pods) {
      await this.removeFinalizer(p);
      if (await deleteExactly(this.store, this.podsDef, p.metadata, ctx))
        await this.event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
      done.add(p.metadata.uid!);
    }
    return done;
  }

  /** Looks again when the deadline passes, or deletes a finished Job whose TTL ran out. */
  private requeueForTime(job: WorkloadObject, key: string, status: JsonObject, nowMs: number): void {
    const conditions = (status.conditions ?? []) as JsonObject[];
    const finishedAt = [findCondition(conditions, 'Complete'), findCondition(conditions, 'Failed')].find(
      (c) => c?.status === 'True',
    )?.lastTransitionTime;
    const ttl = job.spec.ttlSecondsAfterFinished;
    if (typeof finishedAt === 'string' && typeof ttl === 'number') {
      const due = Date.parse(finishedAt) + ttl * 1000;
      if (due <= nowMs) void this.deleteFinished(job);
      else this.loop.addAfter(key, due - nowMs + 1);
      return;
    }
    const deadline = job.spec.activeDeadlineSeconds;
    if (typeof finishedAt !== 'string' && typeof deadline === 'number' && typeof status.startTime === 'string') {
      const due = Date.parse(status.startTime) + deadline * 1000;
      if (due > nowMs) this.loop.addAfter(key, due - nowMs + 1);
    }
  }

  /** The TTL-after-finished controller deletes with foreground propagation. */
  private async deleteFinished(job: WorkloadObject): Promise<void> {
    try {
      await deleteExactly(this.store, this.jobsDef, job.metadata, ctx, 'Foreground');
    } catch (e) {
      console.error(`peerpods ${COMPONENT}: ${(e as Error).message}`);
    }
  }

  private async event(job: WorkloadObject, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    await this.events.recordBestEffort(
      { apiVersion: 'batch/v1', kind: 'Job', metadata: job.metadata },
      type,
      reason,
      message,
    );
  }
}

/** Status fields this controller owns; others are kept as written. */
const KNOWN_STATUS = new Set([
  'conditions',
  'startTime',
  'completionTime',
  'active',
  'succeeded',
  'failed',
  'terminating',
  'ready',
  'uncountedTerminatedPods',
]);
