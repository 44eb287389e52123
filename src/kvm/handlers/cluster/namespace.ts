// The cluster's namespace, named after the cluster ID, holding every per-cluster object.
// Created once (no update). On teardown it is deleted last of all: only when no pod, deployment or
// PVC of ours is left in it, because deleting a namespace kills its pods without waiting for their
// drain (the shutdown-deferrer would lose its service account and RBAC mid-drain, upstream #1076).
import {
  Deployments,
  Namespaces,
  PersistentVolumeClaims,
  Pods,
  ignoreAlreadyExists,
  isNotFound,
} from '../../../runtime/index.ts';
import type { HandlerContext, KubeClient, KubeObject, ResourceHandler } from '../../../runtime/index.ts';
import { Labels, MANAGED_BY } from '../../api/labels.ts';
import type { KVMConfig } from '../../api/kvmconfig.ts';
import type { KvmDeps } from '../../deps.ts';
import { clusterNamespace, managedLabels } from '../../key.ts';

export function desiredNamespace(c: KVMConfig): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name: clusterNamespace(c), labels: managedLabels(c) } };
}

async function getNamespace(client: KubeClient, name: string): Promise<KubeObject | undefined> {
  try {
    return await client.get<KubeObject>(Namespaces, name);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** How many pods (draining ones included) are left in `namespace`. */
export async function podsInNamespace(client: KubeClient, namespace: string, signal?: AbortSignal): Promise<number> {
  const pods = await client.list(Pods, { namespace, ...(signal ? { signal } : {}) });
  return pods.items.length;
}

/**
 * What still has to go before the namespace may be deleted: any pod (node pods drain for minutes),
 * and our deployments and PVCs (later handlers delete them; the PVC handler also releases their
 * volumes, which a namespace deletion would not do). Empty when nothing is left.
 */
export async function namespaceLeftovers(
  client: KubeClient,
  namespace: string,
  signal?: AbortSignal,
): Promise<string[]> {
  const managed = { namespace, labelSelector: `${Labels.managedBy}=${MANAGED_BY}`, ...(signal ? { signal } : {}) };
  const [pods, deployments, pvcs] = await Promise.all([
    podsInNamespace(client, namespace, signal),
    client.list(Deployments, managed).then((l) => l.items.length),
    client.list(PersistentVolumeClaims, managed).then((l) => l.items.length),
  ]);
  const left: string[] = [];
  if (pods) left.push(`${pods} pod(s)`);
  if (deployments) left.push(`${deployments} deployment(s)`);
  if (pvcs) left.push(`${pvcs} PVC(s)`);
  return left;
}

export function namespaceHandler(deps: KvmDeps): ResourceHandler<KVMConfig> {
  return {
    name: 'namespace',
    async ensureCreated(c: KVMConfig, ctx: HandlerContext): Promise<void> {
      const name = clusterNamespace(c);
      const current = await getNamespace(deps.client, name);
      if (current?.metadata.deletionTimestamp) {
        // Someone deleted it under a live cluster: nothing can be created in it until it is gone,
        // so stop here and recreate it on a later loop rather than fail every following handler.
        ctx.cancelReconciliation(`namespace ${name} is terminating; it is recreated once gone`);
        return;
      }
      if (current) return;
      const created = await ignoreAlreadyExists(
        deps.client.create(Namespaces, desiredNamespace(c), { signal: ctx.signal }),
      );
      if (created) ctx.log.info({ namespace: name }, 'namespace created');
    },
    async ensureDeleted(c: KVMConfig, ctx: HandlerContext): Promise<void> {
      const name = clusterNamespace(c);
      const current = await getNamespace(deps.client, name);
      if (!current) return;
      if (current.metadata.deletionTimestamp) {
        ctx.cancelHandler(`namespace ${name} is terminating`);
        ctx.keepFinalizer(`namespace ${name} is terminating`);
        return;
      }
      const left = await namespaceLeftovers(deps.client, name, ctx.signal);
      if (left.length > 0) {
        // Only this handler waits: the later handlers are the ones deleting what is left.
        const reason = `namespace ${name} still holds ${left.join(', ')}`;
        ctx.cancelHandler(reason);
        ctx.keepFinalizer(reason);
        return;
      }
      try {
        await deps.client.delete(Namespaces, name, undefined, { signal: ctx.signal });
      } catch (e) {
        if (!isNotFound(e)) throw e;
        return;
      }
      ctx.log.info({ namespace: name }, 'namespace deleted');
      // Everything after this handler lives in the namespace; the next loop sees it terminating or gone.
      ctx.cancelReconciliation(`namespace ${name} deleted`);
      ctx.keepFinalizer(`namespace ${name} is being deleted`);
    },
  };
}
