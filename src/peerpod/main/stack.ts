// The whole peer-pods stack against one cluster, as `peerpods start` and `peerpods demo` run it:
// settings, the PeerPod and PeerPodConfig controllers, the pod webhook, one adaptor per node and the
// sample PeerPodConfig. Everything talks to the API server through kubeconfig clients, as against
// any cluster; the embedding (control plane, kubelet hand-over, webhook routing) comes in as hooks,
// so this module never reaches into the control plane.
import path from 'node:path';
import { Registry } from 'prom-client';
import { KubeClient, Manager, Namespaces } from '../../runtime/index.ts';
import type { Logger } from '../../runtime/index.ts';
import { startAdaptor } from '../adaptor/index.ts';
import type { RunningAdaptor } from '../adaptor/index.ts';
import { setupPeerPodConfigController, setupPeerPodController } from '../controllers/index.ts';
import type { PeerPodController } from '../controllers/index.ts';
import { createProvider } from '../providers/index.ts';
import type { CloudProvider } from '../providers/index.ts';
import { applyPeerPodConfig, applySettings } from './bootstrap.ts';
import { waitForStackReady } from './readiness.ts';
import { RUNTIME_CLASS, SAMPLE_LIMIT, STACK_NAMESPACE, providerConfigFor } from './settings.ts';
import type { StackProviderName } from './settings.ts';
import { borrowed, buildSharedProvider, reapPreviousRuns } from './shared-provider.ts';
import { drainPeerPods } from './shutdown.ts';
import type { DrainReport } from './shutdown.ts';
import { hostPodWebhook } from './webhook-host.ts';

export interface StackOptions {
  /** Kubeconfig YAML of the cluster. */
  kubeconfig: string;
  /** Node names; one adaptor each. */
  nodes: string[];
  provider: StackProviderName;
  /** Provider state and webhook certificates go under it. */
  stateDir: string;
  namespace?: string;
  limit?: number;
  orphanGraceMs?: number;
  sweepIntervalMs?: number;
  logger: Logger;
  /** Hands pods of the runtime class from the (simulated) kubelets to the adaptors. */
  registerNodeAgent?(runtimeClassName: string): void;
  /** Routes the webhook Service to where this process serves it. */
  serveWebhook?(address: { host: string; port: number }): void;
  /** Workers per adaptor (default the adaptor's). */
  adaptorWorkers?: number;
}

export interface PeerPodsStack {
  client: KubeClient;
  provider: CloudProvider;
  providerConfig: Record<string, string>;
  namespace: string;
  clusterUid: string;
  webhookAddress: { host: string; port: number };
  peerPodController: PeerPodController;
  /** VMs a killed earlier run left behind, deleted at start. */
  reapedAtStart: number;
  adaptorRunning(node: string): boolean;
  stopAdaptor(node: string): Promise<void>;
  startAdaptor(node: string): Promise<void>;
  /** Deletes every peer pod (their adaptors delete the VMs), then any VM still tagged for this cluster. */
  drain(timeoutMs?: number): Promise<DrainReport>;
  /** drain() then stops every manager and closes the provider. */
  stop(): Promise<DrainReport>;
}

