// What every `peerpods run <operator>` subcommand shares: a Manager over a client from the current kubeconfig context (or in-cluster), run until SIGTERM/SIGINT.
import { KubeClient, Manager, createLogger } from '../../runtime/index.ts';
import type { Logger } from '../../runtime/index.ts';

export interface OperatorManagerOptions {
  /** Logger name, e.g. `peerpod-controller`. */
  name: string;
  kubeconfig?: string;
  namespace?: string;
  leaderElect?: boolean;
  /** Lease name for leader election. */
  leaseName: string;
  healthProbeBindAddress: { host: string; port: number } | false;
}

export interface OperatorManager {
  client: KubeClient;
  manager: Manager;
  logger: Logger;
  /** `--namespace`, else `PEERPODS_NAMESPACE`, else the kubeconfig's or service account's namespace. */
  namespace: string;
  /** Runs the manager until it stops (signals drain it), then closes the client. */
  run(): Promise<void>;
}

export async function operatorManager(o: OperatorManagerOptions): Promise<OperatorManager> {
  const logger = createLogger(o.name);
  const client = await KubeClient.load({
    ...(o.kubeconfig ? { kubeconfigPath: o.kubeconfig } : {}),
    logger: logger.child({ component: 'kube-client' }),
  });
  const namespace = o.namespace || process.env.PEERPODS_NAMESPACE || client.namespace || 'default';
  const manager = new Manager({
    client,
    logger,
    server: o.healthProbeBindAddress,
    leaderElection: o.leaderElect ? { leaseName: o.leaseName, namespace } : false,
  });
  return {
    client,
    manager,
    logger,
    namespace,
    async run() {
      try {
        await manager.start();
      } finally {
        client.close();
      }
    },
  };
}
