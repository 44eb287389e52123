// Pure parts of the Deployment controller, after kube's pkg/controller/deployment/util: the
// pod-template hash, revisions and the replica annotations, maxSurge/maxUnavailable, the
// rolling-update arithmetic and proportional scaling. The status is in status.ts.
import { isObject } from '../../../../apimachinery/json/index.ts';
import { annotationsOf, byCreation, int, type WorkloadObject } from '../common.ts';
import { canonicalJson } from '../hash.ts';
import { deepEqual } from '../../../../apimachinery/json/index.ts';

export const HASH_LABEL = 'pod-template-hash';
export const REVISION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';
const ROLLBACK_TO = 'deprecated.deployment.rollback.to';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const MAX_REV_HISTORY_CHARS = 2000;
const MAX_INT32 = 2147483647;

// ---------------------------------------------------------------- hash

export { computeHash, safeEncode } from '../hash.ts';

/** Template without the pod-template-hash label, for EqualIgnoreHash. */
function withoutHash(template: unknown): unknown {
  if (!isObject(template)) return template;
  const t = structuredClone(template);
  const md = isObject(t.metadata) ? t.metadata : undefined;
  const labels = md && isObject(md.labels) ? md.labels : undefined;
  if (md && labels) {
    delete labels[HASH_LABEL];
    if (Object.keys(labels).length === 0) delete md.labels;
  }
  return JSON.parse(canonicalJson(t));
}

export function equalIgnoreHash(a: unknown, b: unknown): boolean {
  return deepEqual(withoutHash(a), withoutHash(b));
}

// ---------------------------------------------------------------- deployment spec

export function replicasOf(o: WorkloadObject): number {
  return int(o.spec.replicas, 1);
}

export function isRollingUpdate(d: WorkloadObject): boolean {
  const s = isObject(d.spec.strategy) ? d.spec.strategy : {};
  return s.type !== 'Recreate';
}

/** intstr.GetScaledValueFromIntOrPercent; undefined when malformed. */
export function scaledValue(v: unknown, total: number, roundUp: boolean): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string') {
    const m = /^(\d+)%$/.exec(v);
    if (!m) return /^\d+$/.test(v) ? Number(v) : undefined;
    const x = (Number(m[1]) * total) / 100;
    return roundUp ? Math.ceil(x) : Math.floor(x);
  }
  return undefined;
}

/** resolveFenceposts: [maxSurge, maxUnavailable] for a rolling update (defaults 25%/25%). */
export function fenceposts(d: WorkloadObject): [number, number] {
  const s = isObject(d.spec.strategy) ? d.spec.strategy : {};
  const ru = isObject(s.rollingUpdate) ? s.rollingUpdate : {};
  const desired = replicasOf(d);
  const surge = scaledValue(ru.maxSurge ?? '25%', desired, true) ?? 0;
  let unavailable = scaledValue(ru.maxUnavailable ?? '25%', desired, false) ?? 0;
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return [surge, unavailable];
}

export function maxSurge(d: WorkloadObject): number {
  return isRollingUpdate(d) ? fenceposts(d)[0] : 0;
}

export function maxUnavailable(d: WorkloadObject): number {
  if (!isRollingUpdate(d) || replicasOf(d) === 0) return 0;
  return Math.min(fenceposts(d)[1], replicasOf(d));
}

export function progressDeadline(d: WorkloadObject): number | undefined {
  const p = d.spec.progressDeadlineSeconds;
  return typeof p === 'number' && p !== MAX_INT32 ? p : undefined;
}

export function revisionHistoryLimit(d: WorkloadObject): number | undefined {
  const p = d.spec.revisionHistoryLimit;
  return typeof p === 'number' && p !== MAX_INT32 ? int(p) : undefined;
}

// ---------------------------------------------------------------- replica sets

export function rsReplicas(rs: WorkloadObject): number {
  return int(rs.spec.replicas, 1);
}

export function statusInt(o: WorkloadObject, field: string): number {
  return int(o.status[field]);
}

export function revisionOf(rs: WorkloadObject): number {
  const v = annotationsOf(rs)[REVISION];
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : 0;
  return n;
}

export function maxRevision(rss: WorkloadObject[]): number {
  return rss.reduce((m, rs) => Math.max(m, revisionOf(rs)), 0);
}

export const sumSpec = (rss: WorkloadObject[]): number => rss.reduce((s, rs) => s + rsReplicas(rs), 0);
export const sumStatus = (rss: WorkloadObject[], f: string): number => rss.reduce((s, rs) => s + statusInt(rs, f), 0);
export const active = (rss: WorkloadObject[]): WorkloadObject[] => rss.filter((rs) => rsReplicas(rs) > 0);

