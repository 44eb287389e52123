// The adaptors against the embedded control plane, in-process: one adaptor per simulated node on
// one manager (shared PeerPod and settings informers). The simulated kubelets must leave the runtime
// class to the adaptors, as the kata shim's RuntimeClass handler does in a real cluster; that is a
// call on the control plane's process, so only code that runs both (tests, embedders) uses this.
// `src/peerpod/` never imports `src/kube/`: the control plane is described here by what is called.
import { Manager, createLogger } from '../../runtime/index.ts';
import type { KubeClient, Logger, ManagerOptions } from '../../runtime/index.ts';
import type { AdaptorOptions } from './options.ts';
import { DEFAULT_RUNTIME_CLASS } from './options.ts';
import { setupAdaptor } from './setup.ts';
import type { Adaptor } from './setup.ts';

/** What of the embedded control plane the adaptors need (its ControlPlane has this shape). */
export interface SimulatedNodeHost {
  internals: {
    /** Makes the simulated kubelets leave pods of this runtime class to a node agent. */
    registerNodeAgent(runtimeClassName: string): void;
    nodes: { list(): string[] };
  };
}

export interface EmbeddedAdaptorsOptions extends Omit<AdaptorOptions, 'nodeName'> {
  client: KubeClient;
  /** Default: every simulated node of the control plane. */
  nodes?: string[];
  logger?: Logger;
  manager?: Omit<ManagerOptions, 'client' | 'logger' | 'leaderElection'>;
}

export interface EmbeddedAdaptors {
  manager: Manager;
  adaptors: Adaptor[];
  stop(): Promise<void>;
}

/**
 * Claims `runtimeClassName` from the embedded control plane's simulated kubelets and runs one
 * adaptor per node, all on one manager (shared PeerPod and settings informers).
 */
export async function startEmbeddedAdaptors(
  cp: SimulatedNodeHost,
  o: EmbeddedAdaptorsOptions,
): Promise<EmbeddedAdaptors> {
  const { client, nodes, logger, manager: managerOpts, ...adaptorOpts } = o;
  cp.internals.registerNodeAgent(adaptorOpts.runtimeClassName || DEFAULT_RUNTIME_CLASS);
  const manager = new Manager({
    server: false,
    handleSignals: false,
    ...managerOpts,
    client,
    logger: logger ?? createLogger('peerpod-adaptor'),
    leaderElection: false,
  });
  const adaptors = (nodes ?? cp.internals.nodes.list()).map((nodeName) =>
    setupAdaptor(manager, { ...adaptorOpts, nodeName }),
  );
  const done = manager.start();
  done.catch(() => undefined);
  return {
    manager,
    adaptors,
    async stop() {
      await manager.stop();
      await done.catch(() => undefined);
    },
  };
}
