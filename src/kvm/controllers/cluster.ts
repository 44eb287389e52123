// The cluster controller: one workload cluster per KVMConfig (namespace, RBAC, config, node
// Deployments, Services, Ingress, PVCs, status), rerun when anything it made or reads changes.
import { Deployments, Pods, Secrets } from '../../runtime/index.ts';
import type { HandlerChain, KubeObject, Manager, ResourceHandler } from '../../runtime/index.ts';
import { KVMConfigs, Labels, MANAGED_BY, Releases } from '../api/index.ts';
import type { KVMConfig } from '../api/index.ts';
import type { KvmDeps } from '../deps.ts';
import { clusterRoleBindingHandler } from '../handlers/cluster/clusterrolebinding.ts';
import { configMapHandler } from '../handlers/cluster/configmap.ts';
import { deploymentHandler } from '../handlers/cluster/deployment.ts';
import { ingressHandler } from '../handlers/cluster/ingress.ts';
import { namespaceHandler } from '../handlers/cluster/namespace.ts';
import { nodeIndexStatusHandler } from '../handlers/cluster/nodeindex.ts';
import { pvcHandler } from '../handlers/cluster/pvc.ts';
import { serviceHandler } from '../handlers/cluster/service.ts';
import { serviceAccountHandler } from '../handlers/cluster/serviceaccount.ts';
import { statusHandler } from '../handlers/cluster/status.ts';
import { ControllerNames } from './names.ts';
import { chainController, credentialScope, kvmConfigScope, nodePodScope, toKvmConfig } from './shared.ts';

/** The chain in upstream's order (spec: kvm-operator 2ec7c507f). */
export function clusterHandlers(deps: KvmDeps): ResourceHandler<KVMConfig>[] {
  return [
    statusHandler(deps),
    nodeIndexStatusHandler(deps),
    clusterRoleBindingHandler(deps),
    namespaceHandler(deps),
    serviceAccountHandler(deps),
    configMapHandler(deps),
    deploymentHandler(deps),
    ingressHandler(deps),
    pvcHandler(deps),
    serviceHandler(deps),
  ];
}

export function setupClusterController(manager: Manager, deps: KvmDeps): HandlerChain<KVMConfig> {
  const options = deps.options;
  const kvmConfigs = manager.informerFor<KVMConfig>(KVMConfigs, kvmConfigScope(options));
  const toCluster = toKvmConfig(options);
  // A new or changed Release concerns every cluster labelled with its version.
  const byRelease = (r: KubeObject) =>
    kvmConfigs
      .list()
      .filter((c) => `v${c.metadata.labels?.[Labels.releaseVersion] ?? ''}` === r.metadata.name)
      .map((c) => ({ namespace: c.metadata.namespace, name: c.metadata.name as string }));
  return chainController<KVMConfig>(manager, {
    name: ControllerNames.cluster,
    type: KVMConfigs,
    scope: kvmConfigScope(options),
    handlers: clusterHandlers(deps),
    resyncMs: options.resyncMs,
    recheckMs: options.recheckMs,
    watches: [
      { type: Deployments, scope: { labelSelector: `${Labels.managedBy}=${MANAGED_BY}` }, map: toCluster },
      { type: Pods, scope: nodePodScope(options), map: toCluster },
      { type: Releases, scope: {}, map: byRelease },
      { type: Secrets, scope: credentialScope(options), map: toCluster },
    ],
  });
}
