// The node drainer controller: executes DrainerConfigs (upstream's node-operator role). A plain
// reconciler, not a handler chain: it keeps no finalizer.
import { ControllerBuilder } from '../../runtime/index.ts';
import type { Controller, Manager } from '../../runtime/index.ts';
import { DrainerConfigs } from '../api/index.ts';
import type { KvmDeps } from '../deps.ts';
import { NodeDrainer } from '../nodedrainer/index.ts';
import { ControllerNames } from './names.ts';

export function setupNodeDrainerController(manager: Manager, deps: KvmDeps): Controller {
  return new ControllerBuilder(manager, ControllerNames.nodeDrainer)
    .for(DrainerConfigs)
    .complete(new NodeDrainer(deps));
}
