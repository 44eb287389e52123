// Keys waiting for a point in time (requeueAfter, retry backoff). A binary min-heap with lazy
// deletion: a key re-added with an earlier time gets a new heap entry and the old one is skipped
// when it surfaces, which keeps every operation O(log n) without an index.
import type { Priority } from './priority.ts';

interface Entry {
  at: number;
  seq: number;
  key: string;
}

export interface Due {
  key: string;
  priority: Priority;
}

export class DelayHeap {
  private heap: Entry[] = [];
  private readonly waiting = new Map<string, { at: number; priority: Priority }>();
  private seq = 0;

  get size(): number {
    return this.waiting.size;
  }

  /** Schedules `key` at `at`; a key already waiting keeps the earlier of the two times. */
  push(key: string, at: number, priority: Priority): void {
    const cur = this.waiting.get(key);
    if (cur && cur.at <= at) {
      if (priority === 'normal') cur.priority = 'normal';
      return;
    }
    this.waiting.set(key, { at, priority: cur?.priority === 'normal' ? 'normal' : priority });
    this.heap.push({ at, seq: this.seq++, key });
    this.up(this.heap.length - 1);
  }

  /** Time of the earliest waiting key. */
  peekTime(): number | undefined {
    this.dropStale();
    return this.heap[0]?.at;
  }

  /** Removes and returns every key due at or before `now`, earliest first. */
  popDue(now: number): Due[] {
    const out: Due[] = [];
    for (;;) {
      this.dropStale();
      const top = this.heap[0];
      if (!top || top.at > now) return out;
      this.removeTop();
      const w = this.waiting.get(top.key);
      this.waiting.delete(top.key);
      out.push({ key: top.key, priority: w?.priority ?? 'normal' });
    }
  }

  clear(): void {
    this.heap = [];
    this.waiting.clear();
  }

  private dropStale(): void {
    while (this.heap.length > 0) {
      const top = this.heap[0];
      if (this.waiting.get(top.key)?.at === top.at) return;
      this.removeTop();
    }
  }

  private removeTop(): void {
    const last = this.heap.pop() as Entry;
    if (this.heap.length > 0) {
      this.heap[0] = last;
      this.down(0);
    }
  }

  private less(a: Entry, b: Entry): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  private up(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(h[i], h[p])) return;
      [h[i], h[p]] = [h[p], h[i]];
      i = p;
    }
  }

  private down(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.less(h[l], h[m])) m = l;
      if (r < h.length && this.less(h[r], h[m])) m = r;
      if (m === i) return;
      [h[i], h[m]] = [h[m], h[i]];
      i = m;
    }
  }
}
