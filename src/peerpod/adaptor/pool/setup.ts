// Wiring the warm pool onto the adaptor's manager: one more controller per node, keyed by
// PeerPodConfig, woken by the config, this node's pool records, the node's pods (a pod leaving frees
// capacity) and the Node (its capacity).
import { deepEqual } from '../../../apimachinery/index.ts';
import { ControllerBuilder, Nodes, Pods } from '../../../runtime/index.ts';
import type { Controller, KubeObject, Manager, Request, SharedInformer } from '../../../runtime/index.ts';
import { POOL_CLAIMED_FROM_ANNOTATION, POOL_LABEL, PeerPodConfigs, PeerPods, isPoolRecord } from '../../api/index.ts';
import type { PeerPod, PeerPodConfig } from '../../api/index.ts';
import type { AdaptorDeps } from '../deps.ts';
import { DEFAULT_RUNTIME_CLASS } from '../defaults.ts';
import { isOnNode } from '../peerpod-record.ts';
import { nodePlan, poolConfigFor } from './plan.ts';
import { poolReconciler } from './reconciler.ts';

interface NodeObject extends KubeObject {
  status?: { capacity?: Record<string, string> };
}

export function poolConfigsInformer(manager: Manager, namespace: string): SharedInformer<PeerPodConfig> {
  return manager.informerFor<PeerPodConfig>(PeerPodConfigs, { namespace });
}

/** The resource of this adaptor's pool, when one is configured (what makeRoom bounds). */
export function poolResourceOf(d: AdaptorDeps): string | undefined {
  if (!d.poolConfigs) return undefined;
  const cfg = poolConfigFor(d.poolConfigs.list(d.opts.namespace), d.opts.runtimeClassName, DEFAULT_RUNTIME_CLASS);
  return cfg ? nodePlan(cfg, d.opts.nodeName).resource : undefined;
}

export function setupPool(manager: Manager, d: AdaptorDeps, name: string): Controller {
  const configs = d.poolConfigs as SharedInformer<PeerPodConfig>;
  const ns = d.opts.namespace;
  const chosen = (): Request[] => {
    const cfg = poolConfigFor(configs.list(ns), d.opts.runtimeClassName, DEFAULT_RUNTIME_CLASS);
    return cfg ? [{ namespace: ns, name: cfg.metadata.name as string }] : [];
  };
  const forRecord = (pp: PeerPod): Request[] => {
    if (isPoolRecord(pp)) {
      if (pp.metadata.namespace !== ns || !isOnNode(pp, d.opts.nodeName)) return [];
      return [{ namespace: ns, name: pp.metadata.labels?.[POOL_LABEL] as string }];
    }
    // A pod's PeerPod made from a spare: the record it came from can now leave.
    return pp.metadata.annotations?.[POOL_CLAIMED_FROM_ANNOTATION] && isOnNode(pp, d.opts.nodeName) ? chosen() : [];
  };
  let builder = new ControllerBuilder(manager, name).for(PeerPodConfigs, { scope: { namespace: ns } });
  // The scopes of the adaptor's PeerPod cache, not every PeerPod of the cluster (node-peerpods.ts).
  for (const scope of d.peerPods.scopes) builder = builder.watches<PeerPod>(PeerPods, forRecord, { scope });
  return builder
    .watches<KubeObject>(Pods, chosen, { scope: { fieldSelector: `spec.nodeName=${d.opts.nodeName}` } })
    .watches<NodeObject>(Nodes, chosen, {
      scope: { fieldSelector: `metadata.name=${d.opts.nodeName}` },
      // Heartbeats rewrite the node every few seconds; only its capacity matters here.
      predicates: [{ update: (o, n) => !deepEqual(o.status?.capacity, n.status?.capacity) }],
    })
    .withOptions({ maxConcurrentReconciles: 1 })
    .complete(poolReconciler(d, { configs }));
}
