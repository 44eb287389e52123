// The handler chains of the four controllers, in upstream's order (spec: kvm-operator 2ec7c507f).
import type { KVMConfig } from '../api/kvmconfig.ts';
import type { KvmDeps } from '../deps.ts';
import type { Pod } from '../pods.ts';
import type { ResourceHandler } from '../../runtime/index.ts';
import { statusHandler } from './cluster/status.ts';
import { nodeIndexStatusHandler } from './cluster/nodeindex.ts';
import { clusterRoleBindingHandler } from './cluster/clusterrolebinding.ts';
import { namespaceHandler } from './cluster/namespace.ts';
import { serviceAccountHandler } from './cluster/serviceaccount.ts';
import { configMapHandler } from './cluster/configmap.ts';
import { deploymentHandler } from './cluster/deployment.ts';
import { ingressHandler } from './cluster/ingress.ts';
import { pvcHandler } from './cluster/pvc.ts';
import { serviceHandler } from './cluster/service.ts';
import { cleanupEndpointIpsHandler } from './deleter/cleanup-endpoint-ips.ts';
import { workloadNodeHandler } from './deleter/node.ts';
import { endpointHandler } from './drainer/endpoint.ts';
import { podDrainHandler } from './drainer/pod.ts';
import { terminateUnhealthyNodesHandler } from './terminator/terminate-unhealthy-nodes.ts';

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

export function deleterHandlers(deps: KvmDeps): ResourceHandler<KVMConfig>[] {
  return [cleanupEndpointIpsHandler(deps), workloadNodeHandler(deps)];
}

export function drainerHandlers(deps: KvmDeps): ResourceHandler<Pod>[] {
  return [endpointHandler(deps), podDrainHandler(deps)];
}

export function terminatorHandlers(deps: KvmDeps): ResourceHandler<KVMConfig>[] {
  return [terminateUnhealthyNodesHandler(deps)];
}
