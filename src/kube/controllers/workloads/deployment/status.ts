// The Deployment's status as kube's deployment controller computes it: counts summed over the
// ReplicaSets (zero counts omitted, as Go's omitempty does), the Available condition, and the
// Progressing condition's rules (complete, progressing, timed out against progressDeadlineSeconds).
import type { JsonObject } from '../../../../apimachinery/meta/index.ts';
import { isObject } from '../../../../apimachinery/json/index.ts';
import { formatTime } from '../../../../apimachinery/time/index.ts';
import { int, type WorkloadObject } from '../common.ts';
import { maxUnavailable, progressDeadline, replicasOf, statusInt, sumSpec, sumStatus } from './util.ts';

export interface Condition extends JsonObject {
  type: string;
  status: string;
  lastUpdateTime: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export function newCondition(type: string, status: string, reason: string, message: string): Condition {
  const now = formatTime(new Date());
  return { type, status, lastUpdateTime: now, lastTransitionTime: now, reason, message };
}

export function conditionsOf(status: JsonObject): Condition[] {
  return (Array.isArray(status.conditions) ? status.conditions : []).filter(
    (c): c is Condition => isObject(c) && typeof c.type === 'string',
  );
}

export function getCondition(status: JsonObject, type: string): Condition | undefined {
  return conditionsOf(status).find((c) => c.type === type);
}

/** SetDeploymentCondition: same status and reason is no change; same status keeps the transition time. */
export function setCondition(status: JsonObject, cond: Condition): void {
  const current = getCondition(status, cond.type);
  if (current && current.status === cond.status && current.reason === cond.reason) return;
  if (current && current.status === cond.status) cond.lastTransitionTime = current.lastTransitionTime;
  status.conditions = [...conditionsOf(status).filter((c) => c.type !== cond.type), cond];
}

export function removeCondition(status: JsonObject, type: string): void {
  const rest = conditionsOf(status).filter((c) => c.type !== type);
  if (rest.length > 0) status.conditions = rest;
  else delete status.conditions;
}

const STATUS_INTS = [
  'observedGeneration',
  'replicas',
  'updatedReplicas',
  'readyReplicas',
  'availableReplicas',
  'unavailableReplicas',
];

/** A DeploymentStatus as Go serializes it: zero counts omitted. */
export function normalizeStatus(status: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const f of STATUS_INTS) if (int(status[f]) > 0) out[f] = int(status[f]);
  const conds = conditionsOf(status);
  if (conds.length > 0) out.conditions = conds;
  if (typeof status.collisionCount === 'number') out.collisionCount = status.collisionCount;
  for (const [k, v] of Object.entries(status))
    if (!(k in out) && !STATUS_INTS.includes(k) && k !== 'conditions') out[k] = v;
  return out;
}

/** calculateStatus: counts from the replica sets and the Available condition. */
export function calculateStatus(
  d: WorkloadObject,
  all: WorkloadObject[],
  newRS: WorkloadObject | undefined,
): JsonObject {
  const available = sumStatus(all, 'availableReplicas');
  const status: JsonObject = {
    ...structuredClone(d.status),
    observedGeneration: int(d.metadata.generation),
    replicas: sumStatus(all, 'replicas'),
    updatedReplicas: newRS ? statusInt(newRS, 'replicas') : 0,
    readyReplicas: sumStatus(all, 'readyReplicas'),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, sumSpec(all) - available),
  };
  if (available >= replicasOf(d) - maxUnavailable(d)) {
    setCondition(
      status,
      newCondition('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'),
    );
  } else {
    setCondition(
      status,
      newCondition(
        'Available',
        'False',
        'MinimumReplicasUnavailable',
        'Deployment does not have minimum availability.',
      ),
    );
  }
  return normalizeStatus(status);
}

/** DeploymentComplete. */
export function isComplete(d: WorkloadObject, status: JsonObject): boolean {
  const n = replicasOf(d);
  return (
    int(status.updatedReplicas) === n &&
    int(status.replicas) === n &&
    int(status.availableReplicas) === n &&
    int(status.observedGeneration) >= int(d.metadata.generation)
  );
}

/** DeploymentProgressing: more updated, ready or available replicas, or fewer old ones. */
export function isProgressing(d: WorkloadObject, status: JsonObject): boolean {
  const old = d.status;
  const oldOld = int(old.replicas) - int(old.updatedReplicas);
  const newOld = int(status.replicas) - int(status.updatedReplicas);
  return (
    int(status.updatedReplicas) > int(old.updatedReplicas) ||
    newOld < oldOld ||
    int(status.readyReplicas) > int(old.readyReplicas) ||
    int(status.availableReplicas) > int(old.availableReplicas)
  );
}

/** DeploymentTimedOut: no progress reported for progressDeadlineSeconds. */
export function hasTimedOut(d: WorkloadObject, status: JsonObject, now = Date.now()): boolean {
  const deadline = progressDeadline(d);
  if (deadline === undefined) return false;
  const c = getCondition(status, 'Progressing');
  if (!c || c.reason === 'NewReplicaSetAvailable') return false;
  if (c.reason === 'ProgressDeadlineExceeded') return true;
  const from = Date.parse(c.lastUpdateTime);
  return !Number.isNaN(from) && from + deadline * 1000 < now;
}
