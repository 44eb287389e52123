// The PeerPods one node's adaptor caches. A cluster-wide PeerPod cache on every node made each
// PeerPod write travel to every adaptor: at 100 nodes, 100 copies of every write and 100 caches of
// every PeerPod (the peer-pod fleet benchmark's adaptors starved the API server of CPU). The PeerPods
// an adaptor writes carry its node as a label, and it watches two label selectors: its own node's
// PeerPods, and those without the label (written by upstream's adaptor, by an earlier version, or
// on a node whose name is too long for a label value). A PeerPod never moves between the two: the
// label is set when the PeerPod is made and never added later, so a PeerPod can never be missing
// from both caches at once, which would make the adaptor create a second VM for a pod.
import type { KubeObject, Manager, Scope, SharedInformer } from '../../runtime/index.ts';
import { PeerPodAnnotations, PeerPods } from '../api/index.ts';
import type { PeerPod } from '../api/index.ts';

/** The label the adaptor's PeerPods carry: the same key as the node annotation. */
export const NODE_LABEL = PeerPodAnnotations.node;

/** A label value holds at most 63 characters; node names may have up to 253. */
const MAX_LABEL_VALUE = 63;

/** The node label a PeerPod made for `nodeName` carries; none when the name cannot be a label value. */
export function nodeLabels(nodeName: string): Record<string, string> {
  return nodeName.length > 0 && nodeName.length <= MAX_LABEL_VALUE ? { [NODE_LABEL]: nodeName } : {};
}

export interface PeerPodCache {
  get(namespace: string | undefined, name: string): PeerPod | undefined;
  list(namespace?: string): PeerPod[];
  byIndex(index: string, value: string): PeerPod[];
  /** The informer that holds `pp` (for waitForCache after writing it). */
  holding(pp: KubeObject): SharedInformer<PeerPod>;
}

export class NodePeerPods implements PeerPodCache {
  /** The scopes to watch, for the controller's owns(). */
  readonly scopes: Scope[];
  private readonly own: SharedInformer<PeerPod> | undefined;
  private readonly unlabelled: SharedInformer<PeerPod>;

  constructor(manager: Manager, nodeName: string) {
    const label = nodeLabels(nodeName)[NODE_LABEL];
    const unlabelledScope: Scope = { labelSelector: `!${NODE_LABEL}` };
    const ownScope: Scope | undefined = label ? { labelSelector: `${NODE_LABEL}=${label}` } : undefined;
    this.scopes = ownScope ? [ownScope, unlabelledScope] : [unlabelledScope];
    this.own = ownScope ? manager.informerFor<PeerPod>(PeerPods, ownScope) : undefined;
    this.unlabelled = manager.informerFor<PeerPod>(PeerPods, unlabelledScope);
  }

  get(namespace: string | undefined, name: string): PeerPod | undefined {
    return this.own?.get(namespace, name) ?? this.unlabelled.get(namespace, name);
  }

  list(namespace?: string): PeerPod[] {
    return [...(this.own?.list(namespace) ?? []), ...this.unlabelled.list(namespace)];
  }

  byIndex(index: string, value: string): PeerPod[] {
    return [...(this.own?.byIndex(index, value) ?? []), ...this.unlabelled.byIndex(index, value)];
  }

  holding(pp: KubeObject): SharedInformer<PeerPod> {
    return this.own && pp.metadata.labels?.[NODE_LABEL] !== undefined ? this.own : this.unlabelled;
  }
}
