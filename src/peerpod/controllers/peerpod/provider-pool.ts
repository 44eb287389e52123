// One live provider per name, rebuilt when its settings change, and one delete semaphore per name.
// Upstream builds each provider once from the environment and caches it forever, so fixed
// credentials need a restart, and a build error surfaces only as a retried reconcile error.
import {
  InstanceNotFoundError,
  ProviderConfigError,
  UnknownProviderError,
  createProvider,
} from '../../providers/index.ts';
import type { CloudProvider } from '../../providers/index.ts';
import type { Logger } from '../../../runtime/index.ts';
import { Semaphore } from '../semaphore.ts';
import type { CredentialSource } from './credentials.ts';
import type { PeerPodMetrics } from './metrics.ts';
import type { ResolvedOptions } from './options.ts';

export type ProviderProblem = 'UnknownProvider' | 'ProviderMisconfigured';

/** The provider cannot be used at all until its name or settings change. */
export class ProviderUnavailableError extends Error {
  constructor(
    readonly provider: string,
    readonly reason: ProviderProblem,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ProviderUnavailableError';
  }
}

interface Entry {
  fingerprint: string;
  provider: Promise<CloudProvider>;
  users: number;
  retired: boolean;
}

export class ProviderPool {
  private readonly entries = new Map<string, Entry>();
  private readonly slots = new Map<string, Semaphore>();

  constructor(
    private readonly credentials: CredentialSource,
    private readonly opts: ResolvedOptions,
    private readonly metrics: PeerPodMetrics,
    private readonly log: Logger,
  ) {}

  /** The semaphore bounding deletes of `name` (also used by the benchmark to report the peak). */
  semaphore(name: string): Semaphore {
    let s = this.slots.get(name);
    if (!s) this.slots.set(name, (s = new Semaphore(this.opts.deleteLimit(name))));
    return s;
  }

  /** Builds (or reuses) the provider; throws ProviderUnavailableError for unknown or misconfigured ones. */
  get(name: string): Promise<CloudProvider> {
    return this.resolve(name, this.entry(name));
  }

  private async resolve(name: string, entry: Entry): Promise<CloudProvider> {
    try {
      return await entry.provider;
    } catch (err) {
      // Not cached: the next reconcile (after backoff or a settings change) tries again.
      if (this.entries.get(name) === entry) this.entries.delete(name);
      throw err;
    }
  }

  /** Deletes one instance within the provider's concurrency limit; gone counts as deleted. */
  async deleteInstance(name: string, id: string, source: 'finalizer' | 'orphan', signal?: AbortSignal): Promise<void> {
    const entry = this.entry(name);
    entry.users++;
    try {
      const provider = await this.resolve(name, entry);
      await this.semaphore(name).run(async () => {
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
      }, signal);
    } finally {
      if (--entry.users === 0 && entry.retired) void this.closeEntry(name, entry);
    }
  }

  async close(): Promise<void> {
    const all = [...this.entries.entries()];
    this.entries.clear();
    await Promise.all(all.map(([name, e]) => this.closeEntry(name, e)));
  }

  private entry(name: string): Entry {
    const fingerprint = this.credentials.fingerprint(name);
    const cur = this.entries.get(name);
    if (cur && cur.fingerprint === fingerprint) return cur;
    if (cur) {
      this.log.info({ provider: name }, 'provider settings changed; rebuilding the provider');
      cur.retired = true;
      if (cur.users === 0) void this.closeEntry(name, cur);
    }
    const next: Entry = { fingerprint, provider: this.build(name), users: 0, retired: false };
    // A rejected build is awaited by get(); this keeps it from counting as unhandled meanwhile.
    next.provider.catch(() => undefined);
    this.entries.set(name, next);
    return next;
  }

  private async build(name: string): Promise<CloudProvider> {
    const config = this.credentials.configFor(name);
    let provider: CloudProvider;
    try {
      provider = this.opts.providerFactory
        ? await this.opts.providerFactory(name, config)
        : await createProvider(name, config, { logger: this.log, ...this.opts.providerOptions });
    } catch (err) {
      if (err instanceof UnknownProviderError) {
        throw new ProviderUnavailableError(name, 'UnknownProvider', err.message, { cause: err });
      }
      if (err instanceof ProviderConfigError) {
        throw new ProviderUnavailableError(name, 'ProviderMisconfigured', err.message, { cause: err });
      }
      throw err;
    }
    try {
      await provider.verifyConfig();
    } catch (err) {
      await provider.close?.().catch(() => undefined);
      if (err instanceof ProviderConfigError) {
        throw new ProviderUnavailableError(name, 'ProviderMisconfigured', err.message, { cause: err });
      }
      throw err;
    }
    return provider;
  }

  private async closeEntry(name: string, entry: Entry): Promise<void> {
    try {
      const p = await entry.provider;
      await p.close?.();
    } catch (err) {
      this.log.debug({ provider: name, err }, 'closing a retired provider failed');
    }
  }
}
