// The unhealthy-node terminator: replaces workload-cluster nodes that stay NotReady too long (for
// every cluster when enabled, else for clusters that ask by annotation).
import type { HandlerChain, Manager, ResourceHandler } from '../../runtime/index.ts';
import { KVMConfigs } from '../api/index.ts';
import type { KVMConfig } from '../api/index.ts';
import type { KvmDeps } from '../deps.ts';
import { terminateUnhealthyNodesHandler } from '../handlers/terminator/terminate-unhealthy-nodes.ts';
import { ControllerNames } from './names.ts';
import { chainController, kvmConfigScope } from './shared.ts';

export function terminatorHandlers(deps: KvmDeps): ResourceHandler<KVMConfig>[] {
  return [terminateUnhealthyNodesHandler(deps)];
}

export function setupUnhealthyNodeTerminator(manager: Manager, deps: KvmDeps): HandlerChain<KVMConfig> {
  const options = deps.options;
  return chainController<KVMConfig>(manager, {
    name: ControllerNames.unhealthyNodeTerminator,
    type: KVMConfigs,
    scope: kvmConfigScope(options),
    handlers: terminatorHandlers(deps),
    resyncMs: options.resyncMs,
    recheckMs: options.recheckMs,
  });
}
