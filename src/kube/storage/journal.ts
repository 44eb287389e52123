// The seam between the in-memory index (memory.ts, which has the semantics) and a durable backend
// (sqlite.ts): every write goes to the journal before it counts, and a backend loads a snapshot
// back into a fresh index when it opens.
import type { Change, StoredObject } from './storage.ts';

/**
 * Where each change is persisted before it is applied in memory and before any watcher sees it:
 * a write the journal refuses (throws) never happened.
 */
export interface StorageJournal {
  append(change: Change): void;
  /** Every change up to `through` is forgotten (explicit compaction). */
  compacted(through: number): void;
}

/** What a durable backend loads back when it opens. */
export interface StorageSnapshot {
  revision: number;
  /** Changes up to this revision are forgotten: watches from before it answer 410. */
  compactedThrough: number;
  objects: Iterable<StoredObject>;
  /** The kept changes, oldest first. */
  history: Iterable<Change>;
}
