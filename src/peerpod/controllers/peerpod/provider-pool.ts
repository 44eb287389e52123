// The PeerPod controller's providers: the live-provider cache (one provider per name, rebuilt when
// its settings change), and one delete semaphore per name so a burst of dangling PeerPods cannot
// flood one cloud.
import { InstanceNotFoundError, LiveProviderCache } from '../../providers/index.ts';
import type { CloudProvider, CredentialSource } from '../../providers/index.ts';
import type { Logger } from '../../../runtime/index.ts';
import { Semaphore } from '../semaphore.ts';
import type { PeerPodMetrics } from './metrics.ts';
import type { ResolvedOptions } from './options.ts';

export class ProviderPool {
  private readonly cache: LiveProviderCache;
  private readonly slots = new Map<string, Semaphore>();

  constructor(
    credentials: CredentialSource,
    private readonly opts: ResolvedOptions,
    private readonly metrics: PeerPodMetrics,
    log: Logger,
  ) {
    this.cache = new LiveProviderCache({
      settings: (name) => credentials.configFor(name),
      logger: log,
      providerOptions: opts.providerOptions,
      ...(opts.providerFactory ? { factory: opts.providerFactory } : {}),
    });
  }

  /** The semaphore bounding deletes of `name` (also used by the benchmark to report the peak). */
  semaphore(name: string): Semaphore {
    let s = this.slots.get(name);
    if (!s) this.slots.set(name, (s = new Semaphore(this.opts.deleteLimit(name))));
    return s;
  }

  /** Builds (or reuses) the provider; throws ProviderUnavailableError for unknown or misconfigured ones. */
  get(name: string): Promise<CloudProvider> {
    return this.cache.get(name);
  }

  /** Deletes one instance within the provider's concurrency limit; gone counts as deleted. */
  deleteInstance(name: string, id: string, source: 'finalizer' | 'orphan', signal?: AbortSignal): Promise<void> {
    return this.cache.use(name, (provider) =>
      this.semaphore(name).run(async () => {
        const end = this.metrics.deletionSeconds.startTimer({ provider: name });
        this.metrics.deletesInFlight.inc({ provider: name });
        try {
          await provider.deleteInstance(id);
        } catch (err) {
          if (!(err instanceof InstanceNotFoundError)) {
            this.metrics.deletions.inc({ provider: name, result: 'failed', source });
            throw err;
          }
        } finally {
          end();
          this.metrics.deletesInFlight.dec({ provider: name });
        }
        this.metrics.deletions.inc({ provider: name, result: 'deleted', source });
      }, signal),
    );
  }

  close(): Promise<void> {
    return this.cache.close();
  }
}
