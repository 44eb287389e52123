// Probes of a further provider's Roles (`peerpods deploy --extra-provider`): the world's second
// PeerPodConfig binds qemu to RuntimeClass kata-remote-qemu with its own ConfigMap and Secret
// (cluster.ts, EXTRA_PROVIDER), beside the simulated cloud of peer-pods-cm.
import { randomUUID } from 'node:crypto';
import { DaemonSets, Pods, isNotFound } from '../../../../src/runtime/index.ts';
import type { KubeObject } from '../../../../src/runtime/index.ts';
import {
  PEERPOD_FINALIZER,
  PeerPodConfigs,
  PeerPods,
  adaptorDaemonSetForRuntimeClass,
} from '../../../../src/peerpod/index.ts';
import { waitFor } from '../../../helpers/wait.ts';
import { EXTRA_CONFIG, EXTRA_PROVIDER } from './cluster.ts';
import type { World } from './cluster.ts';
import type { Probe } from './probes.ts';

let seq = 0;
const fresh = (prefix: string) => `${prefix}-${Date.now().toString(36)}${(seq++).toString(36)}`;

async function gone(w: World, name: string): Promise<boolean> {
  try {
    await w.admin.get(PeerPods, name, w.appNs);
    return false;
  } catch (e) {
    if (isNotFound(e)) return true;
    throw e;
  }
}

let limit = 2;

/**
 * README: "a further provider's config gets its own adaptor DaemonSet". The namespaced controller
 * watches only the default DaemonSet by name (its Role names it), so a further one is applied on each
 * reconcile of its config, not on its own deletion: deleted, it is back after the next change of the config.
 */
export const extraAdaptorDaemonSetRestored: Probe = {
  promise: "a further provider's adaptor DaemonSet is applied on a change of its config",
  async run({ w, deadlineMs }) {
    const name = adaptorDaemonSetForRuntimeClass(EXTRA_PROVIDER.runtimeClassName);
    const uid = async (): Promise<string | undefined> => {
      try {
        return (await w.admin.get(DaemonSets, name, w.ns)).metadata.uid;
      } catch (e) {
        if (isNotFound(e)) return undefined;
        throw e;
      }
    };
    // Gone already when an earlier attempt (its rule missing) deleted it and nothing applied it again.
    const old = await uid();
    if (old) await w.admin.delete(DaemonSets, name, w.ns);
    limit = limit === 2 ? 3 : 2;
    await w.admin.patch(PeerPodConfigs, EXTRA_CONFIG, w.ns, { spec: { limit: String(limit) } }, 'merge');
    await waitFor(
      async () => {
        const now = await uid();
        return now !== undefined && now !== old;
      },
      `DaemonSet ${name} applied again`,
      deadlineMs,
      200,
    );
  },
};

/**
 * README: "the PeerPod controller deletes a dangling VM of that config's provider with its settings".
 * A VM ID qemu never made: deleting it is a no-op once the provider is built from qemu's settings,
 * and never happens while they cannot be read.
 */
export const extraDanglingPeerPodCleaned: Probe = {
  promise: "a deleted PeerPod of the further provider is released with its config's settings",
  async run({ w, deadlineMs }) {
    const name = fresh('dangling-qemu');
    await w.admin.create(PeerPods, {
      metadata: { name, namespace: w.appNs, finalizers: [PEERPOD_FINALIZER] },
      spec: { cloudProvider: EXTRA_PROVIDER.provider, instanceID: randomUUID() },
    } as KubeObject);
    try {
      await w.admin.delete(PeerPods, name, w.appNs);
      await waitFor(() => gone(w, name), `PeerPod ${name} released`, deadlineMs, 200);
    } finally {
      await w.admin.patch(PeerPods, name, w.appNs, { metadata: { finalizers: null } }, 'merge').catch(() => undefined);
    }
  },
};

/** README: "a pod of the further provider's RuntimeClass runs in a VM of that provider". */
export const extraPeerPodRuns: Probe = {
  promise: `a ${EXTRA_PROVIDER.runtimeClassName} pod runs in a ${EXTRA_PROVIDER.provider} VM`,
  async run({ w, deadlineMs }) {
    const name = fresh('peer-qemu');
    await w.admin.create(Pods, {
      metadata: { name, namespace: w.appNs },
      spec: { runtimeClassName: EXTRA_PROVIDER.runtimeClassName, containers: [{ name: 'app', image: 'nginx' }] },
    } as KubeObject);
    try {
      await waitFor(
        async () => {
          const pod = await w.admin.get(Pods, name, w.appNs);
          if ((pod.status as { phase?: string } | undefined)?.phase !== 'Running') return false;
          return (await w.admin.list(PeerPods, { namespace: w.appNs })).items.some(
            (pp) =>
              (pp.spec as { cloudProvider?: string }).cloudProvider === EXTRA_PROVIDER.provider &&
              (pp.metadata.ownerReferences ?? []).some((r) => r.uid === pod.metadata.uid),
          );
        },
        `peer pod ${name} Running in a ${EXTRA_PROVIDER.provider} VM`,
        deadlineMs,
        200,
      );
    } finally {
      // Deleted the normal way first, so its adaptor stops the QEMU process.
      await w.admin.delete(Pods, name, w.appNs).catch(() => undefined);
      await waitFor(
        async () => {
          try {
            await w.admin.get(Pods, name, w.appNs);
            return false;
          } catch {
            return true;
          }
        },
        `pod ${name} gone`,
        30_000,
        200,
      ).catch(async () => {
        await w.admin.patch(Pods, name, w.appNs, { metadata: { finalizers: null } }, 'merge').catch(() => undefined);
        await w.admin.delete(Pods, name, w.appNs, { gracePeriodSeconds: 0 }).catch(() => undefined);
      });
    }
  },
};

/**
 * README: "the advertised kata.peerpods.io/vm never exceeds what the provider can hold", for a further
 * provider's config too: its capacity is evaluated with the ConfigMap and Secret it names (qemu: the
 * host's memory and CPUs), so its CapacityLimited condition answers for the config's latest
 * generation with a reason other than CapacityUnknown.
 */
export const extraCapacityEvaluated: Probe = {
  promise: "a further provider's PeerPodConfig shows its provider's capacity, read with its own settings",
  async run({ w, deadlineMs }) {
    limit = limit === 2 ? 3 : 2;
    const cfg = await w.admin.patch(PeerPodConfigs, EXTRA_CONFIG, w.ns, { spec: { limit: String(limit) } }, 'merge');
    const generation = cfg.metadata.generation;
    await waitFor(
      async () => {
        const c = await w.admin.get(PeerPodConfigs, EXTRA_CONFIG, w.ns);
        const conds = (c.status as { conditions?: Condition[] } | undefined)?.conditions ?? [];
        const cond = conds.find((x) => x.type === 'CapacityLimited');
        return cond !== undefined && cond.observedGeneration === generation && cond.reason !== 'CapacityUnknown';
      },
      `CapacityLimited of ${EXTRA_CONFIG} evaluated (not CapacityUnknown) at generation ${generation}`,
      deadlineMs,
      200,
    );
  },
};

interface Condition {
  type: string;
  reason: string;
  observedGeneration?: number;
}
