// Starts the embedded control plane and a client for it, for integration tests.
import { Registry } from 'prom-client';
import { startControlPlane } from '../../src/kube/index.ts';
import type { ControlPlane } from '../../src/kube/index.ts';
import { KubeClient } from '../../src/runtime/index.ts';
import { silentLogger } from '../../src/runtime/index.ts';

export interface TestCluster {
  cp: ControlPlane;
  /** A client with its own metrics registry. */
  client(registry?: Registry): KubeClient;
  stop(): Promise<void>;
}

export async function startTestCluster(): Promise<TestCluster> {
  const cp = await startControlPlane();
  const clients: KubeClient[] = [];
  return {
    cp,
    client(registry = new Registry()) {
      const c = KubeClient.fromKubeconfigString(cp.kubeconfig, { metricsRegistry: registry, logger: silentLogger() });
      clients.push(c);
      return c;
    },
    async stop() {
      for (const c of clients) c.close();
      await cp.stop();
    },
  };
}
