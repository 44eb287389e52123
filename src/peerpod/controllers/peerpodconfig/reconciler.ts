// One PeerPodConfig reconcile, inside the runtime's finalizer protocol: our finalizer goes on first;
// a live config runs its stages (node capacity, adaptor DaemonSet, webhook objects) and writes its
// status; a deleted one is cleaned up (cleanup.ts) before the finalizer is released. Each stage
// reports its own condition; a failing stage does not stop the others, and the reconcile ends in an
// error (so the key is retried with backoff) when any failed.
import { finalizer, patchStatus, removeCondition, setStatusCondition } from '../../../runtime/index.ts';
import type {
  Clock,
  KubeClient,
  Logger,
  ObjectReconcileFunc,
  ReconcileContext,
  ReconcileResult,
  Recorder,
} from '../../../runtime/index.ts';
import { PEERPODCONFIG_FINALIZER, PeerPodConfigConditions as C, PeerPodConfigs } from '../../api/peerpodconfig.ts';
import type { PeerPodConfig } from '../../api/peerpodconfig.ts';
import { conflictOf } from './binding.ts';
import type { Conflict } from './binding.ts';
import { releaseAll } from './capacity.ts';
import type { CapacityDeps } from './capacity.ts';
import { capacityCondition } from './capacity-condition.ts';
import type { LimitEvents } from './capacity-condition.ts';
import { cleanupConfig } from './cleanup.ts';
import type { PeerPodConfigMetrics } from './metrics.ts';
import type { ResolvedOptions } from './options.ts';
import type { ProviderCapacityProbe } from './provider-capacity.ts';
import { Stages, adaptorStage, capacityStage, webhookStage } from './stages.ts';
import type { CapacityReport } from './stages.ts';

export interface ReconcilerDeps extends CapacityDeps {
  client: KubeClient;
  opts: ResolvedOptions;
  /** Every PeerPodConfig the controller sees: one claim per RuntimeClass and resource (binding.ts). */
  configs: () => PeerPodConfig[];
  clock: Clock;
  events: Recorder;
  metrics: PeerPodConfigMetrics;
  log: Logger;
  /** Asks the provider what it can hold; absent when capacity evaluation is off. */
  capacityProbe?: ProviderCapacityProbe;
  /** Announces changes of the effective limit; with capacityProbe. */
  limitEvents?: LimitEvents;
}

export function peerPodConfigReconciler(deps: ReconcilerDeps): ObjectReconcileFunc<PeerPodConfig> {
  return (cfg, ctx) =>
    finalizer({ client: deps.client, type: PeerPodConfigs, name: PEERPODCONFIG_FINALIZER, signal: ctx.signal }, cfg, {
      apply: (live) => applyConfig(deps, live, ctx),
      cleanup: async (deleting) => {
        await cleanupConfig(deps, deleting, ctx.signal);
        await deps.capacityProbe?.forget(deleting);
        deps.limitEvents?.forget(deleting);
      },
    });
}

async function applyConfig(
  deps: ReconcilerDeps,
  cfg: PeerPodConfig,
  ctx: ReconcileContext,
): Promise<ReconcileResult | void> {
  const conflict = conflictOf(cfg, deps.configs(), deps.defaults);
  if (conflict) return refuse(deps, cfg, conflict, ctx.signal);
  const stages = new Stages(deps, cfg, ctx.log);
  let capacity: CapacityReport | undefined;
  await stages.run(C.CapacityAdvertised, 'capacity', () => capacityStage(deps, cfg, ctx.signal, (r) => (capacity = r)));
  await stages.run(C.AdaptorDeployed, 'adaptor', () => adaptorStage(deps, cfg, ctx.signal));
  let requeueAfter: number | undefined;
  await stages.run(C.WebhookDeployed, 'webhook', () =>
    webhookStage(deps, cfg, ctx.signal, (ms) => (requeueAfter = ms)),
  );
  await writeStatus(deps, cfg, stages, capacity, ctx.signal);
  if (stages.failed.length > 0) {
    const { namespace, name } = cfg.metadata;
    throw new Error(`PeerPodConfig ${namespace}/${name}: failed stages: ${stages.failed.join(', ')}`);
  }
  // Host memory and quotas change without an API event: ask again after a while.
  if (deps.opts.capacity) requeueAfter = Math.min(requeueAfter ?? Infinity, deps.opts.capacity.recheckMs);
  return requeueAfter !== undefined ? { requeueAfter } : undefined;
}

async function writeStatus(
  deps: ReconcilerDeps,
  cfg: PeerPodConfig,
  stages: Stages,
  capacity: CapacityReport | undefined,
  signal: AbortSignal,
): Promise<void> {
  const gen = cfg.metadata.generation;
  const allocation = capacity?.allocation ?? [];
  const limited = capacity && capacityCondition(capacity.decision, cfg);
  const conditions = [...stages.conditions, ...(limited ? [limited] : []), stages.readyCondition()];
  const totalVMs = allocation.reduce((a, b) => a + b.vms, 0);
  const limits = capacity
    ? { configuredLimit: capacity.decision.configured, effectiveLimit: capacity.decision.effective }
    : {};
  await patchStatus(
    deps.client,
    PeerPodConfigs,
    cfg,
    (draft) => {
      draft.status = {
        ...draft.status,
        setupCompleted: stages.failed.length === 0,
        ...(gen !== undefined ? { observedGeneration: gen } : {}),
        nodes: allocation.length,
        totalVMs,
        ...limits,
        allocation,
      };
      for (const c of conditions) setStatusCondition(draft, c, deps.clock.now());
      if (draft.status.conditions) removeCondition(draft.status.conditions, C.Conflicted);
    },
    { signal },
  );
}

/**
 * A config whose RuntimeClass or resource an older one holds applies nothing (and takes back the
 * capacity it may have advertised before it was changed); it says why on its status and in an event,
 * and is looked at again when any PeerPodConfig changes.
 */
async function refuse(
  deps: ReconcilerDeps,
  cfg: PeerPodConfig,
  conflict: Conflict,
  signal: AbortSignal,
): Promise<void> {
  deps.events.warning(cfg, conflict.reason, conflict.message);
  const failures = await releaseAll(deps, cfg, signal);
  if (failures.length > 0) deps.log.warn({ failures }, 'taking back the capacity of a refused PeerPodConfig failed');
  const gen = cfg.metadata.generation;
  const at = deps.clock.now();
  await patchStatus(
    deps.client,
    PeerPodConfigs,
    cfg,
    (draft) => {
      draft.status = {
        ...draft.status,
        setupCompleted: false,
        ...(gen !== undefined ? { observedGeneration: gen } : {}),
      };
      const base = { reason: conflict.reason, message: conflict.message, observedGeneration: gen };
      setStatusCondition(draft, { type: C.Conflicted, status: 'True', ...base }, at);
      setStatusCondition(draft, { type: C.Ready, status: 'False', ...base }, at);
    },
    { signal },
  );
  if (failures.length > 0)
    throw new Error(`PeerPodConfig ${cfg.metadata.namespace}/${cfg.metadata.name}: ${failures.join('; ')}`);
}
