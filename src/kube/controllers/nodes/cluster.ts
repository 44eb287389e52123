// The pieces that turn the API server into a local cluster: node lifecycle (condition taints,
// pod GC), the scheduler and the simulated nodes. Kept here so startControlPlane wires one thing.
import type { Storage } from '../../storage/storage.ts';
import type { ResourceCatalog } from '../../registry/catalog.ts';
import type { ObjectStore } from '../../registry/store/index.ts';
import type { Subresources } from '../../registry/subresources/index.ts';
import { NodeLifecycleController } from '../lifecycle/node.ts';
import type { NodeHealthOptions } from '../lifecycle/node-health.ts';
import { Scheduler } from '../scheduler/scheduler.ts';
import { SimulatedNodes, type NodeAgentHandler } from './simulated-nodes.ts';
import { DEFAULT_NODE_CONFIG, type SimulatedNodeConfig } from './node-object.ts';
import { ProcessRuntime, literalEnvConfigSource } from '../../kubelet/process/runtime.ts';
import { ApiContainerConfigSource } from '../../kubelet/process/config-source.ts';
import { containerViewEnv } from '../../kubelet/process/container-view/view.ts';
import type { ProcessRuntimeOptions } from '../../kubelet/process/options.ts';
import { ClusterPodStreams } from '../../kubelet/process/pod-streams.ts';
import type { PodStreams } from '../../kubelet/streams.ts';
import type { PodTokenSource } from '../../auth/tokens/index.ts';

export interface ClusterOptions {
  /** Simulated worker nodes created at start (node-1..N). Default 0. */
  nodes?: number;
  /** Run the built-in scheduler. Default true. */
  scheduler?: boolean;
  /**
   * Run the built-in controllers, the scheduler and the simulated nodes' kubelets. Default true;
   * false serves the API only, as a second kube-apiserver in front of the same etcd does (the
   * first server runs them: two copies would both act on every object).
   */
  controllers?: boolean;
  /** Capacity, heartbeat interval and shutdown time of simulated nodes. */
  simulatedNodes?: Partial<SimulatedNodeConfig>;
  /** The node lifecycle controller's monitor period and grace periods (kube's defaults: 5 s, 50 s, 60 s). */
  nodeLifecycle?: Partial<NodeHealthOptions>;
  /**
   * Run the containers of these images as real processes of this machine (kubelet/process/):
   * e.g. `{ images: ['ghcr.io/peerpods/peerpods'], entrypoint: [process.execPath, 'bin/peerpods.js'] }`.
   * Their restarts use `simulatedNodes.crashLoopBackOff`. Absent: every container is simulated.
   */
  processRuntime?: ProcessRuntimeOptions;
}

/** How processes reach the API server (known once it listens). */
export interface ApiServerAccess {
  apiServer(): { host: string; port: number };
  /** The service-account tokens of pods' projected volumes. */
  podTokens: PodTokenSource;
  caPem(): string;
}

/** What `internals.nodes` offers. */
export interface NodeControls {
  add(name?: string): Promise<string>;
  remove(name: string): Promise<void>;
  setReady(name: string, ready: boolean): Promise<void>;
  /**
   * Stops or restarts a node's kubelet: stopped, it renews no Lease, posts no status and syncs no
   * pods (the node lifecycle controller then marks the node Unknown); restarted, it posts its
   * conditions afresh, as a kubelet coming back does.
   */
  setKubeletRunning(name: string, running: boolean): Promise<void>;
  list(): string[];
  /** Resolves once every kubelet has caught up with pending pod changes. */
  idle(): Promise<void>;
}

export interface ClusterControllers {
  nodes: NodeControls;
  scheduler?: Scheduler;
  registerNodeAgent(runtimeClassName: string, handler?: NodeAgentHandler): void;
  unregisterNodeAgent(runtimeClassName: string): void;
  /** The kubelets' pods/log, exec and port-forward. */
  podStreams: PodStreams;
  /** Creates the initial nodes; call once the bootstrap namespaces exist. */
  bootstrap(): Promise<void>;
  /** Ends every container process (SIGTERM, then SIGKILL after a short grace); call before stop(). */
  stopProcesses(): Promise<void>;
  stop(): void;
}

export function startClusterControllers(
  deps: {
    storage: Storage;
    store: ObjectStore;
    catalog: ResourceCatalog;
    subresources: Subresources;
    apiServerAccess?: ApiServerAccess;
  },
  options: ClusterOptions,
): ClusterControllers {
  const processes = options.processRuntime
    ? new ProcessRuntime(
        {
          store: deps.store,
          catalog: deps.catalog,
          // The API-backed configuration (env, volumes, service account) needs to know where the
          // API server listens; without that (tests of the runtime alone) only literal env values.
          configSource: (stateDir) => {
            const access = deps.apiServerAccess;
            if (!access) return literalEnvConfigSource;
            return new ApiContainerConfigSource(
              { storage: deps.storage, store: deps.store, catalog: deps.catalog },
              { ...access, stateDir },
            );
          },
          containerView: containerViewEnv,
          crashLoopBackOff: { ...DEFAULT_NODE_CONFIG, ...options.simulatedNodes }.crashLoopBackOff,
        },
        options.processRuntime,
      )
    : undefined;
  const lifecycle = new NodeLifecycleController(deps.storage, deps.store, deps.catalog, options.nodeLifecycle);
  const scheduler =
    options.scheduler === false || options.controllers === false
      ? undefined
      : new Scheduler(deps.storage, deps.store, deps.catalog, deps.subresources);
  const sim = new SimulatedNodes(deps.storage, deps.store, deps.catalog, options.simulatedNodes, processes);
  if (options.controllers !== false) {
    lifecycle.start();
    scheduler?.start();
    sim.start();
  }
  return {
    nodes: {
      add: (name) => sim.add(name),
      remove: (name) => sim.remove(name),
      setReady: (name, ready) => sim.setReady(name, ready),
      setKubeletRunning: (name, running) => sim.setKubeletRunning(name, running),
      list: () => sim.list(),
      idle: () => sim.idle(),
    },
    scheduler,
    registerNodeAgent: (rc, handler) => sim.registerNodeAgent(rc, handler),
    unregisterNodeAgent: (rc) => sim.unregisterNodeAgent(rc),
    podStreams: new ClusterPodStreams(() => processes),
    async bootstrap() {
      const existing = new Set(sim.list());
      for (let i = 1; i <= (options.nodes ?? 0); i++) {
        if (existing.has(`node-${i}`)) continue;
        try {
          await sim.add(`node-${i}`);
        } catch (e) {
          // Kept storage may already hold a Node of that name that is not ours; leave it be.
          if ((e as { code?: number }).code !== 409) throw e;
        }
      }
    },
    async stopProcesses() {
      await processes?.stop();
    },
    stop() {
      sim.stop();
      scheduler?.stop();
      lifecycle.stop();
    },
  };
}
