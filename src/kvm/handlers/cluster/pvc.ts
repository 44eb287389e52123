// The masters' etcd volumes when `spec.kvm.k8sKVM.storageType` is `persistentVolume`: one claim
// per master, `pvc-master-etcd-<id>-<i>` (i = position in spec.cluster.masters, from 0, as the
// master deployments mount them), 15Gi, ReadWriteOnce, of the configured storage class.
//
// Scale-in deletes the claims of removed masters, but never one a pod still mounts (the VM's etcd
// would lose its disk under it): that one waits for a later loop. A cluster on hostPath storage is
// left alone, so switching storage types can never delete etcd data. On delete the claims go once
// no pod is left in the namespace (until then the handler stops and the finalizer stays).
import {
  PersistentVolumeClaims,
  Pods,
  crudHandler,
  diffByName,
  ignoreAlreadyExists,
  ignoreNotFound,
} from '../../../runtime/index.ts';
import type { KubeObject, ResourceHandler } from '../../../runtime/index.ts';
import { Labels } from '../../api/labels.ts';
import type { KVMConfig } from '../../api/kvmconfig.ts';
import type { KvmDeps } from '../../deps.ts';
import type { ResolvedKvmOptions } from '../../options.ts';
import { clusterNamespace, managedLabels, specProblem } from '../../key.ts';
import { managedSelector } from './configmap.ts';
import { etcdPvcName } from './deployment-spec.ts';

export const ETCD_PVC_SIZE = '15Gi';
/** Recheck this soon when a removed master's claim is still mounted. */
export const PVC_RECHECK_MS = 30_000;

export interface PersistentVolumeClaim extends KubeObject {
  spec?: {
    accessModes?: string[];
    resources?: { requests?: Record<string, string> };
    storageClassName?: string;
  };
}

interface PodVolumes extends KubeObject {
  spec?: { volumes?: { persistentVolumeClaim?: { claimName?: string } }[] };
}

export function usesPersistentVolumes(c: KVMConfig): boolean {
  return c.spec.kvm.k8sKVM?.storageType === 'persistentVolume';
}

export function desiredPvcs(c: KVMConfig, options: Pick<ResolvedKvmOptions, 'storageClass'>): PersistentVolumeClaim[] {
  if (!usesPersistentVolumes(c)) return [];
  return (c.spec.cluster.masters ?? []).map((m, i) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: etcdPvcName(c, i),
      namespace: clusterNamespace(c),
      labels: { ...managedLabels(c), [Labels.app]: 'master', [Labels.node]: m.id },
    },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: ETCD_PVC_SIZE } },
      storageClassName: options.storageClass,
    },
  }));
}

/** Names of the claims the given pods mount. */
export function claimsInUse(pods: readonly PodVolumes[]): Set<string> {
  const names = new Set<string>();
  for (const p of pods)
    for (const v of p.spec?.volumes ?? [])
      if (v.persistentVolumeClaim?.claimName) names.add(v.persistentVolumeClaim.claimName);
  return names;
}

export function pvcHandler(deps: KvmDeps): ResourceHandler<KVMConfig> {
  const pods = async (c: KVMConfig, signal: AbortSignal): Promise<PodVolumes[]> =>
    (await deps.client.list<PodVolumes>(Pods, { namespace: clusterNamespace(c), signal })).items;
  return crudHandler<KVMConfig, PersistentVolumeClaim[]>({
    name: 'pvc',
    async currentState(c, ctx) {
      if (ctx.event === 'update' && !usesPersistentVolumes(c)) {
        ctx.cancelHandler('storage type is not persistentVolume');
        return [];
      }
      const list = await deps.client.list<PersistentVolumeClaim>(PersistentVolumeClaims, {
        namespace: clusterNamespace(c),
        labelSelector: managedSelector(c),
        signal: ctx.signal,
      });
      return list.items;
    },
    async desiredState(c, ctx) {
      if (ctx.event === 'update' && specProblem(c)) {
        ctx.cancelHandler(`invalid spec: ${specProblem(c)}`);
        return [];
      }
      return desiredPvcs(c, deps.options);
    },
    async updatePatch(c, current, desired, ctx) {
      const { create, delete: removed } = diffByName(current, desired, () => false);
      if (removed.length === 0) return { create };
      const mounted = claimsInUse(await pods(c, ctx.signal));
      const del = removed.filter((p) => !mounted.has(p.metadata.name ?? ''));
      if (del.length < removed.length) {
        ctx.log.info({ mounted: [...mounted] }, 'claims of removed masters still mounted; deleted later');
        ctx.requeueAfter(PVC_RECHECK_MS);
      }
      return { create, delete: del };
    },
    async deletePatch(c, current, _desired, ctx) {
      if (current.length === 0) return {};
      const left = (await pods(c, ctx.signal)).length;
      if (left > 0) {
        // The VMs' etcd disks stay until every pod (draining ones too) is gone.
        ctx.cancelHandler(`${left} pod(s) left in namespace ${clusterNamespace(c)}`);
        ctx.keepFinalizer(`etcd claims wait for ${left} pod(s) in namespace ${clusterNamespace(c)}`);
        return {};
      }
      return { delete: current };
    },
    async applyCreate(_c, change, ctx) {
      for (const p of change) {
        await ignoreAlreadyExists(deps.client.create(PersistentVolumeClaims, p, { signal: ctx.signal }));
        ctx.log.info({ pvc: p.metadata.name }, 'etcd claim created');
      }
    },
    async applyDelete(_c, change, ctx) {
      for (const p of change) {
        const name = p.metadata.name as string;
        await ignoreNotFound(
          deps.client.delete(PersistentVolumeClaims, name, p.metadata.namespace, { signal: ctx.signal }),
        );
        ctx.log.info({ pvc: name }, 'etcd claim deleted');
      }
    },
    // Claims are immutable once bound; there is nothing to update.
    applyUpdate: async () => {},
  });
}
