// Every tunable of the PeerPodConfig controller and its default, in one place.
import type { RateLimiter } from '../../../runtime/index.ts';
import type { ProviderFactory, ProviderOptions } from '../../providers/index.ts';
import { DEFAULT_EXTENDED_RESOURCE, DEFAULT_RUNTIME_CLASS } from '../../webhook/defaults.ts';
import type { DropMode } from '../../webhook/defaults.ts';

export const CONTROLLER_NAME = 'peerpodconfig';
export const DEFAULT_ADAPTOR_IMAGE = 'quay.io/confidential-containers/cloud-api-adaptor';
export const DEFAULT_WEBHOOK_IMAGE = 'ghcr.io/peerpods/peerpods:latest';
/** ServiceAccounts of what a PeerPodConfig deploys; `peerpods deploy` creates them with their RBAC. */
export const ADAPTOR_SERVICE_ACCOUNT = 'peerpod-adaptor';
export const WEBHOOK_SERVICE_ACCOUNT = 'peer-pods-webhook';
/** Namespaces the webhook never sees, besides its own: a broken webhook must not block the system. */
export const DEFAULT_EXCLUDED_NAMESPACES = ['kube-system', 'kube-public', 'kube-node-lease'];
const DAY_MS = 86_400_000;

export interface WebhookDeployOptions {
  /** Image running `peerpods run webhook`. Default ghcr.io/peerpods/peerpods:latest. */
  image?: string;
  /** Default 2, as upstream. */
  replicas?: number;
  /** Default kata-remote. */
  targetRuntimeClass?: string;
  /** Default upstream. */
  dropResources?: DropMode;
  /** Default Fail, as upstream. */
  failurePolicy?: 'Fail' | 'Ignore';
  /** Added to the PeerPodConfig's own namespace. Default kube-system, kube-public, kube-node-lease. */
  excludedNamespaces?: string[];
  /** Serving certificate validity. Default 365 days. */
  certValidityMs?: number;
  /** CA validity. Default 10 years. */
  caValidityMs?: number;
  /** Fraction of a certificate's validity after which it is replaced. Default 2/3. */
  renewFraction?: number;
}

/** Default capacity re-evaluation period: host memory and quotas move without any API event. */
export const DEFAULT_CAPACITY_RECHECK_MS = 60_000;

export interface CapacityOptions {
  /** How often the provider's capacity is asked again (at least 1 s). Default 1 min. */
  recheckMs?: number;
  /** Per-provider knobs passed to createProvider (test transports, qemu state dir, ...). */
  providerOptions?: ProviderOptions;
  /** Replaces createProvider (tests). */
  providerFactory?: ProviderFactory;
}

export interface ResolvedCapacityOptions {
  recheckMs: number;
  providerOptions: ProviderOptions;
  providerFactory: ProviderFactory | undefined;
}

export interface PeerPodConfigControllerOptions {
  /**
   * Honour only the PeerPodConfigs of this namespace, and watch only it (with the objects they
   * deploy selected by name), so a namespace Role is all the controller needs there. Default: every
   * namespace (an embedder's manager, with cluster-wide rights).
   */
  namespace?: string;
  /** The node resource one pod VM takes. Default kata.peerpods.io/vm. */
  extendedResource?: string;
  /** The adaptor image. Default $RELATED_IMAGE_CAA, else upstream's. */
  adaptorImage?: string;
  /** Deploy the adaptor DaemonSet. Default true. */
  deployAdaptor?: boolean;
  /** The adaptors' ServiceAccount (made with its RBAC by `peerpods deploy`). Default peerpod-adaptor. */
  adaptorServiceAccountName?: string;
  /** Deploy the webhook; false leaves it to someone else (e.g. a Helm chart). Default: deployed. */
  webhook?: WebhookDeployOptions | false;
  maxConcurrentReconciles?: number;
  rateLimiter?: RateLimiter;
  /** The longest requeueAfter (certificate renewal is often months away; timers are not). Default 12 h. */
  maxRequeueMs?: number;
  /**
   * Cap the advertised VMs by what the provider (CLOUD_PROVIDER in the config's ConfigMap) can hold:
   * the host's memory and CPUs for qemu/libvirt, the quota for clouds that report it. false: the
   * configured limit only. Default: on, re-evaluated every minute.
   */
  capacity?: CapacityOptions | false;
}

export interface ResolvedWebhookOptions extends Required<Omit<WebhookDeployOptions, 'excludedNamespaces'>> {
  excludedNamespaces: string[];
}

export interface ResolvedOptions {
  namespace: string | undefined;
  /** The RuntimeClass of a PeerPodConfig that names none: the webhook's target, kata-remote by default. */
  runtimeClassName: string;
  extendedResource: string;
  adaptorImage: string;
  deployAdaptor: boolean;
  adaptorServiceAccountName: string;
  webhook: ResolvedWebhookOptions | false;
  maxConcurrentReconciles: number;
  rateLimiter: RateLimiter | undefined;
  maxRequeueMs: number;
  capacity: ResolvedCapacityOptions | false;
}

export function resolveOptions(o: PeerPodConfigControllerOptions = {}): ResolvedOptions {
  const w = o.webhook;
  return {
    namespace: o.namespace || undefined,
    runtimeClassName: (w === false ? undefined : w?.targetRuntimeClass) ?? DEFAULT_RUNTIME_CLASS,
    extendedResource: o.extendedResource ?? DEFAULT_EXTENDED_RESOURCE,
    adaptorImage: o.adaptorImage ?? (process.env.RELATED_IMAGE_CAA || DEFAULT_ADAPTOR_IMAGE),
    deployAdaptor: o.deployAdaptor ?? true,
    adaptorServiceAccountName: o.adaptorServiceAccountName ?? ADAPTOR_SERVICE_ACCOUNT,
    webhook:
      w === false
        ? false
        : {
            image: w?.image ?? DEFAULT_WEBHOOK_IMAGE,
            replicas: w?.replicas ?? 2,
            targetRuntimeClass: w?.targetRuntimeClass ?? DEFAULT_RUNTIME_CLASS,
            dropResources: w?.dropResources ?? 'upstream',
            failurePolicy: w?.failurePolicy ?? 'Fail',
            excludedNamespaces: w?.excludedNamespaces ?? DEFAULT_EXCLUDED_NAMESPACES,
            certValidityMs: w?.certValidityMs ?? 365 * DAY_MS,
            caValidityMs: w?.caValidityMs ?? 3650 * DAY_MS,
            renewFraction: w?.renewFraction ?? 2 / 3,
          },
    maxConcurrentReconciles: o.maxConcurrentReconciles ?? 1,
    rateLimiter: o.rateLimiter,
    maxRequeueMs: o.maxRequeueMs ?? 12 * 3_600_000,
    capacity:
      o.capacity === false
        ? false
        : {
            // A recheck is a reconcile: never a busy loop.
            recheckMs: Math.max(1000, o.capacity?.recheckMs ?? DEFAULT_CAPACITY_RECHECK_MS),
            providerOptions: o.capacity?.providerOptions ?? {},
            providerFactory: o.capacity?.providerFactory,
          },
  };
}
