// The deleter controller: frees what a deleted cluster leaves outside its namespace (endpoint IPs
// of its node pods, workload-cluster Nodes whose pods are gone).
import { Pods } from '../../runtime/index.ts';
import type { HandlerChain, Manager, ResourceHandler } from '../../runtime/index.ts';
import { KVMConfigs } from '../api/index.ts';
import type { KVMConfig } from '../api/index.ts';
import type { KvmDeps } from '../deps.ts';
import { cleanupEndpointIpsHandler } from '../handlers/deleter/cleanup-endpoint-ips.ts';
import { workloadNodeHandler } from '../handlers/deleter/node.ts';
import { ControllerNames } from './names.ts';
import { chainController, kvmConfigScope, nodePodScope, toKvmConfig } from './shared.ts';

/** The chain in upstream's order. */
export function deleterHandlers(deps: KvmDeps): ResourceHandler<KVMConfig>[] {
  return [cleanupEndpointIpsHandler(deps), workloadNodeHandler(deps)];
}

export function setupDeleterController(manager: Manager, deps: KvmDeps): HandlerChain<KVMConfig> {
  const options = deps.options;
  return chainController<KVMConfig>(manager, {
    name: ControllerNames.deleter,
    type: KVMConfigs,
    scope: kvmConfigScope(options),
    handlers: deleterHandlers(deps),
    resyncMs: options.deleterResyncMs,
    recheckMs: options.recheckMs,
    watches: [{ type: Pods, scope: nodePodScope(options), map: toKvmConfig(options) }],
  });
}
