// The orphan sweep (upstream PR #2981, still open there): a VM that carries this cluster's UID tag
// but that no PeerPod names was made by an adaptor that crashed between CreateInstance and writing
// the PeerPod, or whose PeerPod was removed by hand. After a grace period (an adaptor may be about
// to write the PeerPod) it is deleted, or only reported in dry-run mode.
//
// Safety: a VM is a candidate only when no PeerPod in the synced cache names it, and the candidates
// are re-checked against a fresh list from the API server before anything is deleted. A PeerPod whose
// create is in progress (or being retried by the create-retry guard) names its VM by the name the
// adaptor asks for, so the sweep never deletes the current attempt; a failed attempt's VM is the
// adaptor's to delete, and the sweep's once the PeerPod is gone.
import { setTimeout as sleep } from 'node:timers/promises';
import { Namespaces, getControllerOf } from '../../../runtime/index.ts';
import type {
  EventRecorder,
  KubeClient,
  KubeObject,
  Logger,
  Runnable,
  SharedInformer,
} from '../../../runtime/index.ts';
import { CLUSTER_UID_TAG, ProviderUnavailableError } from '../../providers/index.ts';
import type { CredentialSource, Instance } from '../../providers/index.ts';
import { PeerPods, createInProgress, pendingVmName } from '../../api/index.ts';
import type { PeerPod } from '../../api/index.ts';
import type { PeerPodMetrics } from './metrics.ts';
import type { ResolvedOptions } from './options.ts';
import type { ProviderPool } from './provider-pool.ts';

export interface SweepDeps {
  client: KubeClient;
  peerPods: SharedInformer<PeerPod>;
  /** Informers whose sync the sweep waits for (settings), besides PeerPods. */
  waitFor: Array<{ waitForSync(signal?: AbortSignal): Promise<unknown> }>;
  pool: ProviderPool;
  credentials: CredentialSource;
  events: EventRecorder;
  metrics: PeerPodMetrics;
  opts: ResolvedOptions;
  log: Logger;
}

export interface SweepResult {
  provider: string;
  listed: number;
  orphans: string[];
  deleted: string[];
  errors: string[];
}

export class OrphanSweeper implements Runnable {
  readonly name = 'peerpod-orphan-sweep';
  readonly needLeaderElection = true;
  private kubeSystem: KubeObject | undefined;
  private readonly reported = new Set<string>();
  private readonly log: Logger;

  constructor(private readonly d: SweepDeps) {
    this.log = d.log.child({ component: 'orphan-sweep' });
  }

  async start(signal: AbortSignal): Promise<void> {
    if (this.d.opts.sweepIntervalMs <= 0) return;
    try {
      // On an empty cache every VM would look like an orphan.
      await Promise.all([this.d.peerPods, ...this.d.waitFor].map((i) => i.waitForSync(signal)));
      while (!signal.aborted) {
        try {
          await this.sweepOnce(signal);
        } catch (err) {
          if (!signal.aborted) this.log.error({ err }, 'orphan sweep failed');
        }
        await sleep(this.d.opts.sweepIntervalMs, undefined, { signal });
      }
    } catch (err) {
      if (!signal.aborted) throw err;
    }
  }

  /** This cluster's identity: the kube-system namespace UID, as upstream's PR #2981. */
  async clusterUid(): Promise<string> {
    this.kubeSystem ??= await this.d.client.get(Namespaces, 'kube-system');
    return this.kubeSystem.metadata.uid as string;
  }

  async sweepOnce(signal?: AbortSignal): Promise<SweepResult[]> {
    const uid = await this.clusterUid();
    const results: SweepResult[] = [];
    for (const provider of this.providers()) {
      results.push(await this.sweepProvider(provider, uid, signal));
    }
    return results;
  }

  private providers(): string[] {
    const names = new Set(this.d.opts.sweepProviders);
    for (const p of this.d.credentials.configuredProviders()) names.add(p);
    for (const pp of this.d.peerPods.list()) if (pp.spec?.cloudProvider) names.add(pp.spec.cloudProvider);
    return [...names].sort();
  }

