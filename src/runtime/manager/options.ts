// Every manager tunable and its default, in one documented object (kube-rs style): read this file
// to know what a manager does when you pass nothing.
import { register as globalRegistry } from 'prom-client';
import type { Registry } from 'prom-client';
import type { InformerFactoryOptions } from '../cache/factory.ts';
import type { KubeClient } from '../client/client.ts';
import type { RateLimiter } from '../queue/rate-limiter.ts';
import { realClock } from '../util/clock.ts';
import type { Clock } from '../util/clock.ts';
import { createLogger } from '../util/logger.ts';
import type { Logger } from '../util/logger.ts';
import type { LeaderElectionOptions, LeaseClient } from './leader-election.ts';

export interface ManagerLeaderElectionOptions extends LeaderElectionOptions {
  /**
   * On losing the Lease, exit the process (status 1) as controller-runtime does, instead of stopping
   * the leader-only runnables and campaigning again. Default false.
   */
  exitOnLeaseLoss?: boolean;
  /**
   * How long in-flight reconciles may take after the Lease is lost before their signal aborts.
   * Default (leaseDuration − renewDeadline) / 2, which ends them before another replica can lead.
   */
  leaseLossGraceMs?: number;
  /** Client for the Lease calls. Default the manager's client (pass another for separate credentials or tests). */
  client?: LeaseClient;
}

export interface ProbeServerAddress {
  /** Default "127.0.0.1" (secure by default); deployments set "0.0.0.0" so kubelet probes and scrapes reach it. */
  host?: string;
  /** Default 8080. 0 picks a free port (tests). */
  port?: number;
}

export interface ControllerDefaults {
  /** Default 1 (controller-runtime). */
  maxConcurrentReconciles?: number;
  /** Default: per key 5 ms→1000 s, max-of a 10/s burst-100 bucket (client-go's controller default). */
  rateLimiter?: RateLimiter;
  /** Low-priority lane aging of the work queues. Default 5000 ms. */
  lowPriorityAgingMs?: number;
}

export interface ManagerOptions {
  /** API client. Default `KubeClient.load()` (kubeconfig, then in-cluster), sharing the manager's registry. */
  client?: KubeClient;
  /** Options of the manager's InformerFactory (page size, watch timeouts, transforms, ...). See cache/options.ts. */
  cache?: Omit<InformerFactoryOptions, 'logger' | 'metricsRegistry' | 'clock'>;
  /** Lease-based leader election. Default: off (every replica runs every controller). */
  leaderElection?: ManagerLeaderElectionOptions | false;
  /** The /metrics, /healthz, /readyz HTTP server; `false` disables it. Default 127.0.0.1:8080. */
  server?: ProbeServerAddress | false;
  /** Time given to runnables (in-flight reconciles) to finish on shutdown. Default 30 000 ms. */
  gracefulShutdownTimeoutMs?: number;
  /** How long controllers wait for their caches to sync before failing to start. Default 120 000 ms. */
  cacheSyncTimeoutMs?: number;
  /** Shut down gracefully on SIGTERM/SIGINT (a second signal exits at once). Default true. */
  handleSignals?: boolean;
  /** Defaults for every controller built on this manager. */
  controller?: ControllerDefaults;
  /** Default: a pino logger named "manager" at LOG_LEVEL (info). */
  logger?: Logger;
  /** Default prom-client's global registry, which the client and cache also use by default. */
  metricsRegistry?: Registry;
  /** Default the wall clock. */
  clock?: Clock;
}

export interface ResolvedManagerOptions {
  leaderElection: (ManagerLeaderElectionOptions & { namespace: string }) | false;
  server: Required<ProbeServerAddress> | false;
  gracefulShutdownTimeoutMs: number;
  cacheSyncTimeoutMs: number;
  handleSignals: boolean;
  controller: ControllerDefaults;
  logger: Logger;
  metricsRegistry: Registry;
  clock: Clock;
  cache: NonNullable<ManagerOptions['cache']>;
}

export function resolveManagerOptions(opts: ManagerOptions, defaultNamespace: string): ResolvedManagerOptions {
  const le = opts.leaderElection;
  if (le && !le.leaseName) throw new TypeError('leaderElection.leaseName is required');
  return {
    leaderElection: le ? { ...le, namespace: le.namespace ?? (defaultNamespace || 'default') } : false,
    server: opts.server === false ? false : { host: opts.server?.host ?? '127.0.0.1', port: opts.server?.port ?? 8080 },
    gracefulShutdownTimeoutMs: opts.gracefulShutdownTimeoutMs ?? 30_000,
    cacheSyncTimeoutMs: opts.cacheSyncTimeoutMs ?? 120_000,
    handleSignals: opts.handleSignals ?? true,
    controller: { maxConcurrentReconciles: 1, ...opts.controller },
    logger: opts.logger ?? createLogger('manager'),
    metricsRegistry: opts.metricsRegistry ?? globalRegistry,
    clock: opts.clock ?? realClock,
    cache: opts.cache ?? {},
  };
}
