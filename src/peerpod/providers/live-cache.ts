// One live provider per name, rebuilt when its settings change: the adaptor creates VMs with it and
// the PeerPod controller deletes them with it. Upstream builds each provider once from its
// environment and keeps it forever, so fixed credentials need a restart, and a build error surfaces
// only as a retried reconcile error. A retired provider may still be in use (a VM create takes
// minutes), so its users are counted and it is closed after the last one.
import { createHash } from 'node:crypto';
import { ProviderConfigError, UnknownProviderError } from './errors.ts';
import type { Logger } from './log.ts';
import { createProvider } from './registry.ts';
import type { ProviderOptions } from './registry.ts';
import type { CloudProvider } from './types.ts';

export type ProviderProblem = 'NoProvider' | 'UnknownProvider' | 'ProviderMisconfigured';

/** No usable provider until its name or settings change; not worth a fast retry. */
export class ProviderUnavailableError extends Error {
  /** The provider name ('' when none is configured). */
  readonly provider: string;

  constructor(
    readonly reason: ProviderProblem,
    message: string,
    options: { provider?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProviderUnavailableError';
    this.provider = options.provider ?? '';
  }
}

/** Builds a provider from its name and settings without verifying them (createProvider by default). */
export type ProviderFactory = (name: string, config: Record<string, string>) => Promise<CloudProvider>;

export interface LiveProviderCacheOptions {
  /**
   * The settings of provider `name` as they are now; any change rebuilds that provider. An object
   * answered again must be unchanged (each is hashed once): answer a new object after a change.
   */
  settings(name: string): Readonly<Record<string, string>>;
  logger: Logger;
  /** Replaces createProvider (tests, benchmarks). */
  factory?: ProviderFactory;
  /** Per-provider knobs passed to createProvider (test transports, qemu state dir, ...). */
  providerOptions?: ProviderOptions;
}

interface Entry {
  fingerprint: string;
  provider: Promise<CloudProvider>;
  users: number;
  retired: boolean;
}

export class LiveProviderCache {
  private readonly entries = new Map<string, Entry>();
  private readonly factory: ProviderFactory;

  constructor(private readonly opts: LiveProviderCacheOptions) {
    this.factory =
      opts.factory ??
      ((name, config) => createProvider(name, config, { logger: opts.logger, ...opts.providerOptions }));
  }

  /** The provider, built or reused; ProviderUnavailableError for an unknown or misconfigured one. */
  get(name: string): Promise<CloudProvider> {
    return this.resolve(name, this.entry(name));
  }

  /** Runs `fn` with the provider; one retired meanwhile is closed after `fn` returns. */
  async use<T>(name: string, fn: (provider: CloudProvider) => Promise<T>): Promise<T> {
    const entry = this.entry(name);
    entry.users++;
    try {
      return await fn(await this.resolve(name, entry));
    } finally {
      if (--entry.users === 0 && entry.retired) void this.closeEntry(name, entry);
    }
  }

  /** Drops the provider of `name` (no longer wanted); it is closed after its last user. */
  retire(name: string): void {
    const entry = this.entries.get(name);
    if (!entry) return;
    this.entries.delete(name);
    entry.retired = true;
    if (entry.users === 0) void this.closeEntry(name, entry);
  }

  async close(): Promise<void> {
    const all = [...this.entries.entries()];
    this.entries.clear();
    await Promise.all(all.map(([name, e]) => this.closeEntry(name, e)));
  }

  private async resolve(name: string, entry: Entry): Promise<CloudProvider> {
    try {
      return await entry.provider;
    } catch (err) {
      // Not cached: the next attempt (after backoff, or a settings change) builds again.
      if (this.entries.get(name) === entry) this.entries.delete(name);
      throw err;
    }
  }

  private entry(name: string): Entry {
    const config = this.opts.settings(name);
    const fingerprint = fingerprintOf(config);
    const cur = this.entries.get(name);
    if (cur && cur.fingerprint === fingerprint) return cur;
    if (cur) {
      this.opts.logger.info({ provider: name }, 'provider settings changed; rebuilding the provider');
      this.retire(name);
    }
    const next: Entry = { fingerprint, provider: this.build(name, config), users: 0, retired: false };
    // Awaited by get() and use(); this keeps a rejected build from counting as unhandled meanwhile.
    next.provider.catch(() => undefined);
    this.entries.set(name, next);
    return next;
  }

  private async build(name: string, config: Record<string, string>): Promise<CloudProvider> {
    let provider: CloudProvider;
    try {
      provider = await this.factory(name, config);
    } catch (err) {
      throw unavailable(name, err);
    }
    try {
      await provider.verifyConfig();
    } catch (err) {
      await provider.close?.().catch(() => undefined);
      throw unavailable(name, err);
    }
    this.opts.logger.info({ provider: name }, 'provider ready');
    return provider;
  }

  private async closeEntry(name: string, entry: Entry): Promise<void> {
    try {
      await (await entry.provider).close?.();
    } catch (err) {
      this.opts.logger.debug({ provider: name, err }, 'closing a retired provider failed');
    }
  }
}

/** Settings objects already hashed: a source that answers with the same object has the same settings. */
const fingerprints = new WeakMap<object, string>();

/** Settings are compared by digest, so no copy of a secret value is kept beside the provider. */
function fingerprintOf(config: Readonly<Record<string, string>>): string {
  const known = fingerprints.get(config);
  if (known !== undefined) return known;
  const fingerprint = hashOf(config);
  fingerprints.set(config, fingerprint);
  return fingerprint;
}

function hashOf(config: Readonly<Record<string, string>>): string {
  const sorted = Object.keys(config)
    .sort()
    .map((k) => [k, config[k]]);
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex');
}

/** Unknown names and bad settings wait for a settings change; anything else is retried as usual. */
function unavailable(name: string, err: unknown): unknown {
  if (err instanceof UnknownProviderError) {
    return new ProviderUnavailableError('UnknownProvider', err.message, { provider: name, cause: err });
  }
  if (err instanceof ProviderConfigError) {
    return new ProviderUnavailableError('ProviderMisconfigured', err.message, { provider: name, cause: err });
  }
  return err;
}