  private async sweepProvider(provider: string, uid: string, signal?: AbortSignal): Promise<SweepResult> {
    const result: SweepResult = { provider, listed: 0, orphans: [], deleted: [], errors: [] };
    let instances: Instance[];
    try {
      const cloud = await this.d.pool.get(provider);
      instances = await cloud.listInstances({ [CLUSTER_UID_TAG]: uid });
    } catch (err) {
      const level = err instanceof ProviderUnavailableError ? 'debug' : 'warn';
      this.log[level]({ provider, err }, 'cannot list instances; skipping this provider');
      result.errors.push((err as Error).message);
      return result;
    }
    result.listed = instances.length;
    const now = Date.now();
    const old = instances.filter((i) => now - i.createdAt.getTime() >= this.d.opts.orphanGraceMs);
    const cached = namesOf(this.d.peerPods.list());
    let candidates = old.filter((i) => !cached.has(i.id) && !cached.has(i.name));
    if (candidates.length === 0) return result;
    // The cache may lag a PeerPod written a moment ago: confirm against the API server.
    const fresh = namesOf((await this.d.client.listAll<PeerPod>(PeerPods, signal ? { signal } : {})).items);
    candidates = candidates.filter((i) => !fresh.has(i.id) && !fresh.has(i.name));
    // All at once: the pool's per-provider limit is what bounds the deletes in flight. One at a time,
    // 1,000 orphans on a cloud whose delete takes a second took 1,000 s.
    const outcomes = await Promise.all(candidates.map((vm) => this.handleOrphan(provider, vm, signal)));
    candidates.forEach((vm, i) => {
      result.orphans.push(vm.id);
      const outcome = outcomes[i];
      if (outcome === 'deleted') result.deleted.push(vm.id);
      else if (outcome !== 'reported') result.errors.push(`${vm.id}: ${outcome.message}`);
    });
    return result;
  }

  private async handleOrphan(
    provider: string,
    vm: Instance,
    signal: AbortSignal | undefined,
  ): Promise<'deleted' | 'reported' | Error> {
    const key = `${provider}/${vm.id}`;
    const first = !this.reported.has(key);
    if (first) {
      this.reported.add(key);
      this.d.metrics.orphansFound.inc({ provider });
    }
    const what = `${provider} instance ${vm.id} (${vm.name}), created ${vm.createdAt.toISOString()}, is named by no PeerPod`;
    if (this.d.opts.dryRun) {
      if (first) {
        this.log.warn({ provider, instanceID: vm.id, name: vm.name }, `${what}; dry run: not deleting`);
        this.event('OrphanInstance', `${what}; dry run: not deleted`);
      }
      return 'reported';
    }
    try {
      await this.d.pool.deleteInstance(provider, vm.id, 'orphan', signal);
    } catch (err) {
      this.log.warn({ provider, instanceID: vm.id, err }, 'deleting an orphan instance failed; the next sweep retries');
      return err as Error;
    }
    this.reported.delete(key);
    this.log.info({ provider, instanceID: vm.id, name: vm.name }, `${what}; deleted`);
    this.event('OrphanInstanceDeleted', `${what}; deleted`);
    return 'deleted';
  }

  private event(reason: string, message: string): void {
    if (!this.kubeSystem) return;
    const type = reason === 'OrphanInstanceDeleted' ? 'Normal' : 'Warning';
    this.d.events.event(this.kubeSystem, type, reason, message);
  }
}

/**
 * The instance IDs PeerPods name; a VM is named by its ID (or its name, for providers whose ID is
 * the name). A PeerPod whose create is in progress (the adaptor may be between the create and the
 * write of its ID, or retrying) names its VM by the deterministic name the adaptor asks for:
 * `podvm-<pod>-<pod UID[:8]>` (the pod UID is the adaptor's sandbox ID); a warm pool's spare being made
 * by `podvm-<record>-<record UID[:8]>`. A live spare's record names its VM like any PeerPod, so the
 * sweep never deletes a spare.
 */
function namesOf(peerPods: readonly PeerPod[]): Set<string> {
  const out = new Set<string>();
  for (const pp of peerPods) {
    const id = pp.spec?.instanceID?.trim();
    if (id) out.add(id);
    const pending = createInProgress(pp) ? pendingVmName(pp, getControllerOf(pp)) : undefined;
    if (pending) out.add(pending);
  }
  return out;
}
