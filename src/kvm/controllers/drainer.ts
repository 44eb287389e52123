// The drainer controller: keyed by node pod, it keeps the pod's endpoint IPs current and drains its
// workload-cluster node before the pod may go.
import { Pods } from '../../runtime/index.ts';
import type { HandlerChain, Manager, ResourceHandler } from '../../runtime/index.ts';
import type { KvmDeps } from '../deps.ts';
import { endpointHandler } from '../handlers/drainer/endpoint.ts';
import { podDrainHandler } from '../handlers/drainer/pod.ts';
import type { Pod } from '../pods.ts';
import { ControllerNames } from './names.ts';
import { chainController, nodePodScope } from './shared.ts';

/** The chain in upstream's order. */
export function drainerHandlers(deps: KvmDeps): ResourceHandler<Pod>[] {
  return [endpointHandler(deps), podDrainHandler(deps)];
}

export function setupDrainerController(manager: Manager, deps: KvmDeps): HandlerChain<Pod> {
  const options = deps.options;
  return chainController<Pod>(manager, {
    name: ControllerNames.drainer,
    type: Pods,
    scope: nodePodScope(options),
    handlers: drainerHandlers(deps),
    resyncMs: options.resyncMs,
    recheckMs: options.recheckMs,
  });
}
