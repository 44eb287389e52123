// What the PeerPodConfig's provider can hold: the provider named by CLOUD_PROVIDER in the config's
// ConfigMap/Secret, asked how many more VMs fit (providers/capacity.ts) at each VM size its PeerPods
// record (sizes-in-use.ts; its default size when none runs), the size that fits fewest deciding,
// plus the VMs it already runs for this cluster (they hold their share already). Any failure on the
// way is an "unknown" answer with its reason, never an error: the configured limit then stands, and
// the reconcile of the rest of the config goes on. A refused read is logged once per change (with
// the API server's message), so a missing RBAC rule shows in the controller's log.
import { ConfigMaps, Namespaces, Secrets, isNotFound } from '../../../runtime/index.ts';
import type { KubeClient, Logger } from '../../../runtime/index.ts';
import {
  CLUSTER_UID_TAG,
  InvalidRequestError,
  LiveProviderCache,
  flatSettings,
  scopeToProvider,
} from '../../providers/index.ts';
import type { CapacityReason, CapacityRequest, DataObject, ProviderCapacity } from '../../providers/index.ts';
import type { PeerPodConfig } from '../../api/peerpodconfig.ts';
import { DEFAULT_CLOUD_SECRET_NAME, DEFAULT_CONFIGMAP_NAME } from '../../api/peerpodconfig.ts';
import { ownerKey } from './nodes.ts';
import type { ResolvedCapacityOptions } from './options.ts';
import { sizesInUse } from './sizes-in-use.ts';
import type { SizeInUse } from './sizes-in-use.ts';

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
  /** The last refusal logged per config and read, so a recheck every minute does not repeat it. */
  private readonly warned = new Map<string, string>();

  constructor(
    private readonly client: KubeClient,
    private readonly opts: ResolvedCapacityOptions,
    private readonly log: Logger,
  ) {}

  async evaluate(cfg: PeerPodConfig, signal: AbortSignal): Promise<ProviderHold> {
    const hold = await this.evaluateOnce(cfg, signal);
    this.warnOnChange(`${ownerKey(cfg)}#capacity`, hold.hold === undefined ? hold.message : undefined);
    return hold;
  }

  private async evaluateOnce(cfg: PeerPodConfig, signal: AbortSignal): Promise<ProviderHold> {
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
        const ask = provider.capacity.bind(provider);
        const { answer, sizing } = await this.fewest(ask, await this.sizes(cfg, name, signal));
        if (answer.available === undefined) return unknown(name, answer.message);
        const running = (await provider.listInstances({ [CLUSTER_UID_TAG]: await this.uid(signal) })).length;
        return {
          provider: name,
          hold: answer.available + running,
          reason: answer.reason,
          message: `${answer.message}; ${running} VM(s) of this cluster running${sizing}`,
        };
      });
    } catch (err) {
      return unknown(name, `${name}: ${errorText(err)}`);
    }
  }

  /**
   * The provider's answer at the size that fits fewest, and the words saying which size that was
   * (nothing when only the default size is counted and nothing runs: the answer names its numbers).
   */
  private async fewest(
    ask: (size: CapacityRequest) => Promise<ProviderCapacity>,
    sizes: { inUse: SizeInUse[]; problem?: string },
  ): Promise<{ answer: ProviderCapacity; sizing: string }> {
    if (sizes.problem !== undefined || sizes.inUse.length === 0) {
      const answer = await ask({ vcpus: 0, memoryMiB: 0 });
      return {
        answer,
        sizing: sizes.problem === undefined ? '' : `; counted at the default VM size: ${sizes.problem}`,
      };
    }
    let worst: { answer: ProviderCapacity; size: SizeInUse } | undefined;
    for (const size of sizes.inUse) {
      let answer: ProviderCapacity;
      try {
        answer = await ask({ ...size.size });
      } catch (err) {
        // A size the provider refuses never got a VM: it takes no room.
        if (err instanceof InvalidRequestError) continue;
        throw err;
      }
      if (answer.available === undefined) return { answer, sizing: '' };
      if (!worst || answer.available < (worst.answer.available as number)) worst = { answer, size };
    }
    if (!worst) return { answer: await ask({ vcpus: 0, memoryMiB: 0 }), sizing: '' };
    const all = sizes.inUse.map((s) => `${s.text} x${s.count}`).join(', ');
    const which = sizes.inUse.length > 1 ? ', the size in use that fits fewest' : ', the size in use';
    return { answer: worst.answer, sizing: `; counted at VM size ${worst.size.text}${which} (PeerPods: ${all})` };
  }

  private async sizes(
    cfg: PeerPodConfig,
    provider: string,
    signal: AbortSignal,
  ): Promise<{ inUse: SizeInUse[]; problem?: string }> {
    const key = `${ownerKey(cfg)}#peerpods`;
    try {
      const inUse = await sizesInUse(this.client, provider, signal);
      this.warnOnChange(key, undefined);
      return { inUse };
    } catch (err) {
      // No PeerPod CRD yet: no PeerPod, so no VM of another size.
      if (isNotFound(err)) return { inUse: [] };
      const problem = `cannot list the PeerPods: ${errorText(err)}`;
      this.warnOnChange(key, problem);
      return { inUse: [], problem };
    }
  }

  private warnOnChange(key: string, problem: string | undefined): void {
    if (problem === undefined) {
      this.warned.delete(key);
      return;
    }
    if (this.warned.get(key) === problem) return;
    this.warned.set(key, problem);
    this.log.warn({ problem }, 'PeerPodConfig capacity not fully evaluated');
  }

  /** Drops what was kept for a deleted PeerPodConfig. */
  async forget(cfg: PeerPodConfig): Promise<void> {
    const key = ownerKey(cfg);
    for (const k of [...this.warned.keys()]) if (k.startsWith(`${key}#`)) this.warned.delete(k);
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
    // A missing Secret is no Secret (qemu and libvirt need none); one that exists but may not be
    // read leaves the capacity unknown, as the PeerPod controller never acts on half-read settings:
    // a cloud provider asked without its credentials would answer something else than it holds.
    const read = async (type: typeof ConfigMaps, name: string): Promise<DataObject | undefined> => {
      try {
        return await this.client.get<DataObject>(type, name, ns, { signal });
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw new Error(`${type.kind} ${ns}/${name}: ${errorText(err)}`);
      }
    };
    const [cm, secret] = await Promise.all([
      read(ConfigMaps, cfg.spec.configMapName ?? DEFAULT_CONFIGMAP_NAME),
      read(Secrets, cfg.spec.cloudSecretName ?? DEFAULT_CLOUD_SECRET_NAME),
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
