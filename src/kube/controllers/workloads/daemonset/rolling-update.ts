// The RollingUpdate strategy (kube's pkg/controller/daemon/update.go rollingUpdate): which old
// pods to delete and which nodes get a new pod now; the manage loop makes the rest.
//
// - maxSurge 0: unavailable old pods go at once; available old pods go while fewer than
//   maxUnavailable nodes are without an available up-to-date pod; manage recreates them.
// - maxSurge > 0: a new pod starts next to an old one (at once when the old one is unavailable,
//   else at most maxSurge at a time), and the old one goes once the new one is available.
// A pod being deleted counts for nothing, so a node whose pod is terminating is unavailable.
import { isObject } from '../../../../apimachinery/json/index.ts';
import { availability, int, type WorkloadObject } from '../common.ts';
import { scaledValue } from '../deployment/util.ts';
import { isPodUpdated } from './pods.ts';

export interface RollingPlan {
  podsToDelete: WorkloadObject[];
  nodesToCreate: string[];
  /** When a Ready pod becomes available (minReadySeconds), in ms: look again then. */
  recheckIn?: number;
}

export interface RollingInput {
  ds: WorkloadObject;
  /** Pods per node, including every eligible node (with no pods: an empty list). */
  nodeToDaemonPods: Map<string, WorkloadObject[]>;
  shouldRun: (node: string) => boolean;
  desiredNumberScheduled: number;
  hash: string;
  generation: string | undefined;
  now: number;
}

/** util.SurgeCount / UnavailableCount: percentages of `desired`, rounded up; 0 when not RollingUpdate. */
export function surgeAndUnavailable(ds: WorkloadObject, desired: number): { maxSurge: number; maxUnavailable: number } {
  const strategy = isObject(ds.spec.updateStrategy) ? ds.spec.updateStrategy : {};
  if (strategy.type !== 'RollingUpdate' || !isObject(strategy.rollingUpdate)) return { maxSurge: 0, maxUnavailable: 0 };
  const ru = strategy.rollingUpdate;
  return {
    maxSurge: scaledValue(ru.maxSurge ?? 0, desired, true) ?? 0,
    maxUnavailable: scaledValue(ru.maxUnavailable ?? 1, desired, true) ?? 0,
  };
}

/** util.AllowsSurge. */
export function allowsSurge(ds: WorkloadObject): boolean {
  return surgeAndUnavailable(ds, 1).maxSurge !== 0;
}

/** findUpdatedPodsOnNode: the node's live new and old pod; undefined when it has two of either. */
function updatedAndOld(
  pods: WorkloadObject[],
  hash: string,
  generation: string | undefined,
): { newPod?: WorkloadObject; oldPod?: WorkloadObject } | undefined {
  let newPod: WorkloadObject | undefined;
  let oldPod: WorkloadObject | undefined;
  for (const p of pods) {
    if (p.metadata.deletionTimestamp) continue;
    if (isPodUpdated(p, hash, generation)) {
      if (newPod) return undefined;
      newPod = p;
    } else {
      if (oldPod) return undefined;
      oldPod = p;
    }
  }
  return { newPod, oldPod };
}

export function planRollingUpdate(input: RollingInput): RollingPlan {
  const { ds, now } = input;
  const { maxSurge, maxUnavailable: configured } = surgeAndUnavailable(ds, input.desiredNumberScheduled);
  let maxUnavailable = configured;
  // An impossible configuration (both 0) obeys the default of one unavailable.
  if (input.desiredNumberScheduled > 0 && maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  const minReady = int(ds.spec.minReadySeconds);
  let recheckIn: number | undefined;
  const available = (p: WorkloadObject): boolean => {
    const a = availability(p, minReady, now);
    if (typeof a === 'number') recheckIn = Math.min(recheckIn ?? a, a);
    return a === true;
  };
  return maxSurge === 0
    ? { ...withoutSurge(input, maxUnavailable, available), recheckIn }
    : { ...withSurge(input, maxSurge, available), recheckIn };
}

function withoutSurge(
  input: RollingInput,
  maxUnavailable: number,
  available: (p: WorkloadObject) => boolean,
): Omit<RollingPlan, 'recheckIn'> {
  let numUnavailable = 0;
  const allowedReplacements: WorkloadObject[] = [];
  const candidates: WorkloadObject[] = [];
  for (const pods of input.nodeToDaemonPods.values()) {
    const found = updatedAndOld(pods, input.hash, input.generation);
    // Excess pods: the manage loop cleans the node up; it counts as unavailable meanwhile.
    if (!found) {
      numUnavailable++;
      continue;
    }
    const { newPod, oldPod } = found;
    if ((!oldPod && !newPod) || (oldPod && newPod)) numUnavailable++;
    else if (newPod) {
      if (!available(newPod)) numUnavailable++;
    } else if (oldPod) {
      if (!available(oldPod)) allowedReplacements.push(oldPod);
      else if (numUnavailable < maxUnavailable) candidates.push(oldPod);
    }
  }
  const remaining = Math.min(Math.max(0, maxUnavailable - numUnavailable), candidates.length);
  return { podsToDelete: [...allowedReplacements, ...candidates.slice(0, remaining)], nodesToCreate: [] };
}

function withSurge(
  input: RollingInput,
  maxSurge: number,
  available: (p: WorkloadObject) => boolean,
): Omit<RollingPlan, 'recheckIn'> {
  const podsToDelete: WorkloadObject[] = [];
  const shouldNotRunToDelete: WorkloadObject[] = [];
  const candidateNodes: string[] = [];
  const allowedNodes: string[] = [];
  let numSurge = 0;
  let numAvailable = 0;
  for (const [node, pods] of input.nodeToDaemonPods) {
    const found = updatedAndOld(pods, input.hash, input.generation);
    if (!found) {
      numSurge++;
      continue;
    }
    const { newPod, oldPod } = found;
    // Availability of every node first, those being sunset for scheduling constraints included.
    if (oldPod ? available(oldPod) : newPod !== undefined && available(newPod)) numAvailable++;
    if (!oldPod) continue;
    if (!newPod) {
      if (!available(oldPod)) {
        if (!input.shouldRun(node)) podsToDelete.push(oldPod);
        else allowedNodes.push(node);
      } else if (!input.shouldRun(node)) shouldNotRunToDelete.push(oldPod);
      else if (numSurge < maxSurge) candidateNodes.push(node);
      continue;
    }
    // Already surged here: wait for the new pod, then the old one goes.
    if (!available(newPod)) numSurge++;
    else podsToDelete.push(oldPod);
  }
  // With surge the owner expects full availability: a pod on a node it must leave goes only once
  // enough pods elsewhere are available.
  const deletable = Math.min(numAvailable - input.desiredNumberScheduled, shouldNotRunToDelete.length);
  if (deletable > 0) podsToDelete.push(...shouldNotRunToDelete.slice(0, deletable));
  const remaining = Math.min(Math.max(0, maxSurge - numSurge), candidateNodes.length);
  return { podsToDelete, nodesToCreate: [...allowedNodes, ...candidateNodes.slice(0, remaining)] };
}
