// The live one-line summary of `peerpods start`: what a person watching the cluster wants to know.
import { isNodeReady } from '../../apimachinery/core/index.ts';
import { Nodes } from '../../runtime/index.ts';
import type { KubeClient, KubeObject } from '../../runtime/index.ts';
import { PeerPodConfigs, PeerPods } from '../api/index.ts';
import type { PeerPodConfig } from '../api/index.ts';
import { CLUSTER_UID_TAG } from '../providers/index.ts';
import type { CloudProvider } from '../providers/index.ts';
import { RUNTIME_CLASS } from './settings.ts';
import { peerPodsInCluster } from './shutdown.ts';
import type { StackProvider } from './stack.ts';

export interface Summary {
  nodes: number;
  nodesReady: number;
  podsRunning: number;
  podsPending: number;
  podsTerminating: number;
  peerPods: number;
  vms: number;
  /** With several providers: the VMs of each, in the stack's order. */
  vmsByProvider?: Array<{ provider: string; vms: number }>;
  /** When a PeerPodConfig sets a warm pool: spares running, and wanted, over every node. */
  pool?: { ready: number; desired: number };
}

interface NodeObject extends KubeObject {
  status?: { conditions?: Array<{ type: string; status: string }> };
}

/** `provider`: the one provider behind kata-remote, or every provider of the stack. */
export async function summarize(
  client: KubeClient,
  provider: CloudProvider | readonly StackProvider[],
  clusterUid: string,
): Promise<Summary> {
  const all = 'listInstances' in provider ? undefined : provider;
  const handles = all ? all.map((p) => p.provider) : [provider as CloudProvider];
  const [nodes, pods, peerPods, vmsOf] = await Promise.all([
    client.listAll<NodeObject>(Nodes),
    peerPodsInCluster(client, all ? all.map((p) => p.binding.runtimeClassName) : RUNTIME_CLASS),
    client.listAll(PeerPods),
    Promise.all(handles.map((h) => h.listInstances({ [CLUSTER_UID_TAG]: clusterUid }))),
  ]);
  const pool = await poolSummary(client);
  const vms = vmsOf.flat();
  const phase = (p: KubeObject) => (p.status as { phase?: string } | undefined)?.phase;
  return {
    nodes: nodes.items.length,
    nodesReady: nodes.items.filter(isNodeReady).length,
    podsRunning: pods.filter((p) => !p.metadata.deletionTimestamp && phase(p) === 'Running').length,
    podsPending: pods.filter((p) => !p.metadata.deletionTimestamp && phase(p) !== 'Running').length,
    podsTerminating: pods.filter((p) => p.metadata.deletionTimestamp).length,
    peerPods: peerPods.items.length,
    vms: vms.length,
    ...(handles.length > 1
      ? { vmsByProvider: handles.map((h, i) => ({ provider: h.name, vms: vmsOf[i].length })) }
      : {}),
    ...(pool ? { pool } : {}),
  };
}

/** Summed from each node's line in the configs' status (the adaptors write them). */
async function poolSummary(client: KubeClient): Promise<Summary['pool']> {
  const configs = (await client.listAll<PeerPodConfig>(PeerPodConfigs)).items.filter((c) => c.spec?.pool);
  if (configs.length === 0) return undefined;
  const lines = configs.flatMap((c) => Object.values(c.status?.pool?.nodes ?? {}));
  return {
    ready: lines.reduce((n, l) => n + (l.ready ?? 0), 0),
    desired: lines.reduce((n, l) => n + (l.desired ?? 0), 0),
  };
}

export function formatSummary(s: Summary): string {
  const terminating = s.podsTerminating ? `, ${s.podsTerminating} terminating` : '';
  return (
    `nodes ${s.nodesReady}/${s.nodes} Ready · peer pods ${s.podsRunning} Running, ${s.podsPending} Pending${terminating}` +
    ` · PeerPods ${s.peerPods} · VMs ${s.vms}` +
    (s.vmsByProvider ? ` (${s.vmsByProvider.map((p) => `${p.provider} ${p.vms}`).join(', ')})` : '') +
    (s.pool ? ` · pool ${s.pool.ready}/${s.pool.desired} ready` : '')
  );
}
