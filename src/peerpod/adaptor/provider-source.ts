// The provider the adaptor creates VMs with: the one given in the options, or one built from
// `peer-pods-cm` / `peer-pods-secret` (CLOUD_PROVIDER selects it) plus the CLI's overrides, rebuilt
// when those settings change. Upstream reads its environment once; fixing credentials meant a restart.
import { LiveProviderCache, ProviderUnavailableError } from '../providers/index.ts';
import type { CloudProvider, CredentialSource } from '../providers/index.ts';
import type { Logger } from '../../runtime/index.ts';
import type { ResolvedAdaptorOptions } from './options.ts';

export class ProviderSource {
  private readonly cache: LiveProviderCache;
  /** The name last used; a node runs one provider, so another name retires it. */
  private current = '';

  constructor(
    private readonly opts: ResolvedAdaptorOptions,
    private readonly credentials: CredentialSource | undefined,
    log: Logger,
  ) {
    this.cache = new LiveProviderCache({
      settings: (name) => this.settings(name),
      logger: log,
      providerOptions: opts.providerOptions,
    });
  }

  /** The provider name PeerPods get in `spec.cloudProvider` ('' while none is configured). */
  name(): string {
    if (this.opts.provider) return this.opts.provider.name;
    return this.opts.providerName || this.settings('').CLOUD_PROVIDER?.trim() || '';
  }

  /** Runs `fn` with the current provider; a provider retired meanwhile is closed after `fn`. */
  async use<T>(fn: (provider: CloudProvider, name: string) => Promise<T>): Promise<T> {
    if (this.opts.provider) return fn(this.opts.provider, this.opts.provider.name);
    const name = this.name();
    if (name !== this.current) {
      this.cache.retire(this.current);
      this.current = name;
    }
    if (!name) {
      throw new ProviderUnavailableError(
        'NoProvider',
        `no cloud provider: set CLOUD_PROVIDER in ConfigMap ${this.opts.namespace}/${this.opts.configMapName} or pass --provider`,
      );
    }
    return this.cache.use(name, (provider) => fn(provider, name));
  }

  close(): Promise<void> {
    return this.cache.close();
  }

  /** Each provider's settings, kept while the credentials answer with the same object (unchanged). */
  private readonly merged = new Map<string, { from: object | undefined; settings: Readonly<Record<string, string>> }>();

  private settings(name: string): Readonly<Record<string, string>> {
    const from = this.credentials?.configFor(name);
    const kept = this.merged.get(name);
    if (kept && kept.from === from) return kept.settings;
    const settings = Object.freeze({ ...from, ...this.opts.providerConfig });
    this.merged.set(name, { from, settings });
    return settings;
  }
}
