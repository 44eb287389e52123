// peerpods/peerpod adaptor: the node-side VM lifecycle of peer pods. See README.md.
import { KubeClient, Manager, createLogger } from '../../runtime/index.ts';
import type { Logger, ManagerOptions } from '../../runtime/index.ts';
import type { AdaptorOptions } from './options.ts';
import { setupAdaptor } from './setup.ts';
import type { Adaptor } from './setup.ts';

export { setupAdaptor, adaptorControllerName } from './setup.ts';
export type { Adaptor } from './setup.ts';
export { startEmbeddedAdaptors } from './embedded.ts';
export type { EmbeddedAdaptors, EmbeddedAdaptorsOptions, SimulatedNodeHost } from './embedded.ts';
export {
  DEFAULT_CONFIGMAP,
  DEFAULT_MAX_CONCURRENT_RECONCILES,
  DEFAULT_RUNTIME_CLASS,
  DEFAULT_SECRET,
  NODE_ANNOTATION,
  POD_UID_TAG,
  resolveAdaptorOptions,
} from './options.ts';
export type { AdaptorHooks, AdaptorOptions, ResolvedAdaptorOptions } from './options.ts';
export { VmAnnotations, vmSizeOf, InvalidVmSizeError } from './vm-size.ts';
export type { VmSize } from './vm-size.ts';
export { peerPodNameFor } from './peerpod-record.ts';
export { ProviderUnavailableError } from '../providers/index.ts';
export { adaptorMetrics } from './metrics.ts';
export { adaptorProviderRules, adaptorRbacRules } from './rbac.ts';

export interface StartAdaptorOptions extends AdaptorOptions {
  /** API client; default KubeClient.load() with `kubeconfig` (else $KUBECONFIG, in-cluster, ~/.kube/config). */
  client?: KubeClient;
  kubeconfig?: string;
  logger?: Logger;
  /** Passed to the Manager (probe server, metrics registry, graceful shutdown, ...). Leader election is always off. */
  manager?: Omit<ManagerOptions, 'client' | 'logger' | 'leaderElection'>;
}

export interface RunningAdaptor extends Adaptor {
  manager: Manager;
  /** Settles when the manager has stopped (rejects with the failure that stopped it, if any). */
  done: Promise<void>;
  stop(): Promise<void>;
}

/** Builds a manager for one node's adaptor and starts it. */
export async function startAdaptor(options: StartAdaptorOptions): Promise<RunningAdaptor> {
  const logger = options.logger ?? createLogger('peerpod-adaptor');
  const ownsClient = !options.client;
  const client =
    options.client ??
    (await KubeClient.load({
      ...(options.kubeconfig ? { kubeconfigPath: options.kubeconfig } : {}),
      ...(options.manager?.metricsRegistry ? { metricsRegistry: options.manager.metricsRegistry } : {}),
      logger: logger.child({ component: 'kube-client' }),
    }));
  const manager = new Manager({ ...options.manager, client, logger, leaderElection: false });
  const adaptor = setupAdaptor(manager, options);
  const done = manager.start().finally(() => {
    if (ownsClient) client.close();
  });
  // The caller awaits `done` or stop(); a failure is reported there, not as an unhandled rejection.
  done.catch(() => undefined);
  return {
    ...adaptor,
    manager,
    done,
    async stop() {
      await manager.stop();
      await done.catch(() => undefined);
    },
  };
}
