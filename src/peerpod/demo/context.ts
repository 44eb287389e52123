// What the demo steps share: the stack, the pods they made, and small reads of the cluster.
import { Events, Pods, isNotFound } from '../../runtime/index.ts';
import type { KubeClient, KubeObject } from '../../runtime/index.ts';
import { PeerPods } from '../api/index.ts';
import type { PeerPod } from '../api/index.ts';
import { CLUSTER_UID_TAG } from '../providers/index.ts';
import type { Instance } from '../providers/index.ts';
import { until } from '../main/index.ts';
import type { PeerPodsStack } from '../main/index.ts';

export interface DemoContext {
  client: KubeClient;
  stack: PeerPodsStack;
  /** QEMU processes are looked for under it. */
  stateDir: string;
  nodes: string[];
  namespace: string;
  orphanGraceMs: number;
  /** Step deadline for things that take a VM start or a sweep. */
  timeoutMs: number;
  /** Pods created so far, by name. */
  pods: Map<string, { cpu: string; memory: string }>;
  /** The pod the limit left Pending, for the step that frees a slot. */
  pendingPod?: string;
}

export interface PodView extends KubeObject {
  spec: {
    nodeName?: string;
    containers: Array<{ resources?: { requests?: Record<string, string>; limits?: Record<string, string> } }>;
  };
  status?: { phase?: string; podIP?: string };
}

export async function getPod(d: DemoContext, name: string): Promise<PodView | undefined> {
  try {
    return await d.client.get<PodView>(Pods, name, d.namespace);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export async function podsByName(d: DemoContext): Promise<Map<string, PodView>> {
  const { items } = await d.client.list<PodView>(Pods, { namespace: d.namespace });
  return new Map(items.filter((p) => d.pods.has(p.metadata.name as string)).map((p) => [p.metadata.name as string, p]));
}

export async function peerPodsOf(d: DemoContext, podUid: string): Promise<PeerPod[]> {
  const { items } = await d.client.list<PeerPod>(PeerPods, { namespace: d.namespace });
  return items.filter((pp) => pp.metadata.ownerReferences?.some((r) => r.uid === podUid));
}

export async function clusterVms(d: DemoContext): Promise<Instance[]> {
  return d.stack.provider.listInstances({ [CLUSTER_UID_TAG]: d.stack.clusterUid });
}

export async function eventsOf(d: DemoContext, obj: KubeObject): Promise<Array<{ reason?: string; message?: string }>> {
  const { items } = await d.client.list<
    KubeObject & { reason?: string; message?: string; involvedObject?: { uid?: string } }
  >(Events, { namespace: obj.metadata.namespace });
  return items.filter((e) => e.involvedObject?.uid === obj.metadata.uid);
}

export function waitFor(
  d: DemoContext,
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = d.timeoutMs,
): Promise<void> {
  return until(what, check, timeoutMs);
}

export function running(p: PodView | undefined): boolean {
  return !!p && !p.metadata.deletionTimestamp && p.status?.phase === 'Running';
}
