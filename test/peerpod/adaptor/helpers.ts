// Shared by the adaptor suites: an embedded control plane with two simulated nodes whose kubelets
// leave kata-remote pods to the adaptor, the PeerPod CRD and the RuntimeClass, and adaptors on it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Registry } from 'prom-client';
import {
  Events,
  KubeClient,
  Namespaces,
  Nodes,
  Pods,
  RuntimeClasses,
  installCrds,
  silentLogger,
} from '../../../src/runtime/index.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import { PeerPods, allCrds } from '../../../src/peerpod/api/index.ts';
import type { PeerPod } from '../../../src/peerpod/api/index.ts';
import { startAdaptor } from '../../../src/peerpod/adaptor/index.ts';
import type { RunningAdaptor, StartAdaptorOptions } from '../../../src/peerpod/adaptor/index.ts';
import { cmdlineArgs, findPidsWithArg } from '../../../src/peerpod/providers/procfs.ts';
import { eventually as poll, startTestCluster } from '../../helpers/control-plane.ts';
import type { TestCluster } from '../../helpers/control-plane.ts';
import { kubeconfigAs } from '../../helpers/generated-rbac.ts';

export const RUNTIME_CLASS = 'kata-remote';
export const NODES = ['node-1', 'node-2'];
export const SETTINGS_NS = 'peerpods-system';

type Falsy = undefined | null | false | 0 | '';

export function eventually<T>(
  check: () => T | Falsy | Promise<T | Falsy>,
  opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  return poll(check, opts) as Promise<T>;
}

export interface Env {
  cluster: TestCluster;
  client: KubeClient;
  stop(): Promise<void>;
}

export async function startEnv(): Promise<Env> {
  const cluster = await startTestCluster({ nodes: NODES.length });
  // The test plays the part of the code that starts both the control plane and the adaptors.
  cluster.internals.registerNodeAgent(RUNTIME_CLASS);
  const client = KubeClient.fromKubeconfigString(cluster.kubeconfig, { metricsRegistry: null, logger: silentLogger() });
  await installCrds(client, allCrds(), { fieldManager: 'peerpods' });
  await client.create(RuntimeClasses, { metadata: { name: RUNTIME_CLASS }, handler: RUNTIME_CLASS });
  await client.create(Namespaces, { metadata: { name: SETTINGS_NS } });
  await eventually(async () => (await client.list(PeerPods, { namespace: 'default' })) !== undefined, {
    what: 'the PeerPod CRD to be served',
  });
  return {
    cluster,
    client,
    async stop() {
      client.close();
      await cluster.stop();
    },
  };
}

export interface Adaptors {
  byNode: Map<string, RunningAdaptor>;
  registries: Map<string, Registry>;
  stop(): Promise<void>;
}

/**
 * One adaptor per node, each on its own manager, as separate node processes would run; with
 * `asUser`, acting as that identity (impersonated) instead of the cluster's admin.
 */
export async function startAdaptors(
  env: Env,
  opts: Omit<StartAdaptorOptions, 'nodeName'> = {},
  { nodes = NODES, asUser }: { nodes?: string[]; asUser?: string } = {},
): Promise<Adaptors> {
  const byNode = new Map<string, RunningAdaptor>();
  const registries = new Map<string, Registry>();
  const kubeconfig = asUser ? kubeconfigAs(env.cluster.kubeconfig, asUser) : env.cluster.kubeconfig;
  for (const nodeName of nodes) {
    const registry = new Registry();
    const client = KubeClient.fromKubeconfigString(kubeconfig, {
      metricsRegistry: registry,
      logger: silentLogger(),
    });
    const running = await startAdaptor({
      namespace: SETTINGS_NS,
      ...opts,
      nodeName,
      client,
      logger: silentLogger(),
      manager: { server: false, handleSignals: false, metricsRegistry: registry, ...opts.manager },
    });
    void running.done.finally(() => client.close());
    byNode.set(nodeName, running);
    registries.set(nodeName, registry);
  }
  return {
    byNode,
    registries,
    async stop() {
      await Promise.all([...byNode.values()].map((a) => a.stop()));
    },
  };
}