/** ReplicaSetsBySizeNewer (scale up) / BySizeOlder (scale down): larger first, then by age. */
export function bySize(newerFirst: boolean): (a: WorkloadObject, b: WorkloadObject) => number {
  return (a, b) => rsReplicas(b) - rsReplicas(a) || (newerFirst ? byCreation(b, a) : byCreation(a, b));
}

/** SetReplicasAnnotations; true when something changed. */
export function setReplicasAnnotations(rs: WorkloadObject, desired: number, max: number): boolean {
  const a = (rs.metadata.annotations ??= {});
  const changed = a[DESIRED_REPLICAS] !== String(desired) || a[MAX_REPLICAS] !== String(max);
  a[DESIRED_REPLICAS] = String(desired);
  a[MAX_REPLICAS] = String(max);
  return changed;
}

export function replicasAnnotationsNeedUpdate(rs: WorkloadObject, desired: number, max: number): boolean {
  const a = annotationsOf(rs);
  return a[DESIRED_REPLICAS] !== String(desired) || a[MAX_REPLICAS] !== String(max);
}

const SKIP_COPY = new Set([LAST_APPLIED, REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS, ROLLBACK_TO]);

/**
 * SetNewReplicaSetAnnotations: the Deployment's own annotations, the revision (only ever raised;
 * a raised revision of an existing RS, a rollback, is kept in revision-history) and, for a RS
 * about to be created, the replica annotations.
 */
export function setNewReplicaSetAnnotations(
  d: WorkloadObject,
  rs: WorkloadObject,
  newRevision: number,
  exists: boolean,
): boolean {
  const a = (rs.metadata.annotations ??= {});
  let changed = false;
  for (const [k, v] of Object.entries(annotationsOf(d))) {
    if (SKIP_COPY.has(k) || a[k] === v || typeof v !== 'string') continue;
    a[k] = v;
    changed = true;
  }
  const oldRevision = a[REVISION];
  const oldInt =
    oldRevision === undefined || oldRevision === '' ? 0 : /^\d+$/.test(oldRevision) ? Number(oldRevision) : NaN;
  if (Number.isNaN(oldInt)) return changed;
  if (oldInt < newRevision) {
    a[REVISION] = String(newRevision);
    changed = true;
    if (oldRevision !== undefined) {
      const history = a[REVISION_HISTORY] ? a[REVISION_HISTORY].split(',') : [];
      history.push(oldRevision);
      while (history.join(',').length > MAX_REV_HISTORY_CHARS) history.shift();
      a[REVISION_HISTORY] = history.join(',');
    }
  }
  if (!exists && setReplicasAnnotations(rs, replicasOf(d), replicasOf(d) + maxSurge(d))) changed = true;
  return changed;
}

/** NewRSNewReplicas: how big the new RS may be now. */
export function newRSNewReplicas(d: WorkloadObject, all: WorkloadObject[], newRS: WorkloadObject): number {
  if (!isRollingUpdate(d)) return replicasOf(d);
  const desired = replicasOf(d);
  const current = sumSpec(all);
  const maxTotal = desired + maxSurge(d);
  if (current >= maxTotal) return rsReplicas(newRS);
  return rsReplicas(newRS) + Math.min(maxTotal - current, Math.max(0, desired - rsReplicas(newRS)));
}

/** IsSaturated: the new RS runs every replica, available. */
export function isSaturated(d: WorkloadObject, rs: WorkloadObject | undefined): boolean {
  if (!rs) return false;
  const desired = annotationsOf(rs)[DESIRED_REPLICAS];
  if (desired === undefined || !/^\d+$/.test(desired)) return false;
  const n = replicasOf(d);
  return rsReplicas(rs) === n && Number(desired) === n && statusInt(rs, 'availableReplicas') === n;
}

/** GetProportion: this RS's share of a scale of the whole deployment by `toAdd`. */
export function proportion(rs: WorkloadObject, d: WorkloadObject, toAdd: number, added: number): number {
  if (rsReplicas(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const allowed = toAdd - added;
  let fraction: number;
  if (replicasOf(d) === 0) fraction = -rsReplicas(rs);
  else {
    const maxReplicas = replicasOf(d) + maxSurge(d);
    const annotated = annotationsOf(rs)[MAX_REPLICAS];
    let before = annotated !== undefined && /^\d+$/.test(annotated) ? Number(annotated) : 0;
    if (before === 0) before = statusInt(d, 'replicas');
    fraction = before === 0 ? 0 : Math.round((rsReplicas(rs) * maxReplicas) / before) - rsReplicas(rs);
  }
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}
