// What the PeerPodConfig's provider can hold: the provider named by CLOUD_PROVIDER in the config's
// ConfigMap/Secret, asked how many more VMs of its default size fit (providers/capacity.ts), plus
// the VMs it already runs for this cluster (they hold their share already). Any failure on the way
// is an "unknown" answer with its reason, never an error: the configured limit then stands, and
// the reconcile of the rest of the config goes on.
import { isForbidden } from '../../../apimachinery/errors/index.ts';
import { ConfigMaps, Namespaces, Secrets, isNotFound } from '../../../runtime/index.ts';
import type { KubeClient, Logger } from '../../../runtime/index.ts';
import { CLUSTER_UID_TAG, LiveProviderCache, flatSettings, scopeToProvider } from '../../providers/index.ts';
import type { CapacityReason, DataObject } from '../../providers/index.ts';
import type { PeerPodConfig } from '../../api/peerpodconfig.ts';
import { DEFAULT_CLOUD_SECRET_NAME, DEFAULT_CONFIGMAP_NAME } from '../../api/peerpodconfig.ts';
import { ownerKey } from './nodes.ts';
import type { ResolvedCapacityOptions } from './options.ts';

export interface ProviderHold {
  provider: string;
  /** VMs the provider can hold in all (free now + this cluster's running); undefined when unknown. */
  hold: number | undefined;
  reason: CapacityReason;
  message: string;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class ProviderCapacityProbe {
  /** One cache per PeerPodConfig: each may name its own ConfigMap and Secret. */
  private readonly caches = new Map<string, { cache: LiveProviderCache; flat: Record<string, string> }>();
  private clusterUid: string | undefined;

  constructor(
    private readonly client: KubeClient,
    private readonly opts: ResolvedCapacityOptions,
    private readonly log: Logger,
  ) {}

  async evaluate(cfg: PeerPodConfig, signal: AbortSignal): Promise<ProviderHold> {
    const unknown = (provider: string, message: string): ProviderHold => ({
      provider,
      hold: undefined,
      reason: 'Unknown',
      message,
    });
    let flat: Record<string, string>;
    try {
      flat = await this.settings(cfg, signal);
    } catch (err) {
      return unknown('', `cannot read the provider settings: ${errorText(err)}`);
    }
    // A config naming its provider (one of several in the cluster) says which one it is.
    const names = (cfg.spec.cloudProvider || flat.CLOUD_PROVIDER || '')
      .split(',')
      .map((n) => n.trim())
      .filter((n) => n !== '');
    if (names.length !== 1) {
      const ns = cfg.metadata.namespace;
      const cm = cfg.spec.configMapName ?? DEFAULT_CONFIGMAP_NAME;
      return unknown(
        names.join(','),
        names.length === 0 ? `no CLOUD_PROVIDER in ConfigMap ${ns}/${cm}` : 'several providers: capacity not evaluated',
      );
    }
    const [name] = names;
    const key = ownerKey(cfg);
    let entry = this.caches.get(key);
    if (!entry) {
      const holder: { cache: LiveProviderCache; flat: Record<string, string> } = {
        flat,
        cache: new LiveProviderCache({
          settings: (n) => scopeToProvider(holder.flat, n),
          logger: this.log,
          providerOptions: this.opts.providerOptions,
          ...(this.opts.providerFactory ? { factory: this.opts.providerFactory } : {}),
        }),
      };
      entry = holder;
      this.caches.set(key, entry);
    }
    entry.flat = flat;
    try {
      return await entry.cache.use(name, async (provider) => {
        if (!provider.capacity) return unknown(name, `the ${name} provider cannot tell its capacity`);
        const answer = await provider.capacity({ vcpus: 0, memoryMiB: 0 });
        if (answer.available === undefined) return unknown(name, answer.message);
        const running = (await provider.listInstances({ [CLUSTER_UID_TAG]: await this.uid(signal) })).length;
        return {
          provider: name,
          hold: answer.available + running,
          reason: answer.reason,
          message: `${answer.message}; ${running} VM(s) of this cluster running`,
        };
      });
    } catch (err) {
      return unknown(name, `${name}: ${errorText(err)}`);
    }
  }

  /** Drops what was kept for a deleted PeerPodConfig. */
  async forget(cfg: PeerPodConfig): Promise<void> {
    const key = ownerKey(cfg);
    const entry = this.caches.get(key);
    this.caches.delete(key);
    await entry?.cache.close();
  }

  async close(): Promise<void> {
    const all = [...this.caches.values()];
    this.caches.clear();
    await Promise.all(all.map((e) => e.cache.close()));
  }

  private async settings(cfg: PeerPodConfig, signal: AbortSignal): Promise<Record<string, string>> {
    const ns = cfg.metadata.namespace as string;
    // A Secret it may not read leaves the settings of the ConfigMap: enough for qemu and libvirt,
    // and a cloud provider then names what it misses.
    const read = async (type: typeof ConfigMaps, name: string, optional: boolean): Promise<DataObject | undefined> => {
      try {
        return await this.client.get<DataObject>(type, name, ns, { signal });
      } catch (err) {
        if (isNotFound(err) || (optional && isForbidden(err))) return undefined;
        throw err;
      }
    };
    const [cm, secret] = await Promise.all([
      read(ConfigMaps, cfg.spec.configMapName ?? DEFAULT_CONFIGMAP_NAME, false),
      read(Secrets, cfg.spec.cloudSecretName ?? DEFAULT_CLOUD_SECRET_NAME, true),
    ]);
    return flatSettings(cm, secret);
  }

  /** The kube-system namespace UID, the tag every VM of this cluster carries (as the orphan sweep). */
  private async uid(signal: AbortSignal): Promise<string> {
    this.clusterUid ??= (await this.client.get(Namespaces, 'kube-system', undefined, { signal })).metadata
      .uid as string;
    return this.clusterUid;
  }
}
