// The PodSet controller: level-triggered. Each reconcile compares the pods a PodSet controls with
// `spec.replicas`, creates or deletes the difference, and reports `status.replicas` and a Ready
// condition. It never counts on having seen every event: it reads the current state each time.
import {
  ControllerBuilder,
  Pods,
  createOrPatch,
  generationChanged,
  isNotFound,
  patchStatus,
  setControllerReference,
  setStatusCondition,
  waitForCache,
} from '../../src/runtime/index.ts';
import type { Controller, KubeObject, Manager, ReconcileContext } from '../../src/runtime/index.ts';
import { PodSets } from './api.ts';
import type { PodSet } from './api.ts';

export const CONTROLLER_NAME = 'podset';

interface Pod extends KubeObject {
  spec?: Record<string, unknown>;
}

function isActive(p: Pod): boolean {
  return !p.metadata.deletionTimestamp;
}

/** Registers the PodSet controller on `manager`. */
export function setupPodSetController(manager: Manager): Controller {
  const podSets = manager.informerFor<PodSet>(PodSets);
  const pods = manager.informerFor<Pod>(Pods);
  const events = manager.getEventRecorder(`${CONTROLLER_NAME}-controller`);

  async function reconcile(set: PodSet, ctx: ReconcileContext): Promise<void> {
    if (set.metadata.deletionTimestamp) return; // owned pods go with it (garbage collector)

    const owned = pods.byIndex('ownerUid', set.metadata.uid as string).filter(isActive);
    const want = set.spec.replicas;
    let count = owned.length;
    ctx.log.debug({ have: count, want }, 'comparing pods');

    if (owned.length < want) {
      let last: KubeObject | undefined;
      for (let i = owned.length; i < want; i++) {
        const pod: Pod = {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            generateName: `${set.metadata.name}-`,
            namespace: set.metadata.namespace,
            labels: {
              ...set.spec.template.metadata?.labels,
              'examples.peerpods.io/podset': set.metadata.name as string,
            },
            ...(set.spec.template.metadata?.annotations ? { annotations: set.spec.template.metadata.annotations } : {}),
          },
          spec: structuredClone(set.spec.template.spec),
        };
        setControllerReference(set, pod);
        last = await manager.client.create(Pods, pod, { signal: ctx.signal });
        count++;
        events.normal(set, 'SuccessfulCreate', `Created pod: ${last.metadata.name}`);
      }
      // Read-your-writes: without this, the next reconcile could run on a cache that does not yet
      // show these pods and create them again.
      if (last) await waitForCache(pods, last);
    } else if (owned.length > want) {
      // Newest first, so long-running pods are kept.
      const extra = [...owned]
        .sort((a, b) => String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)))
        .slice(0, owned.length - want);
      for (const p of extra) {
        try {
          await manager.client.delete(Pods, p.metadata.name as string, p.metadata.namespace, { signal: ctx.signal });
          events.normal(set, 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
        count--;
      }
    }

    const written = await patchStatus(manager.client, PodSets, set, (draft) => {
      draft.status = { ...draft.status, replicas: count, observedGeneration: set.metadata.generation as number };
      const ready = count === want;
      setStatusCondition(draft, {
        type: 'Ready',
        status: ready ? 'True' : 'False',
        reason: ready ? 'Scaled' : count < want ? 'ScalingUp' : 'ScalingDown',
        message: ready ? `${want} pod(s)` : `${count} of ${want} pod(s)`,
      });
    });
    // Our own status write comes back as an update event, but generationChanged() filters it.
    if (written.changed) await waitForCache(podSets, written.object);
  }

  return new ControllerBuilder(manager, CONTROLLER_NAME)
    .for<PodSet>(PodSets, { predicates: [generationChanged()] })
    .owns(Pods)
    .completeWithObjects(reconcile);
}

/** Creates or updates a PodSet (used by main.ts and the tests). */
export async function applyPodSet(
  manager: Manager,
  name: string,
  namespace: string,
  replicas: number,
): Promise<PodSet> {
  const { object } = await createOrPatch<PodSet>(
    manager.client,
    PodSets,
    {
      apiVersion: 'examples.peerpods.io/v1alpha1',
      kind: 'PodSet',
      metadata: { name, namespace },
      spec: { replicas, template: { spec: {} } },
    },
    (draft) => {
      draft.spec = {
        replicas,
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.9' }] },
        },
      };
    },
  );
  return object;
}
