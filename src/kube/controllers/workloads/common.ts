// What the workload controllers (ReplicaSet, ReplicationController, Deployment, ...) share:
// reading untyped objects defensively (anything malformed is skipped, never thrown on),
// controller references, pod readiness and availability as kube's podutil computes them,
// selectors, claiming (adopt/release) and a per-key backoff so a persistent failure cannot spin.
import { ItemExponentialBackoff } from '../../../apimachinery/backoff.ts';
import { isPodReady, isPodTerminal, statusCondition } from '../../../apimachinery/core/index.ts';
import type { JsonObject, ObjectMeta, OwnerReference } from '../../../apimachinery/meta/index.ts';
import { compileSelector } from '../../builtins/selector.ts';
import type { RequestContext } from '../../registry/context.ts';
import type { ResourceDef } from '../../registry/resource.ts';
import type { ObjectStore, PropagationPolicy } from '../../registry/store/index.ts';
import type { Change, Storage } from '../../storage/storage.ts';
import type { WorkLoop } from '../work-loop.ts';
import { isObject } from '../../../apimachinery/json/index.ts';

/** A parsed object: metadata with a name and uid, spec and status always objects. */
export interface WorkloadObject {
  metadata: ObjectMeta;
  spec: JsonObject;
  status: JsonObject;
  [key: string]: unknown;
}

/** Parses a stored object; undefined for anything without metadata.name/uid (skipped, never fatal). */
export function parseObject(json: string | undefined): WorkloadObject | undefined {
  if (json === undefined) return undefined;
  let o: unknown;
  try {
    o = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (!isObject(o) || !isObject(o.metadata)) return undefined;
  const m = o.metadata as ObjectMeta;
  if (typeof m.name !== 'string' || typeof m.uid !== 'string') return undefined;
  if (!isObject(o.spec)) o.spec = {};
  if (!isObject(o.status)) o.status = {};
  return o as WorkloadObject;
}

/**
 * The object before and after a change, parsed once for every built-in controller that only reads
 * them: storage hands each watcher the same Change object, one watcher after another, so a pod
 * write is parsed once, not once per controller routing it. One slot, not a map keyed by change:
 * the watch history keeps its changes, and a map would keep their parsed objects with them.
 * Callers must not modify what they get.
 */
let lastChange: Change | undefined;
let lastParsed: { prev?: WorkloadObject; next?: WorkloadObject } = {};

export function parsedChange(c: Change): { prev?: WorkloadObject; next?: WorkloadObject } {
  if (c !== lastChange) {
    const deleted = c.type === 'DELETED';
    lastParsed = { next: deleted ? undefined : parseObject(c.json), prev: parseObject(deleted ? c.json : c.prevJson) };
    lastChange = c;
  }
  return lastParsed;
}

/** The parsable objects stored under `prefix` (of `namespace` when given). */
export function listObjects(storage: Storage, prefix: string, namespace?: string): WorkloadObject[] {
  return storage
    .list(namespace === undefined ? prefix : `${prefix}${namespace}/`)
    .map((s) => parseObject(s.json))
    .filter((o): o is WorkloadObject => o !== undefined);
}

/** A non-negative integer field, or `dflt` when missing or mistyped. */
export function int(v: unknown, dflt = 0): number {
  return typeof v === 'number' && Number.isFinite(v) ? Math.max(0, Math.trunc(v)) : dflt;
}

export function labelsOf(o: { metadata?: unknown } | undefined): Record<string, string> {
  const l = isObject(o?.metadata) ? (o.metadata as ObjectMeta).labels : undefined;
  if (!isObject(l)) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(l)) if (typeof v === 'string') out[k] = v;
  return out;
}

export function annotationsOf(o: WorkloadObject): Record<string, string> {
  const a = o.metadata.annotations;
  return isObject(a) ? (a as Record<string, string>) : {};
}

