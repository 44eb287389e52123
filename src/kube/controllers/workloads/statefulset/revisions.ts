// StatefulSet history as ControllerRevisions, after kube's pkg/controller/statefulset
// (getStatefulSetRevisions, newRevision, getPatch, ApplyRevision, truncateHistory) and
// pkg/controller/history: one revision per distinct pod template, named `<set>-<hash>`, labelled
// with the template's labels and `controller.kubernetes.io/hash`, carrying the set's annotations
// and, as data, the strategic merge patch `{"spec":{"template":{…,"$patch":"replace"}}}` that
// `kubectl rollout undo` applies. Returning to an older template renumbers that revision instead
// of creating a new one.
import { isObject } from '../../../../apimachinery/json/index.ts';
import type { JsonObject, ObjectMeta } from '../../../../apimachinery/meta/index.ts';
import { canonicalJson, computeHash } from '../hash.ts';
import { int, labelsOf, ownerRefTo, type WorkloadObject } from '../common.ts';

/** history.ControllerRevisionHashLabel. */
export const HASH_LABEL = 'controller.kubernetes.io/hash';

export function revisionNumber(r: WorkloadObject): number {
  return typeof r.revision === 'number' ? r.revision : 0;
}

/** history.SortControllerRevisions: by revision, then creation, then name. */
export function sortRevisions(revisions: WorkloadObject[]): WorkloadObject[] {
  return [...revisions].sort(
    (a, b) => revisionNumber(a) - revisionNumber(b) || (a.metadata.name! < b.metadata.name! ? -1 : 1),
  );
}

/** nextRevision: one past the newest. */
export function nextRevision(sorted: WorkloadObject[]): number {
  return sorted.length === 0 ? 1 : revisionNumber(sorted[sorted.length - 1]) + 1;
}

/**
 * getPatch: the set's template as Go encodes it (ObjectMeta's creationTimestamp is written as
 * null) with `$patch: replace`, under spec.template. Keys are sorted as json.Marshal sorts a map.
 */
export function revisionData(set: WorkloadObject): JsonObject {
  const template = structuredClone(isObject(set.spec.template) ? set.spec.template : {});
  const md = isObject(template.metadata) ? template.metadata : (template.metadata = {});
  if (!('creationTimestamp' in md)) md.creationTimestamp = null;
  template.$patch = 'replace';
  return JSON.parse(canonicalJson({ spec: { template } })) as JsonObject;
}

/** The bytes two revisions are compared by (history.EqualRevision compares Data.Raw). */
export function dataKey(data: unknown): string {
  return canonicalJson(data, true);
}

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

/** ApplyRevision: the set with the revision's template (the patch replaces it whole). */
export function applyRevision(set: WorkloadObject, revision: WorkloadObject): WorkloadObject {
  const data = isObject(revision.data) ? revision.data : {};
  const spec = isObject(data.spec) ? data.spec : {};
  if (!isObject(spec.template)) return set;
  const template = structuredClone(spec.template);
  delete template.$patch;
  return { ...set, spec: { ...set.spec, template } };
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
