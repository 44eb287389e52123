// One ConfigMap per node, `<role>-<id>-<nodeID>` in the cluster's namespace, whose `user_data` is
// the VM's ignition (ignition.ts); the node pod mounts it as the VM's cloud config.
//
// Updated only when the data or our labels differ. Upstream compared the namespace too, which its desired
// objects lacked, and so rewrote every config map on every loop; we compare just what we set.
// Scale-in deletes the config maps of removed nodes. Skipped on delete: the namespace goes last,
// and takes them with it.
import { ConfigMaps, crudHandler, diffByName, ignoreAlreadyExists, ignoreNotFound } from '../../../runtime/index.ts';
import type { KubeObject, ResourceHandler } from '../../../runtime/index.ts';
import { Labels, MANAGED_BY } from '../../api/labels.ts';
import type { KVMConfig } from '../../api/kvmconfig.ts';
import type { Release } from '../../api/release.ts';
import type { KvmDeps } from '../../deps.ts';
import type { ResolvedKvmOptions } from '../../options.ts';
import { clusterId, clusterNamespace, clusterNodes, configMapName, managedLabels } from '../../key.ts';
import { renderUserData } from './ignition.ts';
import { clusterRelease, nodesReady } from './prerequisites.ts';

export const USER_DATA_KEY = 'user_data';

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

/** Selects the objects of one cluster that this operator made. */
export function managedSelector(c: KVMConfig): string {
  return `${Labels.managedBy}=${MANAGED_BY},${Labels.cluster}=${clusterId(c)}`;
}

/** The config maps of every node that has a node index (the others are skipped). */
export function desiredConfigMaps(
  c: KVMConfig,
  release: Release,
  options: Pick<ResolvedKvmOptions, 'version' | 'dnsServers' | 'ntpServers'>,
): ConfigMap[] {
  const indexes = c.status?.kvm?.nodeIndexes ?? {};
  const out: ConfigMap[] = [];
  for (const n of clusterNodes(c)) {
    const nodeIndex = indexes[n.id];
    if (nodeIndex === undefined) continue;
    const userData = renderUserData({ cluster: c, role: n.role, nodeId: n.id, nodeIndex, release, options });
    out.push({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: configMapName(n.role, c, n.id), namespace: clusterNamespace(c), labels: managedLabels(c) },
      data: { [USER_DATA_KEY]: userData },
    });
  }
  return out;
}

function sameRecord(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  if (ka.length !== Object.keys(b ?? {}).length) return false;
  return ka.every((k) => b?.[k] === a?.[k]);
}

/**
 * True when the stored config map's data differ, or one of our labels is missing or different.
 * Nothing else counts: not the namespace or server-set metadata, nor labels others added.
 */
export function isConfigMapModified(current: ConfigMap, desired: ConfigMap): boolean {
  const have = current.metadata.labels ?? {};
  const labelsOk = Object.entries(desired.metadata.labels ?? {}).every(([k, v]) => have[k] === v);
  return !labelsOk || !sameRecord(current.data, desired.data);
}

/** The object to write for an update: the stored one (its resourceVersion too) with our data and labels. */
export function configMapUpdate(current: ConfigMap, desired: ConfigMap): ConfigMap {
  const labels = { ...current.metadata.labels, ...desired.metadata.labels };
  return { ...current, metadata: { ...current.metadata, labels }, data: desired.data };
}

export function configMapHandler(deps: KvmDeps): ResourceHandler<KVMConfig> {
  const handler = crudHandler<KVMConfig, ConfigMap[]>({
    name: 'configmap',
    async currentState(c, ctx) {
      const list = await deps.client.list<ConfigMap>(ConfigMaps, {
        namespace: clusterNamespace(c),
        labelSelector: managedSelector(c),
        signal: ctx.signal,
      });
      return list.items;
    },
    async desiredState(c, ctx) {
      if (!nodesReady(c, ctx)) return [];
      return desiredConfigMaps(c, clusterRelease(deps, c), deps.options);
    },
    updatePatch(_c, current, desired) {
      const patch = diffByName(current, desired, isConfigMapModified);
      const byName = new Map(current.map((cm) => [cm.metadata.name, cm]));
      const update = patch.update.map((d) => configMapUpdate(byName.get(d.metadata.name) as ConfigMap, d));
      return { ...patch, update };
    },
    deletePatch: () => ({}),
    async applyCreate(_c, change, ctx) {
      for (const cm of change) {
        await ignoreAlreadyExists(deps.client.create(ConfigMaps, cm, { signal: ctx.signal }));
        ctx.log.info({ configMap: cm.metadata.name }, 'config map created');
      }
    },
    async applyDelete(_c, change, ctx) {
      for (const cm of change) {
        const ns = cm.metadata.namespace;
        await ignoreNotFound(deps.client.delete(ConfigMaps, cm.metadata.name as string, ns, { signal: ctx.signal }));
        ctx.log.info({ configMap: cm.metadata.name }, 'config map of a removed node deleted');
      }
    },
    async applyUpdate(_c, change, ctx) {
      // The stored resourceVersion goes along: a concurrent change fails with Conflict, and the
      // controller retries with fresh state rather than overwrite it blindly.
      for (const cm of change) {
        await deps.client.update(ConfigMaps, cm, { signal: ctx.signal });
        ctx.log.info({ configMap: cm.metadata.name }, 'config map updated');
      }
    },
  });
  // Nothing to do on delete (the namespace takes them); in particular no Release lookup, which
  // would fail the teardown of a cluster whose Release is already gone.
  return { ...handler, ensureDeleted: async () => {} };
}
