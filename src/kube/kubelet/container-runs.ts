// Simulated containers that exit (see container-exit.ts for which do) and their restarts, as the
// kubelet runs them:
//
// - at startedAt + the command's run time the container is `terminated` {exitCode, reason
//   Completed (0) or Error, startedAt, finishedAt, containerID};
// - it is restarted when restartPolicy is Always, or OnFailure with a non-zero exit code. The first
//   restart is immediate; a container that exits again within its backoff waits in `waiting`
//   {reason CrashLoopBackOff, message "back-off 10s restarting failed container=C pod=P_NS(UID)"},
//   the delay doubling from 10 s to 5 min and starting over after 10 min without an exit (the
//   kubelet's flowcontrol.Backoff and doBackOff, pkg/kubelet/kuberuntime/kuberuntime_manager.go).
//   A restart moves the exit into lastState, increments restartCount and gives a new containerID;
// - the pod's phase and readiness conditions follow (pod-phase.ts): Never/OnFailure pods go
//   Succeeded when every container exited 0, Never pods Failed otherwise; Always pods stay Running.
//
// Timers are in memory: a kubelet that starts over (kept storage) re-arms them from the status.
import { createHash } from 'node:crypto';
import type { JsonObject, ObjectMeta } from '../../apimachinery/meta/index.ts';
import { formatTime } from '../../apimachinery/time/index.ts';
import type { ResourceDef } from '../registry/resource.ts';
import { internalContext } from '../registry/context.ts';
import type { ObjectStore } from '../registry/store/index.ts';
import { exitPlan } from './container-exit.ts';
import { podPhase, readinessConditions } from './pod-phase.ts';
import { RestartBackoffs, backOffMessage, type CrashLoopBackOff } from './restart-backoff.ts';

export { DEFAULT_CRASH_LOOP_BACKOFF, type CrashLoopBackOff } from './restart-backoff.ts';

const ctx = internalContext('kubelet');

/** The simulated container ID of a container's n-th run. */
export function containerId(uid: string | undefined, name: string, restartCount = 0): string {
  const seed = restartCount === 0 ? `${uid}/${name}` : `${uid}/${name}/${restartCount}`;
  return `simulated://${createHash('sha256').update(seed).digest('hex')}`;
}

type Step = { kind: 'exit'; exitCode: number; startedAt: string } | { kind: 'restart' };

export class ContainerRuns {
  /** Armed exits and restarts, by `<pod key>\0<container>`. */
  private readonly timers = new Map<string, { timer: NodeJS.Timeout; startedAt?: string }>();
  /** Per container (same key as timers): the kubelet's backoff entries. */
  private readonly backoffs: RestartBackoffs;
  /** When a container in CrashLoopBackOff is due to restart. */
  private readonly restartDue = new Map<string, number>();

  constructor(
    private readonly store: ObjectStore,
    private readonly podsDef: ResourceDef,
    backoff: CrashLoopBackOff,
    private readonly onError: (e: unknown) => void,
  ) {
    this.backoffs = new RestartBackoffs(backoff);
  }

  stop(): void {
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.timers.clear();
  }

  /** The pod is terminating: its containers no longer exit or restart by themselves. */
  disarm(key: string): void {
    for (const [k, t] of this.timers) {
      if (!k.startsWith(`${key}\0`)) continue;
      clearTimeout(t.timer);
      this.timers.delete(k);
    }
  }

  /** The pod is gone from storage. */
  forget(key: string): void {
    this.disarm(key);
    this.backoffs.forget(`${key}\0`);
    for (const k of [...this.restartDue.keys()]) if (k.startsWith(`${key}\0`)) this.restartDue.delete(k);
  }

  /** Arms the exits of running containers and the restarts of those backing off. */
  arm(key: string, pod: JsonObject): void {
    const meta = pod.metadata as ObjectMeta;
    const spec = (pod.spec ?? {}) as JsonObject;
    const containers = (spec.containers ?? []) as JsonObject[];
    const statuses = (((pod.status ?? {}) as JsonObject).containerStatuses ?? []) as JsonObject[];
    for (const cs of statuses) {
      const name = String(cs.name);
      const tkey = `${key}\0${name}`;
      const state = (cs.state ?? {}) as { running?: { startedAt?: string }; waiting?: { reason?: string } };
      if (state.running) {
        const plan = exitPlan(containers.find((c) => c.name === name) ?? {});
        const startedAt = state.running.startedAt;
        if (!plan || !startedAt || this.timers.get(tkey)?.startedAt === startedAt) continue;
        const at = Date.parse(startedAt) + plan.afterMs;
        this.set(tkey, meta, name, { kind: 'exit', exitCode: plan.exitCode, startedAt }, at, startedAt);
      } else if (state.waiting?.reason === 'CrashLoopBackOff' && !this.timers.has(tkey)) {
        const due = this.restartDue.get(tkey) ?? Date.now();
        this.set(tkey, meta, name, { kind: 'restart' }, due);
      }
    }
  }

