// A tiny deduplicating work loop for the built-in controllers. They are fed synchronously by
// storage change notifications, so work is deferred to later ticks and never runs inside a write.
export class WorkLoop {
  private readonly pending = new Set<string>();
  private readonly delayed = new Map<string, NodeJS.Timeout>();
  private scheduled = false;
  private running = false;
  private stopped = false;

  constructor(
    private readonly name: string,
    private readonly process: (key: string) => Promise<void>,
  ) {}

  add(key: string): void {
    if (this.stopped) return;
    this.pending.add(key);
    this.schedule();
  }

  addAfter(key: string, ms: number): void {
    if (this.stopped || this.delayed.has(key)) return;
    const t = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, ms);
    t.unref();
    this.delayed.set(key, t);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.delayed.values()) clearTimeout(t);
    this.delayed.clear();
    this.pending.clear();
  }

  /** Resolves once nothing is pending or running (tests and shutdown). */
  async idle(): Promise<void> {
    while (this.pending.size > 0 || this.running) await new Promise((r) => setImmediate(r));
  }

  private schedule(): void {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    setImmediate(() => void this.drain());
  }

  private async drain(): Promise<void> {
    this.scheduled = false;
    this.running = true;
    try {
      while (this.pending.size > 0 && !this.stopped) {
        const [key] = this.pending;
        this.pending.delete(key);
        try {
          await this.process(key);
        } catch (e) {
          console.error(`peerpods ${this.name}: ${key}: ${(e as Error).message}`);
          this.addAfter(key, 500);
        }
      }
    } finally {
      this.running = false;
    }
    if (this.pending.size > 0) this.schedule();
  }
}
