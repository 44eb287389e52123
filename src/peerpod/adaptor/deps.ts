// What the reconcile steps share. Everything here reads state from the API (through caches) or the
// provider; nothing remembers a pod between reconciles, so a restart loses nothing.
import { Namespaces } from '../../runtime/index.ts';
import type { KubeClient, KubeObject, Logger, Recorder, SharedInformer } from '../../runtime/index.ts';
import type { PeerPodConfig } from '../api/index.ts';
import { CLUSTER_UID_TAG } from '../providers/index.ts';
import type { LateCreates } from './late-creates.ts';
import type { AdaptorMetrics } from './metrics.ts';
import type { ResolvedAdaptorOptions } from './options.ts';
import { POD_UID_TAG } from './options.ts';
import type { ProviderSource } from './provider-source.ts';
import type { NodePeerPods } from './node-peerpods.ts';

export interface AdaptorDeps {
  client: KubeClient;
  /** Pods bound to this node (field selector spec.nodeName). */
  pods: SharedInformer<KubeObject>;
  /** This node's PeerPods and those without a node label (node-peerpods.ts). */
  peerPods: NodePeerPods;
  /** This node only (field selector metadata.name). */
  nodes: SharedInformer<KubeObject>;
  providers: ProviderSource;
  /** The PeerPodConfigs of the settings namespace: the warm pool's settings (pool/). */
  poolConfigs?: SharedInformer<PeerPodConfig>;
  /**
   * When this process last listed the spares' VMs (pool/reconciler.ts); 0 until it has. No spare is
   * handed out before that: a record kept from before a restart may name a VM that is gone.
   */
  poolHealth?: { checkedAt: number };
  /**
   * Warm starts under way on this node (claimed, not yet Running). The pool's refill waits for them:
   * it is background work, and a pod's start is what someone is waiting on. A scheduling hint only;
   * the claims themselves are in the pool records.
   */
  warmStarts?: { count: number };
  events: Recorder;
  metrics: AdaptorMetrics;
  opts: ResolvedAdaptorOptions;
  clusterUid(signal?: AbortSignal): Promise<string>;
  /** Creates that timed out but are still running (create-guard.ts). */
  lateCreates: LateCreates;
  log: Logger;
}

/** The tags on every VM of the pod: what it is created with, and how it is found when its ID is not recorded. */
export async function podVmTags(d: AdaptorDeps, podUid: string, signal?: AbortSignal): Promise<Record<string, string>> {
  return { [CLUSTER_UID_TAG]: await d.clusterUid(signal), [POD_UID_TAG]: podUid };
}

/** The cluster's identity for VM tags: the kube-system namespace UID (upstream PR #2981), read once. */
export function clusterUidReader(client: KubeClient): (signal?: AbortSignal) => Promise<string> {
  let uid: string | undefined;
  return async (signal) => {
    if (uid) return uid;
    const ns = await client.get(Namespaces, 'kube-system', undefined, signal ? { signal } : {});
    const found = ns.metadata.uid;
    if (!found) throw new Error('namespace kube-system has no metadata.uid');
    uid = found;
    return uid;
  };
}

export function hostIpOf(d: AdaptorDeps): string {
  const node = d.nodes.get(undefined, d.opts.nodeName) as
    (KubeObject & { status?: { addresses?: Array<{ type: string; address: string }> } }) | undefined;
  return node?.status?.addresses?.find((a) => a.type === 'InternalIP')?.address ?? '';
}

export function podRef(pod: KubeObject): string {
  return `${pod.metadata.namespace}/${pod.metadata.name}`;
}