export function controllerRef(meta: ObjectMeta | undefined): OwnerReference | undefined {
  const refs = meta?.ownerReferences;
  if (!Array.isArray(refs)) return undefined;
  return refs.find((r) => isObject(r) && r.controller === true && typeof r.uid === 'string');
}

export function isAppsV1(ref: OwnerReference, kind: string): boolean {
  return refersTo(ref, 'apps', kind);
}

/** Whether `ref` names `kind` of `group` in any version (core: apiVersion without a group). */
export function refersTo(ref: OwnerReference, group: string, kind: string): boolean {
  if (ref.kind !== kind || typeof ref.apiVersion !== 'string') return false;
  return group === '' ? !ref.apiVersion.includes('/') : ref.apiVersion.startsWith(`${group}/`);
}

export function ownerRefTo(kind: string, owner: WorkloadObject, apiVersion = 'apps/v1'): OwnerReference {
  return {
    apiVersion,
    kind,
    name: owner.metadata.name!,
    uid: owner.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** A selector as a predicate; undefined when it selects nothing or is malformed. */
export function selectorMatcher(
  sel: unknown,
): { all: boolean; matches: (l: Record<string, string>) => boolean } | undefined {
  const c = compileSelector(sel);
  if (c.kind === 'everything') return { all: true, matches: () => true };
  if (c.kind === 'match') return { all: false, matches: c.matches };
  return undefined;
}

export function nsAndName(key: string): [string, string] {
  const i = key.indexOf('/');
  return [key.slice(0, i), key.slice(i + 1)];
}

// ---------------------------------------------------------------- pods

export function phaseOf(pod: WorkloadObject): string {
  return typeof pod.status.phase === 'string' ? pod.status.phase : '';
}

/** controller.IsPodActive: not terminal and not being deleted. */
export function isActive(pod: WorkloadObject): boolean {
  return !isPodTerminal(pod) && !pod.metadata.deletionTimestamp;
}

/** When the pod last became Ready (ms), or undefined. */
export function readySince(pod: WorkloadObject): number | undefined {
  const c = statusCondition(pod, 'Ready');
  if (c?.status !== 'True' || typeof c.lastTransitionTime !== 'string') return undefined;
  const t = Date.parse(c.lastTransitionTime);
  return Number.isNaN(t) ? undefined : t;
}

/**
 * podutil.IsPodAvailable: Ready for at least minReadySeconds. Returns the ms left until it
 * becomes available when it is Ready but not yet available (so callers can requeue then).
 */
export function availability(pod: WorkloadObject, minReadySeconds: number, now: number): true | number | false {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds <= 0) return true;
  const since = readySince(pod);
  if (since === undefined) return 1000;
  const left = since + minReadySeconds * 1000 - now;
  return left < 0 ? true : left + 1;
}

/** Ready and available pods as a status counts them, and when the soonest Ready one becomes available. */
export class AvailabilityCount {
  ready = 0;
  available = 0;
  /** ms until a Ready pod becomes available, when one is waiting for minReadySeconds. */
  recheckIn: number | undefined;

  /** Counts one pod by its {@link availability} (false: not Ready). */
  add(a: true | number | false): void {
    if (a === false) return;
    this.ready++;
    if (a === true) this.available++;
    else this.recheckIn = Math.min(this.recheckIn ?? a, a);
  }
}

export function creationTime(o: WorkloadObject): number {
  const t = typeof o.metadata.creationTimestamp === 'string' ? Date.parse(o.metadata.creationTimestamp) : NaN;
  return Number.isNaN(t) ? 0 : t;
}

/** controller.ReplicaSetsByCreationTimestamp / PodsByCreationTimestamp: oldest first, then by name. */
export function byCreation(a: WorkloadObject, b: WorkloadObject): number {
  const d = creationTime(a) - creationTime(b);
  if (d !== 0) return d;
  return a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0;
}

/** Replaces `target`'s content with `source` (arrays of objects keep pointing at the fresh copy). */
export function replaceInPlace(target: WorkloadObject, source: JsonObject): void {
  for (const k of Object.keys(target)) delete target[k];
  Object.assign(target, source);
  if (!isObject(target.spec)) target.spec = {};
  if (!isObject(target.status)) target.status = {};
}

/**
 * controller.GetPodFromTemplate: `generateName: <owner>-`, the template's labels, annotations and
 * finalizers, a controller reference with blockOwnerDeletion, and the template's spec.
 */
export function podFromTemplate(
  owner: WorkloadObject,
  ownerKind: string,
  template: JsonObject,
  ownerApiVersion = 'apps/v1',
): JsonObject {
  const tm = (isObject(template.metadata) ? template.metadata : {}) as ObjectMeta;
  const metadata: ObjectMeta = {
    generateName: `${owner.metadata.name}-`,
    namespace: owner.metadata.namespace,
    labels: { ...labelsOf(template) },
    ownerReferences: [ownerRefTo(ownerKind, owner, ownerApiVersion)],
  };
  if (isObject(tm.annotations)) metadata.annotations = { ...tm.annotations };
  if (Array.isArray(tm.finalizers) && tm.finalizers.length > 0) metadata.finalizers = [...tm.finalizers];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: metadata as JsonObject,
    spec: structuredClone(isObject(template.spec) ? template.spec : {}),
  };
}

