// Every tunable of the PeerPod controller and its default, in one place.
import type { ProviderFactory, ProviderOptions } from '../../providers/index.ts';
import type { RateLimiter } from '../../../runtime/index.ts';

export const CONTROLLER_NAME = 'peerpod';
/** Upstream's names; the Deployment passes them through, and RBAC restricts reads to them. */
export const DEFAULT_CONFIGMAP = 'peer-pods-cm';
export const DEFAULT_SECRET = 'peer-pods-secret';
/** Upstream's leader-election ID, so an upstream peerpod-ctrl and ours never run at once. */
export const LEADER_ELECTION_ID = '33f6c5d6.confidentialcontainers.org';

export interface PeerPodControllerOptions {
  /** Where `peer-pods-cm` and `peer-pods-secret` live ($PEERPODS_NAMESPACE). Required. */
  namespace: string;
  configMapName?: string;
  secretName?: string;
  /**
   * Workers. Default 32: more than the per-provider delete limit, so keys of a second provider (and
   * the API writes around each delete) are not stuck behind one provider's queue.
   */
  maxConcurrentReconciles?: number;
  /**
   * Deletes in flight per provider. A number applies to every provider; a map sets it per provider
   * name (with `*` as the fallback). Default 20. `Infinity` disables the limit (upstream's behaviour).
   */
  maxConcurrentDeletes?: number | Record<string, number>;
  /** Orphan sweep: how old an unnamed VM must be before it is deleted. Default 10 min. */
  orphanGraceMs?: number;
  /** Orphan sweep interval. Default 1 min; 0 disables the sweep. */
  sweepIntervalMs?: number;
  /** The orphan sweep only reports (event, log, metric); it never deletes. */
  dryRun?: boolean;
  /**
   * Providers the sweep lists even when no PeerPod names them (also CLOUD_PROVIDER in the config map,
   * and every provider with `<provider>.KEY` settings there).
   */
  sweepProviders?: string[];
  /** Per-provider knobs passed to createProvider (test transports, qemu state dir, ...). */
  providerOptions?: ProviderOptions;
  /** Replaces createProvider (tests, benchmarks). */
  providerFactory?: ProviderFactory;
  /** Retry delays after errors. Default: the runtime's per-key exponential backoff. */
  rateLimiter?: RateLimiter;
  /** Requeue of a PeerPod whose provider is unknown or misconfigured (a config change requeues at once). Default 5 min. */
  providerErrorRequeueMs?: number;
}

export interface ResolvedOptions {
  namespace: string;
  configMapName: string;
  secretName: string;
  maxConcurrentReconciles: number;
  deleteLimit: (provider: string) => number;
  orphanGraceMs: number;
  sweepIntervalMs: number;
  dryRun: boolean;
  sweepProviders: string[];
  providerOptions: ProviderOptions;
  providerFactory: ProviderFactory | undefined;
  rateLimiter: RateLimiter | undefined;
  providerErrorRequeueMs: number;
}

export const DEFAULT_MAX_CONCURRENT_DELETES = 20;
export const DEFAULT_MAX_CONCURRENT_RECONCILES = 32;
export const DEFAULT_ORPHAN_GRACE_MS = 10 * 60_000;
export const DEFAULT_SWEEP_INTERVAL_MS = 60_000;

export function resolveOptions(o: PeerPodControllerOptions): ResolvedOptions {
  if (!o.namespace) throw new TypeError('PeerPod controller: namespace (PEERPODS_NAMESPACE) is required');
  const limits = o.maxConcurrentDeletes ?? DEFAULT_MAX_CONCURRENT_DELETES;
  const deleteLimit =
    typeof limits === 'number'
      ? () => limits
      : (p: string) => limits[p] ?? limits['*'] ?? DEFAULT_MAX_CONCURRENT_DELETES;
  return {
    namespace: o.namespace,
    configMapName: o.configMapName ?? DEFAULT_CONFIGMAP,
    secretName: o.secretName ?? DEFAULT_SECRET,
    maxConcurrentReconciles: o.maxConcurrentReconciles ?? DEFAULT_MAX_CONCURRENT_RECONCILES,
    deleteLimit,
    orphanGraceMs: o.orphanGraceMs ?? DEFAULT_ORPHAN_GRACE_MS,
    sweepIntervalMs: o.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS,
    dryRun: o.dryRun ?? false,
    sweepProviders: o.sweepProviders ?? [],
    providerOptions: o.providerOptions ?? {},
    providerFactory: o.providerFactory,
    rateLimiter: o.rateLimiter,
    providerErrorRequeueMs: o.providerErrorRequeueMs ?? 5 * 60_000,
  };
}
