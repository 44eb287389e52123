// Whose settings the PeerPod controller deletes a provider's VMs with, when several providers share
// the cluster (CAA#2219): those of the PeerPodConfig of its namespace that serves the provider — its
// `spec.cloudProvider`, or CLOUD_PROVIDER in the config's own ConfigMap — read from that config's
// ConfigMap and Secret (`configMapName`, `cloudSecretName`), as its adaptors read them. A provider
// no config serves keeps today's source, peer-pods-cm/peer-pods-secret (with their `<provider>.`
// keys). Of two configs serving one provider the oldest wins, as binding.ts grants claims. Each
// object is read through its own name-scoped informer, so the Role can name every object it reads.
import { ConfigMaps, Secrets } from '../../../runtime/index.ts';
import type { InformerScope, ResourceType, SharedInformer } from '../../../runtime/index.ts';
import type { PeerPodConfig } from '../../api/index.ts';
import { InformerCredentials, nameScope } from '../../providers/index.ts';
import type { CredentialSource, DataObject } from '../../providers/index.ts';

export interface SettingsNames {
  configMap: string;
  secret: string;
}

export interface ConfigSettingsDeps {
  configs: SharedInformer<PeerPodConfig>;
  namespace: string;
  defaults: SettingsNames;
  /** The default objects' source (built with the controller's own watches). */
  defaultSource: InformerCredentials;
  informerFor(type: ResourceType, scope: InformerScope): SharedInformer<DataObject>;
  /** Told of each informer made for a config's objects (the controller requeues on their changes). */
  onInformer?(informer: SharedInformer<DataObject>): void;
}

function byAge(a: PeerPodConfig, b: PeerPodConfig): number {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  return (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1;
}

interface Source {
  credentials: InformerCredentials;
  /** Its ConfigMap and Secret informers; none for the default objects (the controller waits for those). */
  informers: Array<SharedInformer<DataObject>>;
}

export class PeerPodConfigSettings implements CredentialSource {
  private readonly sources = new Map<string, Source>();

  constructor(private readonly d: ConfigSettingsDeps) {
    this.sources.set(this.key(d.defaults), { credentials: d.defaultSource, informers: [] });
    // The objects of a new config are listed as soon as it is seen, not at its first delete.
    d.configs.addHandler({
      onAdd: (c) => void this.sourceOf(c),
      onUpdate: (_, c) => void this.sourceOf(c),
    });
  }

  /**
   * Throws while the serving config's objects are not read yet (e.g. the Role does not grant them):
   * a provider built from partial settings could delete with the wrong ones.
   */
  configFor(provider: string): Record<string, string> {
    const c = provider ? this.configFor_(provider) : undefined;
    if (!c) return this.d.defaultSource.configFor(provider);
    const { credentials, informers } = this.sourceOf(c);
    const unread = informers.find((i) => !i.hasSynced());
    if (unread) {
      const names = this.namesOf(c);
      const err = unread.lastError();
      throw new Error(
        `the settings of provider ${provider} (PeerPodConfig ${c.metadata.namespace}/${c.metadata.name}: ConfigMap ` +
          `${names.configMap}, Secret ${names.secret}) are not read yet${err ? `: ${(err as Error).message ?? String(err)}` : ''}`,
      );
    }
    return credentials.configFor(provider);
  }

  found(): { configMap: boolean; secret: boolean } {
    return this.d.defaultSource.found();
  }

  /** The default objects' providers, and those of every config's objects and `spec.cloudProvider`. */
  configuredProviders(): string[] {
    const names = new Set(this.d.defaultSource.configuredProviders());
    for (const { providers, source } of this.served()) {
      for (const p of [...providers, ...source.credentials.configuredProviders()]) names.add(p);
    }
    return [...names].sort();
  }

  private configFor_(provider: string): PeerPodConfig | undefined {
    return this.served().find((s) => s.providers.includes(provider))?.config;
  }

  /** Every config of the namespace, oldest first, with the providers it serves. */
  private served(): Array<{ config: PeerPodConfig; providers: string[]; source: Source }> {
    return this.d.configs
      .list(this.d.namespace)
      .filter((c) => !c.metadata.deletionTimestamp)
      .sort(byAge)
      .map((config) => {
        const source = this.sourceOf(config);
        const named = config.spec?.cloudProvider?.trim();
        const providers = named
          ? [named]
          : (source.credentials.configFor('').CLOUD_PROVIDER ?? '')
              .split(',')
              .map((p) => p.trim())
              .filter(Boolean);
        return { config, providers, source };
      });
  }

  private namesOf(c: PeerPodConfig): SettingsNames {
    return {
      configMap: c.spec?.configMapName || this.d.defaults.configMap,
      secret: c.spec?.cloudSecretName || this.d.defaults.secret,
    };
  }

  private key(n: SettingsNames): string {
    return `${n.configMap}\u0000${n.secret}`;
  }

  private sourceOf(c: PeerPodConfig): Source {
    const names = this.namesOf(c);
    let source = this.sources.get(this.key(names));
    if (!source) {
      const configMaps = this.d.informerFor(ConfigMaps, nameScope(this.d.namespace, names.configMap));
      const secrets = this.d.informerFor(Secrets, nameScope(this.d.namespace, names.secret));
      for (const inf of [configMaps, secrets]) this.d.onInformer?.(inf);
      const credentials = new InformerCredentials({ configMaps, secrets }, this.d.namespace, names);
      source = { credentials, informers: [configMaps, secrets] };
      this.sources.set(this.key(names), source);
    }
    return source;
  }
}