  private set(tkey: string, meta: ObjectMeta, name: string, step: Step, at: number, startedAt?: string): void {
    clearTimeout(this.timers.get(tkey)?.timer);
    const timer = setTimeout(
      () => {
        this.timers.delete(tkey);
        void this.apply(tkey, meta, name, step).catch(this.onError);
      },
      Math.max(0, at - Date.now()),
    );
    timer.unref();
    this.timers.set(tkey, { timer, startedAt });
  }

  private async apply(bkey: string, meta: ObjectMeta, name: string, step: Step): Promise<void> {
    const nowMs = Date.now();
    const now = formatTime(nowMs);
    // Decided before the write, committed after it: a retried mutation must decide the same.
    let decision: 'stop' | 'restart' | 'backoff' = 'stop';
    const delayMs = step.kind === 'exit' ? this.backoffs.delayAfterExit(bkey, nowMs) : 0;
    let applied = false;
    decision = delayMs > 0 ? 'backoff' : 'restart';
    const written = await this.store.updateWith(
      this.podsDef,
      meta.namespace,
      meta.name!,
      ctx,
      (pod) => {
        const m = pod.metadata as ObjectMeta;
        const spec = (pod.spec ?? {}) as JsonObject;
        const status = (pod.status ?? {}) as JsonObject;
        if (m.uid !== meta.uid || m.deletionTimestamp || status.phase === 'Succeeded' || status.phase === 'Failed')
          return undefined;
        const statuses = (status.containerStatuses ?? []) as JsonObject[];
        const i = statuses.findIndex((cs) => cs.name === name);
        if (i < 0) return undefined;
        const cs = { ...statuses[i] };
        const state = (cs.state ?? {}) as { running?: { startedAt?: string }; waiting?: { reason?: string } };
        const policy = typeof spec.restartPolicy === 'string' ? spec.restartPolicy : 'Always';
        const restartCount = typeof cs.restartCount === 'number' ? cs.restartCount : 0;
        if (step.kind === 'exit') {
          if (state.running?.startedAt !== step.startedAt) return undefined;
          const terminated = {
            exitCode: step.exitCode,
            reason: step.exitCode === 0 ? 'Completed' : 'Error',
            startedAt: step.startedAt,
            finishedAt: now,
            containerID: cs.containerID,
          };
          const restarts = policy === 'Always' || (policy === 'OnFailure' && step.exitCode !== 0);
          if (!restarts) {
            decision = 'stop';
            Object.assign(cs, { ready: false, started: false, state: { terminated } });
          } else if (decision === 'restart') {
            const id = containerId(m.uid, name, restartCount + 1);
            Object.assign(cs, {
              containerID: id,
              restartCount: restartCount + 1,
              ready: true,
              started: true,
              lastState: { terminated },
              state: { running: { startedAt: now } },
            });
          } else {
            const message = backOffMessage(delayMs, name, m);
            Object.assign(cs, {
              ready: false,
              started: false,
              lastState: { terminated },
              state: { waiting: { reason: 'CrashLoopBackOff', message } },
            });
          }
        } else {
          if (state.waiting?.reason !== 'CrashLoopBackOff') return undefined;
          Object.assign(cs, {
            containerID: containerId(m.uid, name, restartCount + 1),
            restartCount: restartCount + 1,
            ready: true,
            started: true,
            state: { running: { startedAt: now } },
          });
        }
        applied = true;
        const next = statuses.map((s, j) => (j === i ? cs : s));
        const phase = podPhase(policy, next);
        pod.status = {
          ...status,
          phase,
          conditions: readinessConditions((status.conditions ?? []) as JsonObject[], phase, next, now),
          containerStatuses: next,
        };
        return pod;
      },
      'status',
    );
    if (!applied || !written) return;
    if (decision === 'restart') {
      this.backoffs.restarted(bkey, nowMs);
      this.restartDue.delete(bkey);
    } else if (decision === 'backoff') {
      this.restartDue.set(bkey, nowMs + delayMs);
    }
  }
}
