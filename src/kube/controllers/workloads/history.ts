// Workload history as ControllerRevisions, shared by the StatefulSet and DaemonSet controllers
// (kube's pkg/controller/history and the getPatch both controllers carry): one revision per
// distinct pod template, whose data is the strategic merge patch
// `{"spec":{"template":{…,"$patch":"replace"}}}` that `kubectl rollout undo` applies.
import { isObject } from '../../../apimachinery/json/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { canonicalJson } from './hash.ts';
import type { WorkloadObject } from './common.ts';

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
 * getPatch: the owner's template as Go encodes it (ObjectMeta's creationTimestamp is written as
 * null) with `$patch: replace`, under spec.template. Keys are sorted as json.Marshal sorts a map.
 */
export function revisionData(owner: WorkloadObject): JsonObject {
  const template = structuredClone(isObject(owner.spec.template) ? owner.spec.template : {});
  const md = isObject(template.metadata) ? template.metadata : (template.metadata = {});
  if (!('creationTimestamp' in md)) md.creationTimestamp = null;
  template.$patch = 'replace';
  return JSON.parse(canonicalJson({ spec: { template } })) as JsonObject;
}

/** The bytes two revisions are compared by (history.EqualRevision compares Data.Raw). */
export function dataKey(data: unknown): string {
  return canonicalJson(data, true);
}

/** ApplyRevision: the owner with the revision's template (the patch replaces it whole). */
export function applyRevision(owner: WorkloadObject, revision: WorkloadObject): WorkloadObject {
  const data = isObject(revision.data) ? revision.data : {};
  const spec = isObject(data.spec) ? data.spec : {};
  if (!isObject(spec.template)) return owner;
  const template = structuredClone(spec.template);
  delete template.$patch;
  return { ...owner, spec: { ...owner.spec, template } };
}
