// Informer scopes, maps and the chain factory the four kvm controllers share.
import { Annotations, Labels, POD_WATCHER } from '../api/labels.ts';
import type { KubeObject, Manager, Request, ResourceHandler, ResourceType, Scope } from '../../runtime/index.ts';
import { ControllerBuilder, HandlerChain, requestKey } from '../../runtime/index.ts';
import { finalizerFor } from '../api/labels.ts';
import type { ResolvedKvmOptions } from '../options.ts';

export const PAUSED_ANNOTATIONS = [Annotations.pausedOperatorkit, Annotations.pausedClusterApi];

/** KVMConfigs this operator version handles. */
export function kvmConfigScope(o: ResolvedKvmOptions): Scope {
  return { namespace: o.kvmConfigNamespace, labelSelector: `${Labels.operatorVersion}=${o.version}` };
}

/** Node pods this operator version created (upstream's drainer selector). */
export function nodePodScope(o: ResolvedKvmOptions): Scope {
  return { labelSelector: `${Labels.podWatcher}=${POD_WATCHER},${Labels.operatorVersion}=${o.version}` };
}

/** Workload-cluster credential Secrets (labelled with their cluster ID). */
export function credentialScope(o: ResolvedKvmOptions): Scope {
  return { namespace: o.credentialsNamespace, labelSelector: Labels.cluster };
}

/** Maps an object labelled giantswarm.io/cluster=<id> to its KVMConfig `<ns>/<id>`. */
export function toKvmConfig(o: ResolvedKvmOptions): (obj: KubeObject) => Request | undefined {
  return (obj) => {
    const id = obj.metadata.labels?.[Labels.cluster];
    return id ? { namespace: o.kvmConfigNamespace, name: id } : undefined;
  };
}

export interface ChainControllerSpec<T extends KubeObject> {
  name: string;
  type: ResourceType;
  scope: Scope;
  handlers: ResourceHandler<T>[];
  resyncMs: number;
  recheckMs: number;
  /** Extra watches (kind, scope, map to the primary). */
  watches?: Array<{ type: ResourceType; scope: Scope; map: (obj: KubeObject) => Request | Request[] | undefined }>;
}

/** A controller whose reconciler is a HandlerChain over the primary kind, one worker like upstream. */
export function chainController<T extends KubeObject>(manager: Manager, spec: ChainControllerSpec<T>): HandlerChain<T> {
  const chain = new HandlerChain<T>({
    name: spec.name,
    finalizer: finalizerFor(spec.name),
    type: spec.type,
    client: manager.client,
    handlers: spec.handlers,
    pausedAnnotations: PAUSED_ANNOTATIONS,
    resyncMs: spec.resyncMs,
    recheckMs: spec.recheckMs,
    metricsRegistry: manager.metricsRegistry,
  });
  let builder = new ControllerBuilder(manager, spec.name).for<T>(spec.type, { scope: spec.scope });
  for (const w of spec.watches ?? []) builder = builder.watches(w.type, w.map, { scope: w.scope });
  builder.completeWithObjects(chain);
  return chain;
}

export { requestKey };