// ---------------------------------------------------------------- errors

export function errorCode(e: unknown): number | undefined {
  const c = (e as { code?: unknown } | undefined)?.code;
  return typeof c === 'number' ? c : undefined;
}

/** A create refused because the namespace is going away: nothing to do (kube's NamespaceTerminatingCause). */
export function isNamespaceTerminating(e: unknown): boolean {
  return errorCode(e) === 403 && /being terminated/.test(String((e as Error).message));
}

/**
 * Writes `status` through the status subresource unless `o` was written since it was read: that
 * write queued another sync, which will write the status. Returns the object written, if it was.
 */
export async function writeStatusUnlessWritten(
  store: ObjectStore,
  def: ResourceDef,
  o: WorkloadObject,
  ctx: RequestContext,
  status: JsonObject,
): Promise<JsonObject | undefined> {
  const rv = o.metadata.resourceVersion;
  let applied = false;
  const written = await store.updateWith(
    def,
    o.metadata.namespace,
    o.metadata.name!,
    ctx,
    (fresh) => {
      if ((fresh.metadata as ObjectMeta).resourceVersion !== rv) return undefined;
      applied = true;
      fresh.status = status;
      return fresh;
    },
    'status',
  );
  return applied ? written : undefined;
}

/**
 * Deletes exactly the object `target` names (its uid as precondition). False when it is gone
 * already or its name now belongs to another object: either way not the caller's to delete.
 */
export async function deleteExactly(
  store: ObjectStore,
  def: ResourceDef,
  target: { namespace?: string; name?: string; uid?: string },
  ctx: RequestContext,
  propagationPolicy?: PropagationPolicy,
): Promise<boolean> {
  const options = { ...(propagationPolicy ? { propagationPolicy } : {}), preconditions: { uid: target.uid } };
  try {
    await store.delete(def, target.namespace, target.name!, options, ctx);
    return true;
  } catch (e) {
    if (errorCode(e) === 404 || errorCode(e) === 409) return false;
    throw e;
  }
}

/** Raised inside a sync when what it read is no longer current; the key is already requeued. */
export class StaleRead extends Error {
  constructor(what: string) {
    super(`${what} changed while syncing`);
  }
}

/** Per-key backoff for failed syncs: 0.5 s doubling to 30 s, forgotten on success. */
export function syncBackoff(): ItemExponentialBackoff {
  return new ItemExponentialBackoff(500, 30_000);
}

/**
 * A failed sync of `key`: queued again after its backoff. A conflict is expected now and then;
 * anything else is worth a line, once per streak of failures.
 */
