// Time source used by everything in the runtime that waits, so tests can drive time by hand
// instead of sleeping (backoff, watchdogs, watch timeouts, queue delays).

/** Opaque handle returned by {@link Clock.setTimeout}. */
export type TimerHandle = object;

export interface Clock {
  /** Milliseconds since the epoch (like `Date.now()`). */
  now(): number;
  /** Runs `fn` once after `ms` milliseconds. Like Node's timers, a pending real timer keeps the process alive. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle | undefined): void;
  /** Resolves after `ms`; rejects with the signal's reason when `signal` aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

function sleepWith(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clock.clearTimeout(handle);
      reject(abortReason(signal as AbortSignal));
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The wall clock. */
export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    return setTimeout(fn, Math.max(0, ms)) as unknown as TimerHandle;
  },
  clearTimeout(handle) {
    if (handle !== undefined) clearTimeout(handle as unknown as ReturnType<typeof setTimeout>);
  },
  sleep(ms, signal) {
    return sleepWith(realClock, ms, signal);
  },
};

interface FakeTimer {
  id: number;
  at: number;
  fn: () => void;
}

/**
 * A manually advanced clock for tests. Timers fire only inside {@link FakeClock.advance}, in due-time
 * order (ties in creation order); a timer scheduled by a firing timer runs in the same `advance` call
 * if it falls due within the window.
 */
export class FakeClock implements Clock {
  private current: number;
  private nextId = 1;
  private timers: FakeTimer[] = [];

  constructor(startMs = 1_700_000_000_000) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer: FakeTimer = { id: this.nextId++, at: this.current + Math.max(0, ms), fn };
    this.timers.push(timer);
    return { id: timer.id } as TimerHandle;
  }

  clearTimeout(handle: TimerHandle | undefined): void {
    if (handle === undefined) return;
    const id = (handle as { id?: number }).id;
    this.timers = this.timers.filter((t) => t.id !== id);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepWith(this, ms, signal);
  }

  /** Number of timers not yet fired. */
  pending(): number {
    return this.timers.length;
  }

  /** Due time of the earliest pending timer, if any. */
  nextDueAt(): number | undefined {
    let min: number | undefined;
    for (const t of this.timers) if (min === undefined || t.at < min) min = t.at;
    return min;
  }

  /**
   * Moves time forward by `ms`, firing due timers in order. Before each timer it yields to the event
   * loop (one `setImmediate`), so promise continuations, such as code after `await clock.sleep()`,
   * run and can schedule further timers before the next one is checked.
   */
  async advance(ms: number): Promise<void> {
    const target = this.current + Math.max(0, ms);
    for (;;) {
      await settle();
      const due = this.popDue(target);
      if (!due) break;
      this.current = Math.max(this.current, due.at);
      due.fn();
    }
    this.current = target;
    await settle();
  }

  /** Synchronous variant: fires due timers without yielding between them. */
  advanceSync(ms: number): void {
    const target = this.current + Math.max(0, ms);
    for (;;) {
      const due = this.popDue(target);
      if (!due) break;
      this.current = Math.max(this.current, due.at);
      due.fn();
    }
    this.current = target;
  }

  private popDue(target: number): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.timers) {
      if (t.at <= target && (!best || t.at < best.at || (t.at === best.at && t.id < best.id))) best = t;
    }
    if (best) this.timers = this.timers.filter((t) => t !== best);
    return best;
  }
}

/** Lets pending promise continuations run (several rounds, since chains of awaits need several turns). */
export async function flushMicrotasks(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}

/** Yields to the event loop once: every queued microtask runs, and so do ready I/O callbacks. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
