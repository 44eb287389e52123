// DaemonSet history as ControllerRevisions (kube's pkg/controller/daemon/update.go snapshot,
// constructHistory and cleanupHistory): one revision per distinct template, named `<ds>-<hash>`
// with the hash of the template and collisionCount, labelled with the template's labels and
// `controller-revision-hash`, carrying the DaemonSet's annotations (so `kubectl rollout history`
// shows its change-cause) and numbered one past the newest other revision.
import { isObject } from '../../../../apimachinery/json/index.ts';
import type { JsonObject, ObjectMeta } from '../../../../apimachinery/meta/index.ts';
import { computeHash } from '../hash.ts';
import { int, labelsOf, ownerRefTo, type WorkloadObject } from '../common.ts';
import { dataKey, revisionData, revisionNumber, sortRevisions } from '../history.ts';
import { REVISION_HASH_LABEL } from './pods.ts';

/** snapshot's ControllerRevision for the DaemonSet's current template. */
export function newRevision(ds: WorkloadObject, revision: number, collisionCount: number): JsonObject {
  const template = isObject(ds.spec.template) ? ds.spec.template : {};
  const hash = computeHash(template, collisionCount);
  const metadata: ObjectMeta = {
    name: `${ds.metadata.name}-${hash}`,
    namespace: ds.metadata.namespace,
    labels: { ...labelsOf({ metadata: template.metadata }), [REVISION_HASH_LABEL]: hash },
    ownerReferences: [ownerRefTo('DaemonSet', ds)],
  };
  if (isObject(ds.metadata.annotations) && Object.keys(ds.metadata.annotations).length > 0)
    metadata.annotations = { ...ds.metadata.annotations };
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: metadata as JsonObject,
    data: revisionData(ds),
    revision,
  };
}

/** Match: the revision's data is the DaemonSet's template patch. */
export function matchesTemplate(ds: WorkloadObject, revision: WorkloadObject): boolean {
  return dataKey(revision.data) === dataKey(revisionData(ds));
}

/** The revision's hash label, or its name for revisions written without one. */
export function revisionHash(revision: WorkloadObject): string {
  return labelsOf(revision)[REVISION_HASH_LABEL] ?? revision.metadata.name!;
}

/** maxRevision(old) + 1. */
export function revisionAfter(old: WorkloadObject[]): number {
  return old.reduce((m, r) => Math.max(m, revisionNumber(r)), 0) + 1;
}

/**
 * dedupCurHistories: of several revisions with the current template, the one with the highest
 * revision stays; the others go (their pods are relabelled to it by the caller).
 */
export function keepNewest(current: WorkloadObject[]): { keep: WorkloadObject; duplicates: WorkloadObject[] } {
  const sorted = sortRevisions(current);
  const keep = sorted[sorted.length - 1];
  return { keep, duplicates: sorted.slice(0, -1) };
}

/**
 * cleanupHistory: old revisions beyond spec.revisionHistoryLimit, lowest revision first, except
 * those a live pod still carries the hash of (they count towards the limit all the same).
 */
export function historyToDelete(ds: WorkloadObject, old: WorkloadObject[], liveHashes: Set<string>): WorkloadObject[] {
  let toKill = old.length - int(ds.spec.revisionHistoryLimit, 10);
  const out: WorkloadObject[] = [];
  for (const r of sortRevisions(old)) {
    if (toKill <= 0) break;
    if (liveHashes.has(labelsOf(r)[REVISION_HASH_LABEL] ?? '')) continue;
    out.push(r);
    toKill--;
  }
  return out;
}
