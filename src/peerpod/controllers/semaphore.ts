// A counting semaphore: bounds the calls in flight to one cloud, so a burst of dangling PeerPods
// cannot trip the cloud's API rate limits while workers stay free for other providers' keys.
interface Waiter {
  grant: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
}

export class Semaphore {
  private inUse = 0;
  private readonly waiters: Waiter[] = [];
  private readonly bySignal = new Map<AbortSignal, Set<Waiter>>();
  /** Highest number of holders seen at once (reported by the benchmark). */
  maxObserved = 0;

  constructor(readonly limit: number) {
    if (!(limit >= 1)) throw new RangeError(`semaphore limit must be at least 1, got ${limit}`);
  }

  get held(): number {
    return this.inUse;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.inUse < this.limit) {
      this.take();
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { grant: resolve, reject, signal };
      this.waiters.push(waiter);
      if (signal) this.watch(signal, waiter);
    });
  }

  // Reconciles share one signal per controller run: one listener per signal, not one per waiter
  // (hundreds of waiters would otherwise trip Node's max-listeners warning).
  private watch(signal: AbortSignal, waiter: Waiter): void {
    let set = this.bySignal.get(signal);
    if (!set) {
      const waiting = new Set<Waiter>();
      set = waiting;
      this.bySignal.set(signal, waiting);
      signal.addEventListener(
        'abort',
        () => {
          this.bySignal.delete(signal);
          for (const w of waiting) {
            const i = this.waiters.indexOf(w);
            if (i >= 0) this.waiters.splice(i, 1);
            w.reject(signal.reason);
          }
        },
        { once: true },
      );
    }
    set.add(waiter);
  }

  private take(): void {
    this.inUse++;
    this.maxObserved = Math.max(this.maxObserved, this.inUse);
  }

  private release(): void {
    this.inUse--;
    const next = this.waiters.shift();
    if (!next) return;
    if (next.signal) this.bySignal.get(next.signal)?.delete(next);
    this.take();
    next.grant();
  }
}