export async function startPeerPodsStack(o: StackOptions): Promise<PeerPodsStack> {
  const namespace = o.namespace ?? STACK_NAMESPACE;
  const log = o.logger;
  const providerConfig = providerConfigFor(o.provider, o.stateDir);
  const provider = await buildSharedProvider(o.provider, providerConfig, log.child({ component: 'provider' }));
  const closers: Array<() => Promise<void> | void> = [() => provider.close?.()];
  const newClient = (registry?: Registry) =>
    KubeClient.fromKubeconfigString(o.kubeconfig, {
      metricsRegistry: registry ?? null,
      logger: log.child({ component: 'kube-client' }),
    });
  const client = newClient();
  closers.push(() => client.close());
  try {
    const settings = { namespace, providerConfig, limit: o.limit ?? SAMPLE_LIMIT };
    await applySettings(client, settings);
    const clusterUid = (await client.get(Namespaces, 'kube-system')).metadata.uid as string;
    const reapedAtStart = await reapPreviousRuns(provider, clusterUid, log);

    // The operators' manager: what `run peerpod-controller`, `run peerpodconfig-controller` and the
    // webhook Deployment run in a real cluster, here on one manager.
    const registry = new Registry();
    const opsClient = newClient(registry);
    closers.push(() => opsClient.close());
    const manager = new Manager({
      client: opsClient,
      logger: log.child({ component: 'operators' }),
      metricsRegistry: registry,
      server: false,
      handleSignals: false,
    });
    const shared = borrowed(provider);
    const peerPodController = setupPeerPodController(manager, {
      namespace,
      orphanGraceMs: o.orphanGraceMs ?? 60_000,
      sweepIntervalMs: o.sweepIntervalMs ?? 15_000,
      providerErrorRequeueMs: 10_000,
      providerFactory: async (name, config) =>
        name === provider.name ? shared : createProvider(name, config, { logger: log }),
    });
    setupPeerPodConfigController(manager, {});
    const webhook = hostPodWebhook(manager, {
      namespace,
      certDir: path.join(o.stateDir, 'webhook-certs'),
      logger: log,
      metricsRegistry: registry,
    });
    const managerDone = manager.start();
    managerDone.catch((err: unknown) => log.error({ err }, 'operator manager stopped with an error'));
    closers.push(async () => {
      await manager.stop();
      await managerDone.catch(() => undefined);
    });

    o.registerNodeAgent?.(RUNTIME_CLASS);
    const adaptors = new Map<string, RunningAdaptor>();
    const startOne = async (node: string): Promise<void> => {
      if (adaptors.has(node)) return;
      const c = newClient();
      const running = await startAdaptor({
        nodeName: node,
        namespace,
        runtimeClassName: RUNTIME_CLASS,
        provider: shared,
        client: c,
        logger: log.child({ component: 'adaptor', node }),
        ...(o.adaptorWorkers ? { maxConcurrentReconciles: o.adaptorWorkers } : {}),
        manager: { server: false, handleSignals: false, metricsRegistry: new Registry() },
      });
      void running.done.finally(() => c.close());
      adaptors.set(node, running);
    };
    const stopOne = async (node: string): Promise<void> => {
      const a = adaptors.get(node);
      adaptors.delete(node);
      await a?.stop();
    };
    for (const node of o.nodes) await startOne(node);
    closers.push(() => Promise.all([...adaptors.keys()].map(stopOne)).then(() => undefined));

    await applyPeerPodConfig(client, settings);
    // The Secret comes from the PeerPodConfig controller, so the webhook listens only after the apply.
    const webhookAddress = await webhook.listening;
    o.serveWebhook?.(webhookAddress);
    await waitForStackReady(client, { namespace, nodes: o.nodes });

    let drained: Promise<DrainReport> | undefined;
    const drain = (timeoutMs = 30_000): Promise<DrainReport> =>
      drainPeerPods({ client, provider, clusterUid, runtimeClass: RUNTIME_CLASS, timeoutMs, log });
    return {
      client,
      provider,
      providerConfig,
      namespace,
      clusterUid,
      webhookAddress,
      peerPodController,
      reapedAtStart,
      adaptorRunning: (node) => adaptors.has(node),
      stopAdaptor: stopOne,
      startAdaptor: startOne,
      drain,
      async stop() {
        drained ??= (async () => {
          // Adaptors that were stopped (the demo's failure path) come back to stop their pods' VMs.
          for (const node of o.nodes) await startOne(node).catch(() => undefined);
          const report = await drain();
          await closeAll(closers);
          return report;
        })();
        return drained;
      },
    };
  } catch (err) {
    await closeAll(closers);
    throw err;
  }
}

async function closeAll(closers: Array<() => Promise<void> | void>): Promise<void> {
  for (const close of closers.splice(0).reverse()) {
    try {
      await close();
    } catch {
      // Best effort: stopping must get through every step.
    }
  }
}
