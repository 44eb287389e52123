// The stages of a live PeerPodConfig's reconcile. Each returns the message of its condition or
// throws; the runner turns either into a condition (and, on failure, a metric, an event and a log
// line), so one failing stage never stops the next.
import {
  AlreadyOwnedError,
  DaemonSets,
  Deployments,
  MutatingWebhookConfigurations,
  Services,
} from '../../../runtime/index.ts';
import type { ConditionInput, Logger } from '../../../runtime/index.ts';
import { PeerPodConfigConditions as C } from '../../api/peerpodconfig.ts';
import type { PeerPodConfig } from '../../api/peerpodconfig.ts';
import { resourceOf, syncCapacity } from './capacity.ts';
import { webhookDeployer, webhookRoutes } from './binding.ts';
import type { LimitDecision } from './capacity-condition.ts';
import { ensure } from './ensure.ts';
import { adaptorDaemonSet, mutatingWebhookConfiguration, webhookDeployment, webhookService } from './objects.ts';
import type { ReconcilerDeps } from './reconciler.ts';
import { ensureWebhookCertificates } from './webhook-cert.ts';

export type Allocation = { node: string; vms: number };

class StageError extends Error {}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function reasonOf(err: unknown): string {
  return err instanceof AlreadyOwnedError ? 'OwnedByAnother' : 'Failed';
}

/** Runs stages in order and collects their conditions. */
export class Stages {
  readonly conditions: ConditionInput[] = [];
  /** Names of the stages that failed. */
  readonly failed: string[] = [];
  private readonly gen: number | undefined;

  constructor(
    private readonly deps: Pick<ReconcilerDeps, 'events' | 'metrics'>,
    private readonly cfg: PeerPodConfig,
    private readonly log: Logger,
  ) {
    this.gen = cfg.metadata.generation;
  }

  async run(type: string, name: string, stage: () => Promise<string>): Promise<void> {
    try {
      const message = await stage();
      this.conditions.push({ type, status: 'True', reason: 'Applied', message, observedGeneration: this.gen });
    } catch (err) {
      this.deps.metrics.errors.inc({ stage: name });
      this.deps.events.warning(this.cfg, `${type}Failed`, errorMessage(err));
      this.log.warn({ err, stage: name }, 'PeerPodConfig stage failed');
      const message = errorMessage(err);
      this.conditions.push({ type, status: 'False', reason: reasonOf(err), message, observedGeneration: this.gen });
      this.failed.push(name);
    }
  }

  /** Ready: every stage applied. */
  readyCondition(): ConditionInput {
    const ready = this.failed.length === 0;
    return {
      type: C.Ready,
      status: ready ? 'True' : 'False',
      reason: ready ? 'Ready' : 'StageFailed',
      message: ready ? 'all stages applied' : `failed: ${this.failed.join(', ')}`,
      observedGeneration: this.gen,
    };
  }
}

export interface CapacityReport {
  allocation: Allocation[];
  decision: LimitDecision;
}

/**
 * The extended resource on the selected nodes, capped by what the provider can hold; `report` gets
 * the spread (even when some nodes failed) and the limits behind it.
 */
export async function capacityStage(
  deps: ReconcilerDeps,
  cfg: PeerPodConfig,
  signal: AbortSignal,
  report: (r: CapacityReport) => void,
): Promise<string> {
  const { events } = deps;
  const hold = deps.capacityProbe ? await deps.capacityProbe.evaluate(cfg, signal) : undefined;
  const r = await syncCapacity(deps, cfg, signal, hold?.hold);
  const decision: LimitDecision = { configured: r.configured, effective: r.effective, hold };
  report({ allocation: r.allocation, decision });
  deps.limitEvents?.record(cfg, decision);
  if (r.changed.length > 0) {
    events.normal(cfg, 'CapacityUpdated', `${resourceOf(deps, cfg).resource}: ${r.changed.join(', ')}`);
  }
  if (r.contested.length > 0) {
    events.warning(cfg, 'NodesClaimed', `left to another PeerPodConfig: ${r.contested.join(', ')}`);
  }
  if (r.failures.length > 0) throw new StageError(r.failures.join('; '));
  if (r.allocation.length === 0) return 'no node matches the nodeSelector';
  return `${r.allocation.reduce((a, b) => a + b.vms, 0)} VM(s) on ${r.allocation.length} node(s)`;
}

export async function adaptorStage(deps: ReconcilerDeps, cfg: PeerPodConfig, signal: AbortSignal): Promise<string> {
  if (!deps.opts.deployAdaptor) return 'not managed by this controller';
  const { result } = await ensure(deps.client, DaemonSets, adaptorDaemonSet(cfg, deps.opts), { owner: cfg, signal });
  if (result !== 'unchanged') deps.events.normal(cfg, 'AdaptorDeployed', `DaemonSet ${result}`);
  return 'DaemonSet up to date';
}

/** The webhook's certificates and objects; `recheckIn` gets when the certificates need a look again. */
export async function webhookStage(
  deps: ReconcilerDeps,
  cfg: PeerPodConfig,
  signal: AbortSignal,
  recheckIn: (ms: number) => void,
): Promise<string> {
  const { client, opts, events, metrics } = deps;
  const w = opts.webhook;
  if (!w) return 'not managed by this controller';
  // One webhook per namespace serves every provider's RuntimeClass there; one config deploys it.
  const ns = cfg.metadata.namespace as string;
  const all = deps.configs();
  const deployer = webhookDeployer(ns, all, deps.defaults);
  if (deployer && deployer.metadata.name !== cfg.metadata.name) {
    return `deployed by PeerPodConfig ${ns}/${deployer.metadata.name}`;
  }
  const now = deps.clock.now();
  const certs = await ensureWebhookCertificates(client, cfg, w, now, signal);
  for (const kind of certs.issued) {
    metrics.certRotations.inc({ kind });
    events.normal(cfg, 'CertificateIssued', `webhook ${kind === 'ca' ? 'CA' : 'serving'} certificate issued`);
  }
  recheckIn(Math.min(Math.max(certs.nextCheckMs - now, 1000), opts.maxRequeueMs));
  const owned = { owner: cfg, signal };
  await ensure(client, Services, webhookService(cfg), owned);
  await ensure(client, Deployments, webhookDeployment(cfg, opts, w, webhookRoutes(ns, all, deps.defaults)), owned);
  const mwc = mutatingWebhookConfiguration(cfg, w, certs.caBundle);
  await ensure(client, MutatingWebhookConfigurations, mwc, { signal });
  return 'Deployment, Service, certificate and MutatingWebhookConfiguration up to date';
}
