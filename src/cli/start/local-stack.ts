// The embedded control plane plus the whole peer-pods stack on it: what `peerpods start`,
// `peerpods demo`, the e2e tests and the end-to-end benchmark run. The control plane's part of the
// embedding lives here (cli/ may reach into kube/): simulated kubelets hand kata-remote pods to the
// adaptors, and the webhook Service resolves to the port this process serves the webhook on. In a
// real cluster the kata shim's RuntimeClass handler and the peer-pods-webhook Deployment do that.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { endpointsResolver, startControlPlane } from '../../kube/index.ts';
import type { ControlPlane } from '../../kube/index.ts';
import { KubeClient } from '../../runtime/index.ts';
import type { Logger } from '../../runtime/index.ts';
import { STACK_NAMESPACE, WEBHOOK_SERVICE, allCrds, startPeerPodsStack } from '../../peerpod/index.ts';
import type { DrainReport, PeerPodsStack, StackProviderName } from '../../peerpod/index.ts';
import { applyAll } from '../manifests/apply.ts';

export interface LocalStackOptions {
  port?: number;
  /** Where the kubeconfig is written; none when unset. */
  kubeconfigPath?: string;
  nodes: number;
  provider: StackProviderName;
  stateDir: string;
  logger: Logger;
  orphanGraceMs?: number;
  sweepIntervalMs?: number;
  adaptorWorkers?: number;
  /** Cluster-wide pod VMs in the sample PeerPodConfig (default 4). */
  limit?: number;
}

export interface LocalStack {
  cp: ControlPlane;
  stack: PeerPodsStack;
  nodes: string[];
  /** Drains the peer pods (no VM left behind), stops the operators, then the control plane. */
  stop(): Promise<DrainReport>;
}

export async function startLocalStack(o: LocalStackOptions): Promise<LocalStack> {
  mkdirSync(o.stateDir, { recursive: true });
  const cp = await startControlPlane({
    port: o.port ?? 0,
    nodes: o.nodes,
    ...(o.kubeconfigPath ? { kubeconfigPath: path.resolve(o.kubeconfigPath) } : {}),
  });
  try {
    // `peerpods install`: the CRDs, through the API like against any cluster.
    const installer = KubeClient.fromKubeconfigString(cp.kubeconfig, { metricsRegistry: null, logger: o.logger });
    try {
      await applyAll(installer, allCrds());
    } finally {
      installer.close();
    }
    const fallback = endpointsResolver(cp.internals.storage);
    const stack = await startPeerPodsStack({
      kubeconfig: cp.kubeconfig,
      nodes: cp.internals.nodes.list(),
      namespace: STACK_NAMESPACE,
      provider: o.provider,
      stateDir: o.stateDir,
      logger: o.logger,
      ...(o.orphanGraceMs !== undefined ? { orphanGraceMs: o.orphanGraceMs } : {}),
      ...(o.sweepIntervalMs !== undefined ? { sweepIntervalMs: o.sweepIntervalMs } : {}),
      ...(o.adaptorWorkers ? { adaptorWorkers: o.adaptorWorkers } : {}),
      ...(o.limit ? { limit: o.limit } : {}),
      registerNodeAgent: (rc) => cp.internals.registerNodeAgent(rc),
      serveWebhook: (address) =>
        cp.internals.setServiceResolver((ns, name, port) =>
          name === WEBHOOK_SERVICE && ns === STACK_NAMESPACE ? address : fallback(ns, name, port),
        ),
    });
    let stopping: Promise<DrainReport> | undefined;
    return {
      cp,
      stack,
      nodes: cp.internals.nodes.list(),
      stop() {
        stopping ??= (async () => {
          try {
            return await stack.stop();
          } finally {
            await cp.stop();
          }
        })();
        return stopping;
      },
    };
  } catch (err) {
    await cp.stop();
    throw err;
  }
}
