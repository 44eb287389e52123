// Fixtures of the deleter and terminator tests: node pods and workload Nodes as plain objects (for
// the table tests) and as live objects on two embedded control planes, one playing the management
// cluster and one the workload cluster.
import { Namespaces, Nodes, Pods } from '../../../../src/runtime/index.ts';
import type { KubeClient } from '../../../../src/runtime/index.ts';
import { Labels, POD_WATCHER } from '../../../../src/kvm/api/index.ts';
import type { KVMConfig } from '../../../../src/kvm/api/index.ts';
import type { KvmDeps } from '../../../../src/kvm/deps.ts';
import type { KvmOperatorOptions } from '../../../../src/kvm/options.ts';
import type { Condition, NodePod, WorkloadNode } from '../../../../src/kvm/handlers/deleter/cluster-nodes.ts';
import { clientOf, fixedWorkloadClusters, testDeps } from '../../helpers.ts';
import { eventually, startTestCluster } from '../../../helpers/control-plane.ts';
import type { TestCluster } from '../../../helpers/control-plane.ts';

export const ID = 'abc12';

/** A Deployment pod's name: `<role>-<nodeID>-<replicaset hash>-<suffix>`. */
export function podName(role: 'master' | 'worker', nodeId: string, suffix = 'x7k2p'): string {
  return `${role}-${nodeId}-5d8f7c9b4-${suffix}`;
}

export function nodePod(
  name: string,
  opts: { ready?: boolean; deleting?: boolean; role?: 'master' | 'worker' } = {},
): NodePod {
  const role = opts.role ?? (name.startsWith('master-') ? 'master' : 'worker');
  return {
    metadata: {
      name,
      namespace: ID,
      uid: `uid-${name}`,
      labels: { [Labels.cluster]: ID, [Labels.podWatcher]: POD_WATCHER, [Labels.app]: role },
      ...(opts.deleting ? { deletionTimestamp: '2021-02-16T10:00:00Z' } : {}),
    },
    status: { conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }] },
  };
}

export interface NodeOpts {
  /** The Ready condition's status; 'none' leaves the condition out. Default 'True'. */
  ready?: 'True' | 'False' | 'Unknown' | 'none';
  ips?: string[];
  externalIps?: string[];
  /** Ready's lastTransitionTime. */
  since?: string;
  heartbeat?: string;
  created?: string;
  labels?: Record<string, string>;
}

export function readyCondition(opts: NodeOpts): Condition[] {
  if (opts.ready === 'none') return [];
  const c: Condition = { type: 'Ready', status: opts.ready ?? 'True', reason: 'Test' };
  if (opts.since) c.lastTransitionTime = opts.since;
  if (opts.heartbeat) c.lastHeartbeatTime = opts.heartbeat;
  return [c];
}

export function workloadNode(name: string, opts: NodeOpts = {}): WorkloadNode {
  return {
    metadata: {
      name,
      uid: `uid-${name}`,
      ...(opts.created ? { creationTimestamp: opts.created } : {}),
      ...(opts.labels ? { labels: opts.labels } : {}),
    },
    status: {
      conditions: readyCondition(opts),
      addresses: [
        ...(opts.ips ?? []).map((address) => ({ type: 'InternalIP', address })),
        ...(opts.externalIps ?? []).map((address) => ({ type: 'ExternalIP', address })),
        { type: 'Hostname', address: name },
      ],
    },
  };
}

export interface RecordedEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  on: string;
}

export function recordingEvents(): { events: RecordedEvent[]; recorder: KvmDeps['events'] } {
  const events: RecordedEvent[] = [];
  return {
    events,
    recorder: {
      normal: (obj, reason, message) =>
        void events.push({ type: 'Normal', reason, message, on: obj.metadata.name ?? '' }),
      warning: (obj, reason, message) =>
        void events.push({ type: 'Warning', reason, message, on: obj.metadata.name ?? '' }),
    },
  };
}

