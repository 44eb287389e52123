// One PeerPodConfig reconcile: finalizer, node capacity, adaptor DaemonSet, webhook objects, status.
// Each stage reports its own condition; a failing stage does not stop the others, and the reconcile
// ends in an error (so the key is retried with backoff) when any failed.
import {
  AlreadyOwnedError,
  DaemonSets,
  Deployments,
  MutatingWebhookConfigurations,
  Services,
  addFinalizer,
  isNotFound,
  patchStatus,
  removeFinalizer,
  setStatusCondition,
} from '../../../runtime/index.ts';
import type {
  Clock,
  ConditionInput,
  KubeClient,
  KubeObject,
  Logger,
  ReconcileFunc,
  Recorder,
} from '../../../runtime/index.ts';
import { PEERPODCONFIG_FINALIZER, PeerPodConfigConditions as C, PeerPodConfigs } from '../../api/peerpodconfig.ts';
import type { PeerPodConfig } from '../../api/peerpodconfig.ts';
import { releaseAll, syncCapacity } from './capacity.ts';
import type { CapacityDeps } from './capacity.ts';
import { ensure } from './ensure.ts';
import type { PeerPodConfigMetrics } from './metrics.ts';
import {
  OWNER_NAMESPACE_LABEL,
  OWNER_NAME_LABEL,
  adaptorDaemonSet,
  mutatingWebhookConfiguration,
  webhookConfigurationName,
  webhookDeployment,
  webhookService,
} from './objects.ts';
import type { ResolvedOptions } from './options.ts';
import { ensureWebhookCertificates } from './webhook-cert.ts';

export interface ReconcilerDeps extends CapacityDeps {
  client: KubeClient;
  config: (namespace: string, name: string) => PeerPodConfig | undefined;
  opts: ResolvedOptions;
  clock: Clock;
  events: Recorder;
  metrics: PeerPodConfigMetrics;
  log: Logger;
}

class StageError extends Error {}

