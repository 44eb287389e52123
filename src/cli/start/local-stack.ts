// The embedded cluster plus the peer-pods stack deployed on it exactly as on a real cluster: what
// `peerpods start`, `peerpods demo`, the e2e tests and the end-to-end benchmark run. The control
// plane starts with the process runtime (containers of our image are processes of this checkout's
// CLI); then the CLI does what a user does: `install` (the CRDs), `deploy` (config/default, the same
// objects as `peerpods deploy`), the settings (peer-pods-cm naming the provider, its state under the
// state directory) and the sample PeerPodConfig; with `withSimulated`, the simulated provider beside
// it, bound to its own RuntimeClass with its own config, settings and Roles (`deploy --extra-provider`).
// The PeerPod controller, the PeerPodConfig controller and the webhook run as pods of their
// Deployments, the adaptors as pods of the DaemonSet each PeerPodConfig creates. This process keeps
// only a handle on each provider's state (to count VMs, reap an earlier run's, and as the last resort
// when stopping).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { startControlPlane } from '../../kube/index.ts';
import type { ControlPlane } from '../../kube/index.ts';
import { KubeClient, Namespaces } from '../../runtime/index.ts';
import type { KubeObject, Logger } from '../../runtime/index.ts';
import {
  SAMPLE_LIMIT,
  STACK_NAMESPACE,
  applyPeerPodConfigs,
  applySettings,
  choiceProviders,
  deleteSpares,
  drainPeerPods,
  providers,
  reapOtherProviders,
  reapPreviousRuns,
  stackBindings,
  waitForStackReady,
} from '../../peerpod/index.ts';
import type {
  DrainReport,
  PeerPodsStack,
  StackBinding,
  StackProvider,
  StackProviderName,
} from '../../peerpod/index.ts';
import { IMAGE_ROOT, processRuntimeOptions } from '../cluster/process-runtime.ts';
import { applyAll } from '../manifests/apply.ts';
import { allCrds, deployTo } from '../manifests/operations.ts';
import { DEFAULT_IMAGE, PEERPOD_CONTROLLER_DEPLOYMENT, deployObjects } from '../manifests/layers.ts';
import type { ExtraProvider } from '../manifests/layers.ts';

export interface LocalStackOptions {
  port?: number;
  /** Where the kubeconfig is written; none when unset. */
  kubeconfigPath?: string;
  nodes: number;
  provider: StackProviderName;
  /** Also the simulated provider beside qemu: RuntimeClass kata-remote-sim, its own config and adaptors. */
  withSimulated?: boolean;
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
  const names = choiceProviders({ name: o.provider, ...(o.withSimulated ? { withSimulated: true } : {}) });
  const bindings = stackBindings(names, o.stateDir);
  const providerConfig = bindings[0].providerConfig;
  const manifest = {
    namespace: STACK_NAMESPACE,
    image: DEFAULT_IMAGE,
    peerPodControllerArgs: controllerArgs(o),
    extraProviders: bindings.filter((b) => !b.primary).map(extraProvider),
  };
  const deployed = deployObjects(manifest);
  for (const b of bindings) assertSeenByTheController(b.providerConfig, deployed);
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
  // (and those of each further provider) to the node's adaptor pod (`peerpods cluster start` does the same).
  for (const b of bindings) cp.internals.registerNodeAgent(b.runtimeClassName);
  phase('control plane up');
  const closers: Array<() => Promise<void> | void> = [() => cp.stop()];
  // Closed after the cluster: the spares' VMs are deleted through them once no adaptor runs.
  const providerClosers: Array<() => Promise<void> | void> = [];
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
    const settings = { namespace, bindings, limit: o.limit ?? SAMPLE_LIMIT };
    await applySettings(client, settings);
    await applyPeerPodConfigs(client, settings);
    phase(`settings and PeerPodConfig${bindings.length > 1 ? 's' : ''} applied`);

    // While the pods start: this process's handle on each provider's cloud state, and an earlier run's VMs.
    const handles: StackProvider[] = [];
    for (const binding of bindings) {
      const provider = await providers.createProvider(binding.provider, binding.providerConfig, {
        logger: log.child({ component: 'provider', provider: binding.provider }),
      });
      providerClosers.push(() => provider.close?.());
      await provider.verifyConfig();
      handles.push({ binding, provider });
    }
    const clusterUid = (await client.get(Namespaces, 'kube-system')).metadata.uid as string;
    let reapedAtStart = await reapOtherProviders(names, o.stateDir, client, log);
    for (const h of handles) reapedAtStart += await reapPreviousRuns(h.provider, client, clusterUid, log);

    const nodes = cp.internals.nodes.list();
    await waitForStackReady(client, {
      namespace,
      nodes,
      bindings,
      deployments: deployed.filter((x) => x.kind === 'Deployment').map((x) => x.metadata.name as string),
      timeoutMs: o.readyTimeoutMs ?? 60_000,
      progress: (what) => phase(`ready: ${what}`),
    });
    phase('every component Ready');

    const drain = (timeoutMs = 30_000): Promise<DrainReport> =>
      drainPeerPods({
        client,
        providers: handles.map((h) => h.provider),
        clusterUid,
        runtimeClasses: bindings.map((b) => b.runtimeClassName),
        timeoutMs,
        log,
      });
    const stack: PeerPodsStack = {
      client,
      provider: handles[0].provider,
      providerConfig,
      providers: handles,
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
            const report = await drain();
            // The adaptors refill their pools until they stop: the spares' VMs go once nothing runs.
            await closeAll(closers);
            await deleteSpares({ report, providers: handles.map((h) => h.provider), clusterUid, log });
            return report;
          } finally {
            await closeAll(closers);
            await closeAll(providerClosers);
          }
        })();
        return stopping;
      },
    };
  } catch (err) {
    await closeAll(closers);
    await closeAll(providerClosers);
    throw err;
  }
}

/** The Roles `deploy --extra-provider` adds for a further provider's config. */
function extraProvider(b: StackBinding): ExtraProvider {
  return { runtimeClassName: b.runtimeClassName, configMap: b.configMap, secret: b.secret };
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
