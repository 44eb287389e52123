// The provider the adaptor creates VMs with: the one given in the options, or one built from
// `peer-pods-cm` / `peer-pods-secret` (CLOUD_PROVIDER selects it) plus the CLI's overrides, rebuilt
// when those settings change. Upstream reads its environment once; fixing credentials meant a restart.
import { createHash } from 'node:crypto';
import { ProviderConfigError, UnknownProviderError, createProvider } from '../providers/index.ts';
import type { CloudProvider } from '../providers/index.ts';
import type { Logger } from '../../runtime/index.ts';
import type { CredentialSource } from '../controllers/peerpod/credentials.ts';
import type { ResolvedAdaptorOptions } from './options.ts';

export type ProviderProblem = 'NoProvider' | 'UnknownProvider' | 'ProviderMisconfigured';

/** No usable provider until the settings change; not worth a fast retry. */
export class ProviderUnavailableError extends Error {
  constructor(
    readonly reason: ProviderProblem,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ProviderUnavailableError';
  }
}

interface Entry {
  name: string;
  fingerprint: string;
  provider: Promise<CloudProvider>;
  users: number;
  retired: boolean;
}

export class ProviderSource {
  private entry: Entry | undefined;

  constructor(
    private readonly opts: ResolvedAdaptorOptions,
    private readonly credentials: CredentialSource | undefined,
    private readonly log: Logger,
  ) {}

  /** The provider name PeerPods get in `spec.cloudProvider` ('' while none is configured). */
  name(): string {
    if (this.opts.provider) return this.opts.provider.name;
    return this.opts.providerName || this.settings('').CLOUD_PROVIDER?.trim() || '';
  }

  /** Runs `fn` with the current provider; a provider retired meanwhile is closed after `fn`. */
  async use<T>(fn: (provider: CloudProvider, name: string) => Promise<T>): Promise<T> {
    if (this.opts.provider) return fn(this.opts.provider, this.opts.provider.name);
    const entry = this.current();
    entry.users++;
    try {
      let provider: CloudProvider;
      try {
        provider = await entry.provider;
      } catch (err) {
        // Not cached: the next attempt (backoff, or a settings change) builds again.
        if (this.entry === entry) this.entry = undefined;
        throw err;
      }
      return await fn(provider, entry.name);
    } finally {
      if (--entry.users === 0 && entry.retired) void this.closeEntry(entry);
    }
  }

  async close(): Promise<void> {
    const e = this.entry;
    this.entry = undefined;
    if (e) await this.closeEntry(e);
  }

  private settings(name: string): Record<string, string> {
    return { ...this.credentials?.configFor(name), ...this.opts.providerConfig };
  }

  private current(): Entry {
    const name = this.name();
    const config = this.settings(name);
    const fingerprint = createHash('sha256')
      .update(JSON.stringify([name, Object.entries(config).sort(([a], [b]) => a.localeCompare(b))]))
      .digest('hex');
    const cur = this.entry;
    if (cur && cur.fingerprint === fingerprint) return cur;
    if (cur) {
      this.log.info({ provider: name }, 'provider settings changed; rebuilding the provider');
      cur.retired = true;
      if (cur.users === 0) void this.closeEntry(cur);
    }
    const next: Entry = { name, fingerprint, provider: this.build(name, config), users: 0, retired: false };
    // Awaited by use(); this keeps a rejected build from counting as unhandled meanwhile.
    next.provider.catch(() => undefined);
    this.entry = next;
    return next;
  }

  private async build(name: string, config: Record<string, string>): Promise<CloudProvider> {
    if (!name) {
      throw new ProviderUnavailableError(
        'NoProvider',
        `no cloud provider: set CLOUD_PROVIDER in ConfigMap ${this.opts.namespace}/${this.opts.configMapName} or pass --provider`,
      );
    }
    let provider: CloudProvider;
    try {
      provider = await createProvider(name, config, { logger: this.log, ...this.opts.providerOptions });
      await provider.verifyConfig().catch(async (err: unknown) => {
        await provider.close?.().catch(() => undefined);
        throw err;
      });
    } catch (err) {
      if (err instanceof UnknownProviderError) {
        throw new ProviderUnavailableError('UnknownProvider', err.message, { cause: err });
      }
      if (err instanceof ProviderConfigError) {
        throw new ProviderUnavailableError('ProviderMisconfigured', err.message, { cause: err });
      }
      throw err;
    }
    this.log.info({ provider: name }, 'provider ready');
    return provider;
  }

  private async closeEntry(entry: Entry): Promise<void> {
    try {
      await (await entry.provider).close?.();
    } catch (err) {
      this.log.debug({ provider: entry.name, err }, 'closing a retired provider failed');
    }
  }
}
