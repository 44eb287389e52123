// The embedded cluster plus the peer-pods stack deployed on it exactly as on a real cluster: what
// `peerpods start`, `peerpods demo`, the e2e tests and the end-to-end benchmark run. The control
// plane starts with the process runtime (containers of our image are processes of this checkout's
// CLI); then the CLI does what a user does: `install` (the CRDs), `deploy` (config/default, the same
// objects as `peerpods deploy`), the settings (peer-pods-cm naming the provider, its state under the
// state directory) and the sample PeerPodConfig. The PeerPod controller, the PeerPodConfig controller
// and the webhook run as pods of their Deployments, the adaptors as pods of the DaemonSet the
// PeerPodConfig creates. This process keeps only a provider handle on the same state (to count VMs,
// reap an earlier run's, and as the last resort when stopping).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { startControlPlane } from '../../kube/index.ts';
import type { ControlPlane } from '../../kube/index.ts';
import { KubeClient, Namespaces } from '../../runtime/index.ts';
import type { KubeObject, Logger } from '../../runtime/index.ts';
import {
  RUNTIME_CLASS,
  SAMPLE_LIMIT,
  STACK_NAMESPACE,
  applyPeerPodConfig,
  applySettings,
  drainPeerPods,
  providerConfigFor,
  providers,
  reapOtherProviders,
  reapPreviousRuns,
  waitForStackReady,
} from '../../peerpod/index.ts';
import type { DrainReport, PeerPodsStack, StackProviderName } from '../../peerpod/index.ts';
import { IMAGE_ROOT, processRuntimeOptions } from '../cluster/process-runtime.ts';
import { applyAll } from '../manifests/apply.ts';
import { allCrds, deployTo } from '../manifests/operations.ts';
import { DEFAULT_IMAGE, PEERPOD_CONTROLLER_DEPLOYMENT, deployObjects } from '../manifests/layers.ts';

export interface LocalStackOptions {
  port?: number;
  /** Where the kubeconfig is written; none when unset. */
  kubeconfigPath?: string;
  nodes: number;
  provider: StackProviderName;
  stateDir: string;
  logger: Logger;
  /** The PeerPod controller's --orphan-grace and --sweep-interval (its Deployment's args). */
  orphanGraceMs?: number;
  sweepIntervalMs?: number;
  /** Cluster-wide pod VMs in the sample PeerPodConfig (default 4). */
  limit?: number;
  /** How long to wait for every component to be Ready (default 60 s). */
  readyTimeoutMs?: number;
}

export interface LocalStack {
  cp: ControlPlane;
  stack: PeerPodsStack;
  nodes: string[];
  /** Drains the peer pods (their adaptor pods delete the VMs), then stops the cluster and its pods. */
  stop(): Promise<DrainReport>;
}