export function retryAfterBackoff(
  loop: WorkLoop,
  backoff: ItemExponentialBackoff,
  component: string,
  key: string,
  e: unknown,
): void {
  const delay = backoff.next(key);
  if (errorCode(e) !== 409 && backoff.failures(key) === 1)
    console.error(`peerpods ${component}: ${key}: ${(e as Error).message}`);
  loop.addAfter(key, delay);
}

/**
 * controller.slowStartBatch: runs `count` calls in batches of 1, 2, 4, ... so a call that keeps
 * failing (quota, webhook denial) costs one request, not `count`. Stops at the first failing batch.
 */
export async function slowStartBatch(
  count: number,
  fn: (i: number) => Promise<void>,
): Promise<{ successes: number; error?: unknown }> {
  let remaining = count;
  let successes = 0;
  let index = 0;
  for (let batch = Math.min(remaining, 1); batch > 0; batch = Math.min(2 * batch, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, () => fn(index++)));
    successes += results.filter((r) => r.status === 'fulfilled').length;
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) return { successes, error: failed.reason };
    remaining -= batch;
  }
  return { successes };
}

// ---------------------------------------------------------------- claiming

/**
 * ControllerRefManager.ClaimObject over `candidates` (same namespace): objects controlled by
 * `owner` whose labels still match are kept, those that no longer match are released, and
 * orphans that match are adopted (not while the owner or the orphan is being deleted, and only
 * when `canAdopt`, e.g. active pods). Returns the objects `owner` controls afterwards.
 */
export async function claim(opts: {
  owner: WorkloadObject;
  ownerKind: string;
  /** The owner's apiVersion in the references it writes; apps/v1 unless given. */
  ownerApiVersion?: string;
  candidates: WorkloadObject[];
  matches: (labels: Record<string, string>) => boolean;
  canAdopt?: (o: WorkloadObject) => boolean;
  update: (o: WorkloadObject, mutate: (fresh: JsonObject) => JsonObject | undefined) => Promise<JsonObject | undefined>;
}): Promise<WorkloadObject[]> {
  const { owner } = opts;
  const uid = owner.metadata.uid!;
  const ownerDeleting = Boolean(owner.metadata.deletionTimestamp);
  const owned: WorkloadObject[] = [];
  for (const c of opts.candidates) {
    const ref = controllerRef(c.metadata);
    const matches = opts.matches(labelsOf(c));
    if (ref) {
      if (ref.uid !== uid) continue;
      if (matches) {
        owned.push(c);
        continue;
      }
      if (ownerDeleting) continue;
      await opts.update(c, (fresh) => {
        const m = fresh.metadata as ObjectMeta;
        if (m.uid !== c.metadata.uid || !Array.isArray(m.ownerReferences)) return undefined;
        m.ownerReferences = m.ownerReferences.filter((r) => r.uid !== uid);
        if (m.ownerReferences.length === 0) delete m.ownerReferences;
        return fresh;
      });
      continue;
    }
    if (ownerDeleting || !matches || c.metadata.deletionTimestamp || (opts.canAdopt && !opts.canAdopt(c))) continue;
    let adopted = false;
    const written = await opts.update(c, (fresh) => {
      const m = fresh.metadata as ObjectMeta;
      if (m.uid !== c.metadata.uid || m.deletionTimestamp || controllerRef(m)) return undefined;
      m.ownerReferences = [
        ...(Array.isArray(m.ownerReferences) ? m.ownerReferences : []),
        ownerRefTo(opts.ownerKind, owner, opts.ownerApiVersion),
      ];
      adopted = true;
      return fresh;
    });
    if (adopted && written) {
      const parsed = parseObject(JSON.stringify(written));
      if (parsed && controllerRef(parsed.metadata)?.uid === uid) owned.push(parsed);
    }
  }
  return owned;
}
