// The warm pool's behaviour, for the adaptor's pool rules (its Role in the operators' namespace):
// the PeerPodConfig's pool is read (peerpodconfigs list/watch), each node's line written
// (peerpodconfigs/status patch), a spare claimed by an update under its resourceVersion and the
// claimed record, then every spare, deleted (peerpods update, delete).
import { Pods } from '../../../../src/runtime/index.ts';
import type { KubeObject } from '../../../../src/runtime/index.ts';
import { POOL_CLAIMED_FROM_ANNOTATION, POOL_LABEL, PeerPodConfigs, PeerPods } from '../../../../src/peerpod/index.ts';
import type { PeerPod, PeerPodConfig } from '../../../../src/peerpod/index.ts';
import { waitFor } from '../../../helpers/wait.ts';
import type { Probe } from './probes.ts';

let seq = 0;

/** README: "a pool's spares are reported, a peer pod takes one, and removing the pool deletes them". */
export const poolSpareClaimed: Probe = {
  promise: "a PeerPodConfig's pool is reported per node, a peer pod takes a spare, removing the pool deletes them",
  async run({ w, deadlineMs }) {
    const spares = async () =>
      (await w.admin.list<PeerPod>(PeerPods, { namespace: w.ns, labelSelector: POOL_LABEL })).items;
    // A line an earlier run left must not pass for one written now.
    await w.admin.patch(PeerPodConfigs, 'peerpodconfig', w.ns, { status: { pool: null } }, 'merge', {
      subresource: 'status',
    });
    await w.admin.patch(PeerPodConfigs, 'peerpodconfig', w.ns, { spec: { pool: { sizePerNode: 1 } } }, 'merge');
    const name = `pool-${Date.now().toString(36)}${(seq++).toString(36)}`;
    let seen = '';
    try {
      await waitFor(
        async () => {
          const cfg = await w.admin.get<PeerPodConfig>(PeerPodConfigs, 'peerpodconfig', w.ns);
          // Every node's spare, wherever the scheduler puts the pod.
          const nodes = cfg.status?.allocation ?? [];
          const pool = cfg.status?.pool?.nodes ?? {};
          return nodes.length > 0 && nodes.every((n) => (pool[n.node]?.ready ?? 0) > 0);
        },
        'a ready spare on every node, reported in status.pool.nodes',
        deadlineMs,
        200,
      );
      await w.admin.create(Pods, {
        metadata: { name, namespace: w.appNs },
        spec: { runtimeClassName: 'kata-remote', containers: [{ name: 'app', image: 'nginx' }] },
      } as KubeObject);
      await waitFor(
        async () => {
          const pod = await w.admin.get(Pods, name, w.appNs);
          if ((pod.status as { phase?: string } | undefined)?.phase !== 'Running') return false;
          const pp = (await w.admin.list<PeerPod>(PeerPods, { namespace: w.appNs })).items.find((p) =>
            (p.metadata.ownerReferences ?? []).some((r) => r.uid === pod.metadata.uid),
          );
          const from = pp?.metadata.annotations?.[POOL_CLAIMED_FROM_ANNOTATION];
          const left = (await spares()).map(
            (s) =>
              `${s.metadata.name}:${s.spec?.instanceID ?? ''}:${s.metadata.annotations?.['peerpods.io/pool-size'] ?? ''}`,
          );
          seen = `PeerPod ${pp?.metadata.name} from ${from}; pod size ${JSON.stringify(pod.metadata.annotations)}; spares ${left.join(', ')}`;
          return !!from && !left.some((s) => s.startsWith(`${from}:`));
        },
        `peer pod ${name} Running on a spare, the spare's record gone`,
        deadlineMs,
        200,
      ).catch((err: Error) => {
        throw new Error(`${err.message} (last seen: ${seen})`);
      });
    } finally {
      await w.admin.patch(PeerPodConfigs, 'peerpodconfig', w.ns, { spec: { pool: null } }, 'merge');
      await w.admin.delete(Pods, name, w.appNs, { gracePeriodSeconds: 0 }).catch(() => undefined);
    }
    await waitFor(async () => (await spares()).length === 0, 'every spare deleted', deadlineMs, 200);
  },
};