/** A management cluster (no scheduler: node pods stay where the test puts them) and a workload cluster. */
export interface TwoClusters {
  mc: TestCluster;
  wc: TestCluster;
  mcClient: KubeClient;
  wcClient: KubeClient;
  stop(): Promise<void>;
}

export async function startTwoClusters(): Promise<TwoClusters> {
  const [mc, wc] = await Promise.all([startTestCluster({ scheduler: false }), startTestCluster()]);
  const mcClient = clientOf(mc);
  const wcClient = clientOf(wc);
  return {
    mc,
    wc,
    mcClient,
    wcClient,
    async stop() {
      mcClient.close();
      wcClient.close();
      await Promise.all([mc.stop(), wc.stop()]);
    },
  };
}

/** Deps whose workload cluster `ID` is `wcClient`, with events recorded in memory. */
export function depsFor(
  clusters: TwoClusters,
  options: KvmOperatorOptions = {},
): { deps: KvmDeps; events: RecordedEvent[] } {
  const { events, recorder } = recordingEvents();
  const deps = testDeps(clusters.mcClient, {
    workload: fixedWorkloadClusters({ [ID]: clusters.wcClient }),
    options,
  });
  return { deps: { ...deps, events: recorder }, events };
}

export async function createNamespace(client: KubeClient, name: string): Promise<void> {
  await client.create(Namespaces, { metadata: { name } });
}

/** A node pod in the management cluster, its status written as a kubelet would. */
export async function createNodePod(
  client: KubeClient,
  c: KVMConfig,
  name: string,
  opts: { ready?: boolean; finalizer?: string } = {},
): Promise<NodePod> {
  const template = nodePod(name, { ready: opts.ready });
  const created = await client.create<NodePod>(Pods, {
    metadata: {
      name,
      namespace: c.spec.cluster.id,
      labels: { ...template.metadata.labels, [Labels.cluster]: c.spec.cluster.id },
      ...(opts.finalizer ? { finalizers: [opts.finalizer] } : {}),
    },
    spec: { containers: [{ name: 'k8s-kvm', image: 'quay.io/giantswarm/k8s-kvm:0.4.1' }] },
  });
  return client.updateStatus<NodePod>(Pods, { ...created, status: { phase: 'Running', ...template.status } });
}

/**
 * A plain Node (not adopted by the simulated kubelets) with the status the test wants. Waits
 * until the node lifecycle controller has added its condition taints, so later writes by the
 * handlers do not race it.
 */
export async function createWorkloadNode(client: KubeClient, name: string, opts: NodeOpts = {}): Promise<WorkloadNode> {
  const template = workloadNode(name, opts);
  const created = await client.create<WorkloadNode>(Nodes, {
    metadata: { name, ...(opts.labels ? { labels: opts.labels } : {}) },
    spec: {},
  });
  await client.updateStatus(Nodes, { ...created, status: template.status });
  const taint =
    opts.ready === 'False'
      ? 'node.kubernetes.io/not-ready'
      : opts.ready === 'Unknown'
        ? 'node.kubernetes.io/unreachable'
        : undefined;
  const settled = await eventually(
    async () => {
      const got = await client.get<WorkloadNode & { spec?: { taints?: { key: string }[] } }>(Nodes, name);
      if (taint && !(got.spec?.taints ?? []).some((t) => t.key === taint)) return undefined;
      return got;
    },
    { what: `node ${name} settled` },
  );
  if (!settled) throw new Error(`node ${name} vanished`);
  return settled;
}

export async function nodeNames(client: KubeClient): Promise<string[]> {
  return (await client.list(Nodes)).items.map((n) => n.metadata.name ?? '').sort();
}

export async function podNames(client: KubeClient, namespace: string): Promise<string[]> {
  return (await client.list(Pods, { namespace })).items.map((n) => n.metadata.name ?? '').sort();
}
