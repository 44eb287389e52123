// The API server's part of a pods/log, exec, attach or portforward request before the kubelet is
// asked (pkg/registry/core/pod/strategy.go: LogLocation, streamLocation, PortForwardLocation):
// the pod, the container it names or the only one it has, and the node it runs on.
import { badRequest } from '../../../apimachinery/errors/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { ResourceDef } from '../../registry/resource.ts';
import type { ObjectStore } from '../../registry/store/index.ts';

/** The subresources served by a pod's node rather than by the store. */
export const NODE_SUBRESOURCES = new Set(['log', 'exec', 'attach', 'portforward']);

export function isNodeSubresource(def: ResourceDef, subresource: string | undefined): boolean {
  return def.group === '' && def.resource === 'pods' && subresource !== undefined && NODE_SUBRESOURCES.has(subresource);
}

interface PodShape {
  metadata?: { name?: string; uid?: string };
  spec?: {
    nodeName?: string;
    containers?: Array<{ name?: string }>;
    initContainers?: Array<{ name?: string }>;
    ephemeralContainers?: Array<{ name?: string }>;
  };
}

/** The pod, or 404 `pods "x" not found`. */
export function getPod(store: ObjectStore, def: ResourceDef, namespace: string, name: string): JsonObject {
  return store.get(def, namespace, name);
}

function names(list: Array<{ name?: string }> | undefined): string[] {
  return (list ?? []).map((c) => c.name ?? '');
}

/** validateContainer: the requested container must exist; without one, the pod must have exactly one. */
export function chooseContainer(pod: JsonObject, requested: string | null): string {
  const p = pod as PodShape;
  const podName = p.metadata?.name ?? '';
  const containers = names(p.spec?.containers);
  if (!requested) {
    if (containers.length === 1) return containers[0];
    if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${podName}`);
    const init = names(p.spec?.initContainers);
    let message = `a container name must be specified for pod ${podName}, choose one of: [${containers.join(' ')}]`;
    if (init.length > 0) message += ` or one of the init containers: [${init.join(' ')}]`;
    throw badRequest(message);
  }
  const all = [...names(p.spec?.initContainers), ...containers, ...names(p.spec?.ephemeralContainers)];
  if (!all.includes(requested)) throw badRequest(`container ${requested} is not valid for pod ${podName}`);
  return requested;
}

export function nodeNameOf(pod: JsonObject): string {
  return (pod as PodShape).spec?.nodeName ?? '';
}

/** exec, attach and portforward need a node to talk to. */
export function requireNode(pod: JsonObject): void {
  if (!nodeNameOf(pod)) {
    throw badRequest(`pod ${(pod as PodShape).metadata?.name ?? ''} does not have a host assigned`);
  }
}
