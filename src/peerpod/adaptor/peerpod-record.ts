// The PeerPod that records a pod's VM: its name, its shape, and which of a pod's PeerPods counts.
//
// Upstream names it `<pod>-resource-<rand5>`. We derive the five characters from the pod UID, so a
// retried create (after a crash, or on a cache that has not seen our write yet) meets AlreadyExists
// instead of making a second PeerPod; PeerPods named by upstream are still found, by owner UID.
import { createHash } from 'node:crypto';
import { OWNER_UID_INDEX, getControllerOf } from '../../runtime/index.ts';
import type { KubeObject } from '../../runtime/index.ts';
import { API_VERSION, PEERPOD_FINALIZER } from '../api/index.ts';
import type { PeerPod } from '../api/index.ts';
import { NODE_ANNOTATION } from './options.ts';
import { creationAnnotations } from './peerpod-annotations.ts';
import { nodeLabels } from './node-peerpods.ts';
import type { PeerPodCache } from './node-peerpods.ts';

const MAX_NAME = 253;
const SUFFIX = '-resource-';

export function peerPodNameFor(pod: KubeObject): string {
  // Base 36 of the hash, as upstream's suffix alphabet is [a-z0-9].
  const digest = BigInt(`0x${createHash('sha256').update(String(pod.metadata.uid)).digest('hex').slice(0, 16)}`);
  const rand = digest.toString(36).padStart(5, '0').slice(-5);
  const podName = String(pod.metadata.name).slice(0, MAX_NAME - SUFFIX.length - rand.length);
  return `${podName}${SUFFIX}${rand}`;
}

/** What upstream's OwnPeerPod writes, plus our annotations (node, VM size); the instance ID comes after the VM. */
export function newPeerPod(pod: KubeObject, cloudProvider: string, nodeName: string): PeerPod {
  return {
    apiVersion: API_VERSION,
    kind: 'PeerPod',
    metadata: {
      name: peerPodNameFor(pod),
      namespace: pod.metadata.namespace,
      ...(Object.keys(nodeLabels(nodeName)).length > 0 ? { labels: nodeLabels(nodeName) } : {}),
      annotations: creationAnnotations(nodeName, pod),
      finalizers: [PEERPOD_FINALIZER],
      ownerReferences: [
        {
          apiVersion: 'v1',
          kind: 'Pod',
          name: pod.metadata.name as string,
          uid: pod.metadata.uid as string,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: { cloudProvider },
  };
}

/** PeerPods whose controller (or, for hand-made ones, first) owner is this pod. */
export function peerPodsOf(peerPods: Pick<PeerPodCache, 'byIndex'>, podUid: string): PeerPod[] {
  return peerPods.byIndex(OWNER_UID_INDEX, podUid).filter((pp) => ownerUidOf(pp) === podUid);
}

export function ownerUidOf(pp: KubeObject): string | undefined {
  return (getControllerOf(pp) ?? pp.metadata.ownerReferences?.[0])?.uid;
}

/**
 * The PeerPod that speaks for the pod: the newest live one, because the PeerPod controller deletes
 * the older duplicates (upstream #1510), and with them the VMs they name.
 */
export function currentPeerPod(owned: PeerPod[]): PeerPod | undefined {
  return owned
    .filter((pp) => !pp.metadata.deletionTimestamp)
    .sort((a, b) => String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)))[0];
}

export function isOnNode(pp: KubeObject, nodeName: string): boolean {
  return pp.metadata.annotations?.[NODE_ANNOTATION] === nodeName;
}
