// StatefulSet history as ControllerRevisions, after kube's pkg/controller/statefulset
// (getStatefulSetRevisions, newRevision, truncateHistory); what all workload histories share is
// in ../history.ts. One revision per distinct pod template, named `<set>-<hash>`, labelled with
// the template's labels and `controller.kubernetes.io/hash`, carrying the set's annotations.
// Returning to an older template renumbers that revision instead of creating a new one.
import { isObject } from '../../../../apimachinery/json/index.ts';
import type { JsonObject, ObjectMeta } from '../../../../apimachinery/meta/index.ts';
import { computeHash } from '../hash.ts';
import { int, labelsOf, ownerRefTo, type WorkloadObject } from '../common.ts';
import { dataKey, revisionData } from '../history.ts';

/** history.ControllerRevisionHashLabel. */
export const HASH_LABEL = 'controller.kubernetes.io/hash';

/** history.NewControllerRevision plus newRevision's annotations copy. */
export function newRevision(set: WorkloadObject, revision: number, collisionCount: number): JsonObject {
  const data = revisionData(set);
  const hash = computeHash(dataKey(data), collisionCount);
  const template = set.spec.template as JsonObject;
  const metadata: ObjectMeta = {
    name: `${set.metadata.name}-${hash}`,
    namespace: set.metadata.namespace,
    labels: { ...labelsOf(template), [HASH_LABEL]: hash },
    annotations: { ...(isObject(set.metadata.annotations) ? set.metadata.annotations : {}) },
    ownerReferences: [ownerRefTo('StatefulSet', set)],
  };
  if (Object.keys(metadata.annotations!).length === 0) delete metadata.annotations;
  return { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: metadata as JsonObject, data, revision };
}

/**
 * truncateHistory: revisions no pod uses and that are neither current nor update, beyond
 * spec.revisionHistoryLimit, oldest first.
 */
export function revisionsToDelete(set: WorkloadObject, sorted: WorkloadObject[], live: Set<string>): WorkloadObject[] {
  const history = sorted.filter((r) => !live.has(r.metadata.name!));
  const limit = int(set.spec.revisionHistoryLimit, 10);
  return history.length <= limit ? [] : history.slice(0, history.length - limit);
}
