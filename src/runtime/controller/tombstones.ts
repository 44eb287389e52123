// The last state of deleted objects, per request key, so a "gone" reconcile can see what was
// deleted. Bounded: a controller that never reconciles a key again (a predicate filtered the
// delete, or the key was dropped on shutdown) must not keep its object forever. The oldest entry
// is evicted first; an evicted key still reconciles, only without its last state.

export class Tombstones<T> {
  private readonly entries = new Map<string, T>();

  constructor(private readonly limit: number) {}

  /** Records `obj` as the last state of `key`, replacing an older record of it. */
  remember(key: string, obj: T): void {
    if (this.limit <= 0) return;
    // Re-inserting moves the key to the newest end, so eviction stays oldest-first.
    this.entries.delete(key);
    this.entries.set(key, obj);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value as string);
  }

  get(key: string): T | undefined {
    return this.entries.get(key);
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  /** Drops the record of `key` only if it is still `seen`: a deletion recorded since is kept. */
  forgetSeen(key: string, seen: T | undefined): void {
    if (this.entries.get(key) === seen) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
