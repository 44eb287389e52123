// DaemonSet status (kube's pkg/controller/daemon updateDaemonSetStatus and storeDaemonSetStatus):
// per eligible node, its oldest pod decides ready, available and up to date; pods on nodes the
// DaemonSet should not run on are misscheduled.
import type { JsonObject } from '../../../../apimachinery/meta/index.ts';
import { availability, AvailabilityCount, int, type WorkloadObject } from '../common.ts';
import { byBoundThenCreation, isPodUpdated } from './pods.ts';

export interface StatusInput {
  ds: WorkloadObject;
  nodes: string[];
  shouldRun: (node: string) => boolean;
  nodeToDaemonPods: Map<string, WorkloadObject[]>;
  hash: string;
  generation: string | undefined;
  collisionCount: number;
  /** Whether this sync acted on the spec (observedGeneration moves only then). */
  observed: boolean;
  now: number;
}

export function daemonSetStatus(input: StatusInput): { status: JsonObject; recheckIn?: number } {
  const { ds, now } = input;
  const minReady = int(ds.spec.minReadySeconds);
  let desired = 0;
  let current = 0;
  let misscheduled = 0;
  let updated = 0;
  const count = new AvailabilityCount();
  for (const node of input.nodes) {
    const pods = input.nodeToDaemonPods.get(node) ?? [];
    if (!input.shouldRun(node)) {
      if (pods.length > 0) misscheduled++;
      continue;
    }
    desired++;
    if (pods.length === 0) continue;
    current++;
    const pod = [...pods].sort(byBoundThenCreation)[0];
    count.add(availability(pod, minReady, now));
    if (isPodUpdated(pod, input.hash, input.generation)) updated++;
  }
  const { ready, available, recheckIn } = count;
  const previous = int(ds.status.observedGeneration);
  const generation = int(ds.metadata.generation);
  // Go's field order and omitempty (apps/v1 DaemonSetStatus).
  const status: JsonObject = {
    currentNumberScheduled: current,
    numberMisscheduled: misscheduled,
    desiredNumberScheduled: desired,
    numberReady: ready,
  };
  const observedGeneration = input.observed ? generation : previous;
  if (observedGeneration) status.observedGeneration = observedGeneration;
  if (updated) status.updatedNumberScheduled = updated;
  if (available) status.numberAvailable = available;
  if (desired - available) status.numberUnavailable = desired - available;
  if (input.collisionCount) status.collisionCount = input.collisionCount;
  if (Array.isArray(ds.status.conditions) && ds.status.conditions.length > 0) status.conditions = ds.status.conditions;
  for (const [k, v] of Object.entries(ds.status)) if (!(k in status) && !KNOWN_STATUS.has(k)) status[k] = v;
  return { status, recheckIn };
}

/** Status fields this controller owns; others (written by newer clients) are kept. */
const KNOWN_STATUS = new Set([
  'currentNumberScheduled',
  'numberMisscheduled',
  'desiredNumberScheduled',
  'numberReady',
  'observedGeneration',
  'updatedNumberScheduled',
  'numberAvailable',
  'numberUnavailable',
  'collisionCount',
  'conditions',
]);