function reasonOf(err: unknown): string {
  return err instanceof AlreadyOwnedError ? 'OwnedByAnother' : 'Failed';
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function peerPodConfigReconciler(deps: ReconcilerDeps): ReconcileFunc {
  const { client, opts, events, metrics } = deps;

  async function finalize(cfg: PeerPodConfig, signal: AbortSignal): Promise<void> {
    const failures = await releaseAll(deps, cfg, signal);
    const ns = cfg.metadata.namespace as string;
    try {
      const name = webhookConfigurationName(ns);
      const mwc = await client.get<KubeObject>(MutatingWebhookConfigurations, name, undefined, { signal });
      const labels = mwc.metadata.labels ?? {};
      // Only ours: another tool may have put a configuration of that name there.
      if (labels[OWNER_NAMESPACE_LABEL] === ns && labels[OWNER_NAME_LABEL] === cfg.metadata.name) {
        await client.delete(MutatingWebhookConfigurations, name, undefined, { signal });
      }
    } catch (err) {
      if (!isNotFound(err)) failures.push(`MutatingWebhookConfiguration: ${message(err)}`);
    }
    if (failures.length > 0) {
      metrics.errors.inc({ stage: 'cleanup' });
      events.warning(cfg, 'CleanupFailed', failures.join('; '));
      throw new Error(`cleanup of ${ns}/${cfg.metadata.name}: ${failures.join('; ')}`);
    }
    // Owned namespaced objects (DaemonSet, Deployment, Service, Secret) go with the garbage collector.
    await removeFinalizer(client, PeerPodConfigs, cfg, PEERPODCONFIG_FINALIZER, { signal });
  }

  return async (req, ctx) => {
    const cached = deps.config(req.namespace as string, req.name);
    if (!cached) return;
    if (cached.metadata.deletionTimestamp) {
      await finalize(cached, ctx.signal);
      return;
    }
    const cfg = await addFinalizer(client, PeerPodConfigs, cached, PEERPODCONFIG_FINALIZER, { signal: ctx.signal });
    const gen = cfg.metadata.generation;
    const conditions: ConditionInput[] = [];
    const failed: string[] = [];
    const stage = async (type: string, name: string, fn: () => Promise<string>): Promise<void> => {
      try {
        const ok = await fn();
        conditions.push({ type, status: 'True', reason: 'Applied', message: ok, observedGeneration: gen });
      } catch (err) {
        metrics.errors.inc({ stage: name });
        events.warning(cfg, `${type}Failed`, message(err));
        ctx.log.warn({ err, stage: name }, 'PeerPodConfig stage failed');
        conditions.push({
          type,
          status: 'False',
          reason: reasonOf(err),
          message: message(err),
          observedGeneration: gen,
        });
        failed.push(name);
      }
    };

    let allocation: Array<{ node: string; vms: number }> = [];
    await stage(C.CapacityAdvertised, 'capacity', async () => {
      const r = await syncCapacity(deps, cfg, ctx.signal);
      allocation = r.allocation;
      if (r.changed.length > 0)
        events.normal(cfg, 'CapacityUpdated', `${opts.extendedResource}: ${r.changed.join(', ')}`);
      if (r.contested.length > 0) {
        events.warning(cfg, 'NodesClaimed', `left to another PeerPodConfig: ${r.contested.join(', ')}`);
      }
      if (r.failures.length > 0) throw new StageError(r.failures.join('; '));
      if (allocation.length === 0) return 'no node matches the nodeSelector';
      return `${allocation.reduce((a, b) => a + b.vms, 0)} VM(s) on ${allocation.length} node(s)`;
    });

    await stage(C.AdaptorDeployed, 'adaptor', async () => {
      if (!opts.deployAdaptor) return 'not managed by this controller';
      const { result } = await ensure(client, DaemonSets, adaptorDaemonSet(cfg, opts), {
        owner: cfg,
        signal: ctx.signal,
      });
      if (result !== 'unchanged') events.normal(cfg, 'AdaptorDeployed', `DaemonSet ${result}`);
      return 'DaemonSet up to date';
    });

    let requeueAfter: number | undefined;
    await stage(C.WebhookDeployed, 'webhook', async () => {
      const w = opts.webhook;
      if (!w) return 'not managed by this controller';
      const now = deps.clock.now();
      const certs = await ensureWebhookCertificates(client, cfg, w, now, ctx.signal);
      for (const kind of certs.issued) {
        metrics.certRotations.inc({ kind });
        events.normal(cfg, 'CertificateIssued', `webhook ${kind === 'ca' ? 'CA' : 'serving'} certificate issued`);
      }
      requeueAfter = Math.min(Math.max(certs.nextCheckMs - now, 1000), opts.maxRequeueMs);
      const sig = { owner: cfg, signal: ctx.signal };
      await ensure(client, Services, webhookService(cfg), sig);
      await ensure(client, Deployments, webhookDeployment(cfg, opts, w), sig);
      const mwc = mutatingWebhookConfiguration(cfg, w, certs.caBundle);
      await ensure(client, MutatingWebhookConfigurations, mwc, { signal: ctx.signal });
      return 'Deployment, Service, certificate and MutatingWebhookConfiguration up to date';
    });

    const ready = failed.length === 0;
    conditions.push({
      type: C.Ready,
      status: ready ? 'True' : 'False',
      reason: ready ? 'Ready' : 'StageFailed',
      message: ready ? 'all stages applied' : `failed: ${failed.join(', ')}`,
      observedGeneration: gen,
    });
    const totalVMs = allocation.reduce((a, b) => a + b.vms, 0);
    await patchStatus(
      client,
      PeerPodConfigs,
      cfg,
      (draft) => {
        draft.status = {
          ...draft.status,
          setupCompleted: ready,
          ...(gen !== undefined ? { observedGeneration: gen } : {}),
          nodes: allocation.length,
          totalVMs,
          allocation,
        };
        for (const c of conditions) setStatusCondition(draft, c, deps.clock.now());
      },
      { signal: ctx.signal },
    );
    if (!ready) throw new Error(`PeerPodConfig ${req.namespace}/${req.name}: failed stages: ${failed.join(', ')}`);
    return requeueAfter !== undefined ? { requeueAfter } : undefined;
  };
}
