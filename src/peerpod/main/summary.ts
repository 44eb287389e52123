// The live one-line summary of `peerpods start`: what a person watching the cluster wants to know.
import { isNodeReady } from '../../apimachinery/core/index.ts';
import { Nodes } from '../../runtime/index.ts';
import type { KubeClient, KubeObject } from '../../runtime/index.ts';
import { PeerPods } from '../api/index.ts';
import { CLUSTER_UID_TAG } from '../providers/index.ts';
import type { CloudProvider } from '../providers/index.ts';
import { RUNTIME_CLASS } from './settings.ts';
import { peerPodsInCluster } from './shutdown.ts';

export interface Summary {
  nodes: number;
  nodesReady: number;
  podsRunning: number;
  podsPending: number;
  podsTerminating: number;
  peerPods: number;
  vms: number;
}

interface NodeObject extends KubeObject {
  status?: { conditions?: Array<{ type: string; status: string }> };
}

export async function summarize(client: KubeClient, provider: CloudProvider, clusterUid: string): Promise<Summary> {
  const [nodes, pods, peerPods, vms] = await Promise.all([
    client.listAll<NodeObject>(Nodes),
    peerPodsInCluster(client, RUNTIME_CLASS),
    client.listAll(PeerPods),
    provider.listInstances({ [CLUSTER_UID_TAG]: clusterUid }),
  ]);
  const phase = (p: KubeObject) => (p.status as { phase?: string } | undefined)?.phase;
  return {
    nodes: nodes.items.length,
    nodesReady: nodes.items.filter(isNodeReady).length,
    podsRunning: pods.filter((p) => !p.metadata.deletionTimestamp && phase(p) === 'Running').length,
    podsPending: pods.filter((p) => !p.metadata.deletionTimestamp && phase(p) !== 'Running').length,
    podsTerminating: pods.filter((p) => p.metadata.deletionTimestamp).length,
    peerPods: peerPods.items.length,
    vms: vms.length,
  };
}

export function formatSummary(s: Summary): string {
  const terminating = s.podsTerminating ? `, ${s.podsTerminating} terminating` : '';
  return (
    `nodes ${s.nodesReady}/${s.nodes} Ready · peer pods ${s.podsRunning} Running, ${s.podsPending} Pending${terminating}` +
    ` · PeerPods ${s.peerPods} · VMs ${s.vms}`
  );
}
