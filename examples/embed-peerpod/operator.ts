// "fleet-operator": another team's operator on peerpods/runtime that embeds the peer-pod
// reconcilers from peerpods/peerpod in its own manager, next to its own controller — the way
// upstream documents embedding peerpodconfig-ctrl and peerpod-ctrl in a host operator.
import type { Manager } from '../../src/runtime/index.ts';
import { setupPeerPodConfigController, setupPeerPodController } from '../../src/peerpod/index.ts';
import type {
  PeerPodConfigController,
  PeerPodConfigControllerOptions,
  PeerPodController,
  PeerPodControllerOptions,
} from '../../src/peerpod/index.ts';
import { setupNodeInventoryController } from './inventory.ts';

export interface FleetOptions {
  /** The operator's namespace: its inventory, and peer-pods-cm / peer-pods-secret for the PeerPod controller. */
  namespace: string;
  peerPodConfig?: PeerPodConfigControllerOptions;
  peerPod?: Omit<PeerPodControllerOptions, 'namespace'>;
}

export interface Fleet {
  peerPodConfig: PeerPodConfigController;
  peerPod: PeerPodController;
}

/** Registers the host operator's controller and the two embedded ones on `manager`. */
export function setupFleetOperator(manager: Manager, opts: FleetOptions): Fleet {
  setupNodeInventoryController(manager, opts.namespace);
  // PeerPodConfig: node capacity, the adaptor DaemonSet and the pod webhook, for PeerPodConfigs in
  // every namespace (pass `namespace` in its options to scope it to one).
  const peerPodConfig = setupPeerPodConfigController(manager, opts.peerPodConfig);
  // PeerPod: deletes the VM of a PeerPod whose adaptor never did (dangling VM), and sweeps orphans.
  const peerPod = setupPeerPodController(manager, { ...opts.peerPod, namespace: opts.namespace });
  return { peerPodConfig, peerPod };
}