let seq = 0;

export interface PodOptions {
  name?: string;
  runtimeClassName?: string | null;
  annotations?: Record<string, string>;
  nodeName?: string;
}

export async function createPod(env: Env, o: PodOptions = {}): Promise<KubeObject> {
  const rc = o.runtimeClassName === undefined ? RUNTIME_CLASS : o.runtimeClassName;
  return env.client.create(Pods, {
    metadata: { name: o.name ?? `peer-${++seq}`, namespace: 'default', annotations: o.annotations ?? {} },
    spec: {
      ...(rc ? { runtimeClassName: rc } : {}),
      ...(o.nodeName ? { nodeName: o.nodeName } : {}),
      containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.9' }],
    },
  });
}

export interface PodView extends KubeObject {
  spec: { nodeName?: string };
  status?: {
    phase?: string;
    podIP?: string;
    hostIP?: string;
    conditions?: Array<{ type: string; status: string }>;
    containerStatuses?: Array<{ name: string; ready: boolean; state?: { running?: unknown } }>;
  };
}

export async function getPod(env: Env, pod: KubeObject): Promise<PodView | undefined> {
  try {
    const cur = await env.client.get<PodView>(Pods, pod.metadata.name as string, pod.metadata.namespace);
    return cur.metadata.uid === pod.metadata.uid ? cur : undefined;
  } catch (err) {
    if ((err as { code?: number }).code === 404) return undefined;
    throw err;
  }
}

export function isReady(pod: PodView | undefined): boolean {
  return (
    pod?.status?.phase === 'Running' &&
    !!pod.status.podIP &&
    (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')
  );
}

export async function peerPodsOf(env: Env, pod: KubeObject): Promise<PeerPod[]> {
  const list = await env.client.list<PeerPod>(PeerPods, { namespace: pod.metadata.namespace });
  return list.items.filter((pp) => pp.metadata.ownerReferences?.some((r) => r.uid === pod.metadata.uid));
}

export async function eventsFor(
  env: Env,
  obj: KubeObject,
): Promise<Array<{ reason?: string; type?: string; message?: string }>> {
  const list = await env.client.list<
    KubeObject & { reason?: string; type?: string; message?: string; involvedObject?: { uid?: string } }
  >(Events, { namespace: obj.metadata.namespace ?? 'default' });
  return list.items.filter((e) => e.involvedObject?.uid === obj.metadata.uid);
}

export async function nodeInternalIp(env: Env, node: string): Promise<string> {
  const n = await env.client.get<KubeObject & { status?: { addresses?: Array<{ type: string; address: string }> } }>(
    Nodes,
    node,
  );
  return n.status?.addresses?.find((a) => a.type === 'InternalIP')?.address ?? '';
}

export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(tmpdir(), `${prefix}-`));
}

/** Live QEMU processes whose command line mentions `dir` (their QMP socket lives there), with their args. */
export async function qemuUnder(dir: string): Promise<Array<{ pid: number; args: string[] }>> {
  const out: Array<{ pid: number; args: string[] }> = [];
  for (const pid of await findPidsWithArg('-qmp')) {
    const args = (await cmdlineArgs(pid)) ?? [];
    if (args.some((a) => a.includes(dir))) out.push({ pid, args });
  }
  return out;
}

export function argAfter(args: string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

/** Kills whatever QEMU a suite left behind under `dir`, then removes it. */
export async function cleanupQemu(dir: string): Promise<void> {
  for (const { pid } of await qemuUnder(dir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await eventually(async () => (await qemuUnder(dir)).length === 0, { timeoutMs: 5000, what: 'QEMU to exit' });
  await rm(dir, { recursive: true, force: true });
}

export async function metricValue(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const m = registry.getSingleMetric(name);
  if (!m) return 0;
  const data = await m.get();
  let sum = 0;
  for (const v of data.values) {
    if (Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want)) sum += v.value;
  }
  return sum;
}
