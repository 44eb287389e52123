// Every tunable of the node-side adaptor and its default, in one place.
import type { CloudProvider, Instance, ProviderOptions } from '../providers/index.ts';
import { PeerPodAnnotations } from '../api/index.ts';
import type { KubeObject, RateLimiter } from '../../runtime/index.ts';
import {
  DEFAULT_CONFIGMAP,
  DEFAULT_MAX_CONCURRENT_RECONCILES,
  DEFAULT_RUNTIME_CLASS,
  DEFAULT_SECRET,
} from './defaults.ts';

export {
  DEFAULT_CONFIGMAP,
  DEFAULT_MAX_CONCURRENT_RECONCILES,
  DEFAULT_RUNTIME_CLASS,
  DEFAULT_SECRET,
} from './defaults.ts';
/** Retry of a pod whose provider is unknown or misconfigured; a settings change retries at once. */
export const DEFAULT_PROVIDER_ERROR_REQUEUE_MS = 60_000;

/**
 * The create-retry guard (CAA#1737): how often and how fast a failed VM create is tried again.
 * Before every retry the failed attempt's VM is deleted, so a pod never has two.
 */
export interface CreateRetryOptions {
  /** Failed creates after which the pod is marked (condition `peerpods.io/VMCreateFailed`) and no more are tried. Default 5. */
  maxAttempts?: number;
  /** Wait after the first failure; doubled after each further one. Default 2 s. */
  initialBackoffMs?: number;
  /** Cap of the wait between attempts. Default 5 min. */
  maxBackoffMs?: number;
  /** A create that has not returned by then counts as failed (its VM, if one comes, is deleted). Default 10 min. */
  timeoutMs?: number;
}

export const DEFAULT_CREATE_RETRY: Required<CreateRetryOptions> = {
  maxAttempts: 5,
  initialBackoffMs: 2_000,
  maxBackoffMs: 300_000,
  timeoutMs: 600_000,
};

/** The node this adaptor serves, recorded on the PeerPods it writes. */
export const NODE_ANNOTATION = PeerPodAnnotations.node;
/** Tag on every VM: the pod's UID (our sandbox ID), so a VM whose ID was never recorded is still found. */
export const POD_UID_TAG = 'peerpods-pod-uid';

/** Points where a test can stop the adaptor as a crash would (nothing calls them in production). */
export interface AdaptorHooks {
  /** After the provider returned the VM, before its ID is written to the PeerPod. */
  afterCreateInstance?(pod: KubeObject, instance: Instance, signal: AbortSignal): Promise<void> | void;
  /** After a pool record was marked claimed by the pod, before the pod's PeerPod is written (pool/claim.ts). */
  afterSpareClaimed?(pod: KubeObject, record: KubeObject, signal: AbortSignal): Promise<void> | void;
  /** After the pod reports Running in a claimed VM, before its PeerPod naming that VM is written. */
  beforeClaimRecorded?(pod: KubeObject, record: KubeObject, signal: AbortSignal): Promise<void> | void;
  /** After the pod's PeerPod names the spare's VM and the pod reports Running, before the pool record is removed. */
  afterClaimRecorded?(pod: KubeObject, peerPod: KubeObject, signal: AbortSignal): Promise<void> | void;
}

export interface AdaptorOptions {
  /** The node whose pods this adaptor runs (`spec.nodeName`). Required. */
  nodeName: string;
  /** Pods of this runtime class are ours. Default kata-remote. */
  runtimeClassName?: string;
  /** A ready provider (tests, embedding); the adaptor never closes it. Overrides everything below. */
  provider?: CloudProvider;
  /** Provider name; default CLOUD_PROVIDER from the config map / secret. */
  providerName?: string;
  /** Settings that win over the config map and secret keys (e.g. from CLI flags). */
  providerConfig?: Record<string, string>;
  /** Per-provider knobs passed to createProvider (test transports, timeouts). */
  providerOptions?: ProviderOptions;
  /** Where `peer-pods-cm` and `peer-pods-secret` live. Default $PEERPODS_NAMESPACE, else the client's namespace. */
  namespace?: string;
  configMapName?: string;
  secretName?: string;
  maxConcurrentReconciles?: number;
  /** Retry delays after errors. Default: the runtime's per-key exponential backoff. */
  rateLimiter?: RateLimiter;
  providerErrorRequeueMs?: number;
  /** Failed VM creates: attempts, backoff, timeout (see CreateRetryOptions). */
  createRetry?: CreateRetryOptions;
  hooks?: AdaptorHooks;
}

export interface ResolvedAdaptorOptions {
  nodeName: string;
  runtimeClassName: string;
  provider: CloudProvider | undefined;
  providerName: string;
  providerConfig: Record<string, string>;
  providerOptions: ProviderOptions;
  namespace: string;
  configMapName: string;
  secretName: string;
  maxConcurrentReconciles: number;
  rateLimiter: RateLimiter | undefined;
  providerErrorRequeueMs: number;
  createRetry: Required<CreateRetryOptions>;
  hooks: AdaptorHooks;
}

export function resolveAdaptorOptions(o: AdaptorOptions, clientNamespace = ''): ResolvedAdaptorOptions {
  if (!o.nodeName) throw new TypeError('adaptor: nodeName is required');
  return {
    nodeName: o.nodeName,
    runtimeClassName: o.runtimeClassName || DEFAULT_RUNTIME_CLASS,
    provider: o.provider,
    providerName: o.providerName ?? '',
    providerConfig: o.providerConfig ?? {},
    providerOptions: o.providerOptions ?? {},
    namespace: o.namespace || process.env.PEERPODS_NAMESPACE || clientNamespace || 'default',
    configMapName: o.configMapName ?? DEFAULT_CONFIGMAP,
    secretName: o.secretName ?? DEFAULT_SECRET,
    maxConcurrentReconciles: o.maxConcurrentReconciles ?? DEFAULT_MAX_CONCURRENT_RECONCILES,
    rateLimiter: o.rateLimiter,
    providerErrorRequeueMs: o.providerErrorRequeueMs ?? DEFAULT_PROVIDER_ERROR_REQUEUE_MS,
    createRetry: resolveCreateRetry(o.createRetry),
    hooks: o.hooks ?? {},
  };
}

function resolveCreateRetry(o: CreateRetryOptions = {}): Required<CreateRetryOptions> {
  const d = DEFAULT_CREATE_RETRY;
  const r: Required<CreateRetryOptions> = {
    maxAttempts: o.maxAttempts ?? d.maxAttempts,
    initialBackoffMs: o.initialBackoffMs ?? d.initialBackoffMs,
    maxBackoffMs: o.maxBackoffMs ?? d.maxBackoffMs,
    timeoutMs: o.timeoutMs ?? d.timeoutMs,
  };
  for (const [k, v] of Object.entries(r)) {
    if (!Number.isFinite(v) || v <= 0)
      throw new TypeError(`adaptor: createRetry.${k} must be a positive number, got ${v}`);
  }
  if (!Number.isInteger(r.maxAttempts)) throw new TypeError('adaptor: createRetry.maxAttempts must be an integer');
  return r;
}
