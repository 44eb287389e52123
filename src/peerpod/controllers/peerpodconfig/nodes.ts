// The extended resource on Node status, and the annotation recording which PeerPodConfig put it
// there. The annotation is what lets us take the resource off nodes that left the selector (or on
// delete) without touching nodes another PeerPodConfig — or a per-node adaptor — manages.
import { Nodes } from '../../../runtime/index.ts';
import type { KubeObject } from '../../../runtime/index.ts';
import type { HelperClient } from '../../../runtime/index.ts';

export const OWNER_ANNOTATION = 'peerpodconfig.confidentialcontainers.org/owner';

export interface NodeObject extends KubeObject {
  status?: { capacity?: Record<string, string>; allocatable?: Record<string, string> };
}

export function ownerKey(cfg: KubeObject): string {
  return `${cfg.metadata.namespace}/${cfg.metadata.name}`;
}

/** `claim`: the annotation of the resource (binding.ts names one per resource). */
export function ownerOf(node: KubeObject, claim = OWNER_ANNOTATION): string | undefined {
  return node.metadata.annotations?.[claim];
}

/** Claims the node and sets `resource` to `count` in capacity and allocatable; writes only what differs. */
export async function advertise(
  client: HelperClient,
  node: NodeObject,
  resource: string,
  count: number,
  owner: string,
  signal: AbortSignal,
  claim = OWNER_ANNOTATION,
): Promise<boolean> {
  const name = node.metadata.name as string;
  let wrote = false;
  if (ownerOf(node, claim) !== owner) {
    // Claim first: if we crash after the status write, the next reconcile still knows the node is ours.
    await client.patch(Nodes, name, undefined, { metadata: { annotations: { [claim]: owner } } }, 'merge', {
      signal,
    });
    wrote = true;
  }
  const value = String(count);
  const fields = (['capacity', 'allocatable'] as const).filter((f) => node.status?.[f]?.[resource] !== value);
  if (fields.length > 0) {
    // A merge patch adds the key beside whatever the kubelet reports, even when our cached copy
    // predates its registration (a JSON patch `add` of the whole list would replace cpu, memory and pods).
    const status = Object.fromEntries(fields.map((f) => [f, { [resource]: value }]));
    await client.patch(Nodes, name, undefined, { status }, 'merge', { subresource: 'status', signal });
    wrote = true;
  }
  return wrote;
}

/** Takes `resource` off the node and drops our claim. */
export async function withdraw(
  client: HelperClient,
  node: NodeObject,
  resource: string,
  signal: AbortSignal,
  claim = OWNER_ANNOTATION,
): Promise<void> {
  const name = node.metadata.name as string;
  const fields = (['capacity', 'allocatable'] as const).filter((f) => node.status?.[f]?.[resource] !== undefined);
  if (fields.length > 0) {
    // A merge patch with null takes out our key only, and is a no-op where a newer status lacks it
    // (a JSON patch `remove` of a key the kubelet's re-registration dropped would fail).
    const status = Object.fromEntries(fields.map((f) => [f, { [resource]: null }]));
    await client.patch(Nodes, name, undefined, { status }, 'merge', { subresource: 'status', signal });
  }
  if (ownerOf(node, claim) !== undefined) {
    await client.patch(Nodes, name, undefined, { metadata: { annotations: { [claim]: null } } }, 'merge', {
      signal,
    });
  }
}
