// The versioned store behind the registry. One monotonic revision for the whole cluster (it is
// the resourceVersion clients see) and a bounded history of changes that watches replay from.
// Objects are kept as their JSON text: it is what GET, LIST and watch send, it costs about one
// byte per character, and a stored object can never be mutated by accident.
import type { KubeObject } from '../../apimachinery/meta/index.ts';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoredObject {
  readonly key: string;
  /** Revision of the last write to this object (= its resourceVersion). */
  readonly revision: number;
  /** JSON text of the object, resourceVersion included. */
  readonly json: string;
}

export interface Change {
  readonly type: ChangeType;
  readonly key: string;
  readonly revision: number;
  /** The object after the change (for DELETED: its last state, with the deletion's revision). */
  readonly json: string;
  /** The object before the change; absent for ADDED. */
  readonly prevJson?: string;
  /** Revision of `prevJson`. */
  readonly prevRevision?: number;
}

export type ChangeListener = (change: Change) => void;

export interface Watcher {
  stop(): void;
}

/** Thrown when a revision is older than the kept history (clients see 410 Gone). */
export class RevisionCompactedError extends Error {
  constructor(
    readonly requested: number,
    readonly oldest: number,
  ) {
    super(`too old resource version: ${requested} (${oldest})`);
  }
}

/** Thrown when a write's expected revision no longer matches the stored one. */
export class RevisionMismatchError extends Error {
  constructor(readonly key: string) {
    super(`revision mismatch for ${key}`);
  }
}

export class KeyExistsError extends Error {
  constructor(readonly key: string) {
    super(`key exists: ${key}`);
  }
}

export class KeyNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`key not found: ${key}`);
  }
}

export interface PageOptions {
  /** The snapshot to read; the present when absent. */
  revision?: number;
  /** Only keys after this one (exclusive): where the previous page ended. */
  after?: string;
  /** At most this many objects. */
  limit?: number;
}

export interface Page {
  items: StoredObject[];
  /** How many objects under the prefix follow the last one returned, at the page's revision. */
  remaining: number;
}

/**
 * The interface the registry relies on. Keys look like `/<group>/<resource>/<namespace>/<name>`;
 * prefixes end with `/`. Writes stamp `metadata.resourceVersion` with the new revision.
 */
export interface Storage {
  currentRevision(): number;
  /** Oldest revision a watch or a snapshot read can still start from. */
  oldestRevision(): number;
  get(key: string): StoredObject | undefined;
  /** Objects under `prefix` in key order. */
  list(prefix: string): StoredObject[];
  /** Objects under `prefix` as they were at `revision`, reconstructed from history. */
  listAt(prefix: string, revision: number): StoredObject[];
  /**
   * One page of objects under `prefix` in key order, now or at a past revision: a paged LIST
   * costs the page, not the resource. Throws RevisionCompactedError for a forgotten revision.
   */
  listPage(prefix: string, page?: PageOptions): Page;
  create(key: string, obj: KubeObject): StoredObject;
  /** `expectedRevision` guards against a concurrent write (compare-and-swap). */
  update(key: string, obj: KubeObject, expectedRevision: number): StoredObject;
  delete(key: string, expectedRevision: number): StoredObject;
  /** Replays changes after `fromRevision` under `prefix`, then streams new ones. */
  watch(prefix: string, fromRevision: number, listener: ChangeListener): Watcher;
  /** Forgets the kept history (tests use it to provoke 410s). */
  compact(): void;
  /** Number of stored objects under `prefix`. */
  count(prefix: string): number;
  /**
   * Counts memory held on behalf of a change this store handed to watchers (its encoded watch
   * line) against the history's byte bound, for as long as the change is kept. Optional.
   */
  chargeHeld?(source: object, bytes: number): void;
}