export async function startLocalStack(o: LocalStackOptions): Promise<LocalStack> {
  const providerConfig = providerConfigFor(o.provider, o.stateDir);
  const manifest = { namespace: STACK_NAMESPACE, image: DEFAULT_IMAGE, peerPodControllerArgs: controllerArgs(o) };
  const deployed = deployObjects(manifest);
  assertSeenByTheController(providerConfig, deployed);
  mkdirSync(o.stateDir, { recursive: true });
  const log = o.logger;
  const t0 = performance.now();
  // Where start-up time goes, in the log: the figure `peerpods start` is held to (ready within 15 s).
  const phase = (msg: string) => log.info({ ms: Math.round(performance.now() - t0) }, msg);
  const cp = await startControlPlane({
    port: o.port ?? 0,
    nodes: o.nodes,
    ...(o.kubeconfigPath ? { kubeconfigPath: path.resolve(o.kubeconfigPath) } : {}),
    // The cluster's objects are kept beside its pods' directories: a run after this one (even after
    // a SIGKILL) resumes its pods, PeerPods and VMs.
    dataDir: path.join(o.stateDir, 'cluster'),
    processRuntime: processRuntimeOptions(path.join(o.stateDir, 'cluster'), []),
  });
  // As the kata shim's RuntimeClass handler does on a real node: the kubelet leaves kata-remote pods
  // to the node's adaptor pod (`peerpods cluster start` does the same).
  cp.internals.registerNodeAgent(RUNTIME_CLASS);
  phase('control plane up');
  const closers: Array<() => Promise<void> | void> = [() => cp.stop()];
  try {
    const client = KubeClient.fromKubeconfigString(cp.kubeconfig, {
      metricsRegistry: null,
      logger: log.child({ component: 'kube-client' }),
    });
    closers.push(() => client.close());
    const namespace = STACK_NAMESPACE;
    // `peerpods install` then `peerpods deploy`, through the API like against any cluster.
    await applyAll(client, allCrds());
    phase('installed (CRDs)');
    await deployTo(client, manifest, () => undefined);
    phase('deployed (config/default)');
    const settings = { namespace, providerConfig, limit: o.limit ?? SAMPLE_LIMIT };
    await applySettings(client, settings);
    await applyPeerPodConfig(client, settings);
    phase('settings and PeerPodConfig applied');

    // While the pods start: this process's handle on the same cloud state, and an earlier run's VMs.
    const provider = await providers.createProvider(o.provider, providerConfig, {
      logger: log.child({ component: 'provider' }),
    });
    closers.push(() => provider.close?.());
    await provider.verifyConfig();
    const clusterUid = (await client.get(Namespaces, 'kube-system')).metadata.uid as string;
    const reapedAtStart =
      (await reapPreviousRuns(provider, client, clusterUid, log)) +
      (await reapOtherProviders(o.provider, o.stateDir, client, log));

    const nodes = cp.internals.nodes.list();
    await waitForStackReady(client, {
      namespace,
      nodes,
      deployments: deployed.filter((x) => x.kind === 'Deployment').map((x) => x.metadata.name as string),
      timeoutMs: o.readyTimeoutMs ?? 60_000,
      progress: (what) => phase(`ready: ${what}`),
    });
    phase('every component Ready');

    const drain = (timeoutMs = 30_000): Promise<DrainReport> =>
      drainPeerPods({ client, provider, clusterUid, runtimeClass: RUNTIME_CLASS, timeoutMs, log });
    const stack: PeerPodsStack = {
      client,
      provider,
      providerConfig,
      namespace,
      clusterUid,
      reapedAtStart,
      drain,
    };
    let stopping: Promise<DrainReport> | undefined;
    return {
      cp,
      stack,
      nodes,
      stop() {
        stopping ??= (async () => {
          try {
            return await drain();
          } finally {
            await closeAll(closers);
          }
        })();
        return stopping;
      },
    };
  } catch (err) {
    await closeAll(closers);
    throw err;
  }
}

/** Flags of `run peerpod-controller` that `peerpods start` exposes, as container args. */
function controllerArgs(o: LocalStackOptions): string[] {
  return [
    ...(o.orphanGraceMs !== undefined ? [`--orphan-grace=${o.orphanGraceMs}ms`] : []),
    ...(o.sweepIntervalMs !== undefined ? [`--sweep-interval=${o.sweepIntervalMs}ms`] : []),
  ];
}

/** A temporary directory every pod sees (the PeerPod controller's pod has an emptyDir over /tmp). */
export const POD_VISIBLE_TMPDIR = '/var/tmp';

/**
 * The PeerPod controller's pod must see the VMs the adaptor pods make: a process pod sees the host's
 * files except where a volume is mounted, and the Deployment mounts an emptyDir over /tmp (its root
 * filesystem is read-only). State under such a path would be invisible to it, so the orphan sweep
 * would see no VM: refused before anything starts, with where to put it instead. The checkout itself
 * (the image's files, where the default `.peerpods` lives) is never behind a volume, even in /tmp.
 */
function assertSeenByTheController(providerConfig: Record<string, string>, objects: KubeObject[]): void {
  const dir = providerConfig.QEMU_STATE_DIR ?? providerConfig.SIMULATED_STATE_DIR;
  if (!dir || dir === IMAGE_ROOT || dir.startsWith(`${IMAGE_ROOT}/`)) return;
  const controller = objects.find((x) => x.kind === 'Deployment' && x.metadata.name === PEERPOD_CONTROLLER_DEPLOYMENT);
  const spec = controller?.spec as
    { template: { spec: { containers: Array<{ volumeMounts?: Array<{ mountPath: string }> }> } } } | undefined;
  for (const c of spec?.template.spec.containers ?? []) {
    for (const { mountPath } of c.volumeMounts ?? []) {
      if (dir && (dir === mountPath || dir.startsWith(`${mountPath.replace(/\/+$/, '')}/`))) {
        throw new Error(
          `the provider state ${dir} would be under ${mountPath}, where the ${PEERPOD_CONTROLLER_DEPLOYMENT} pod mounts a volume: ` +
            `it would not see the VMs. Keep the state elsewhere (--kubeconfig in another directory, e.g. under ${POD_VISIBLE_TMPDIR})`,
        );
      }
    }
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
