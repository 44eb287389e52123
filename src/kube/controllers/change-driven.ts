// Base of the built-in controllers that react to the storage change stream: every change in the
// cluster is offered to `observe` synchronously (inside the write), which only decides what to
// enqueue; `process` does the work later, one key at a time.
import type { Change, Storage, Watcher } from '../storage/storage.ts';
import type { ResourceCatalog } from '../registry/catalog.ts';
import type { ObjectStore } from '../registry/store/index.ts';
import { WorkLoop } from './work-loop.ts';

export abstract class ChangeDrivenController {
  protected readonly loop: WorkLoop;
  private watcher?: Watcher;

  constructor(
    name: string,
    protected readonly storage: Storage,
    protected readonly store: ObjectStore,
    protected readonly catalog: ResourceCatalog,
  ) {
    this.loop = new WorkLoop(name, (key) => this.process(key));
  }

  start(): void {
    this.watcher = this.storage.watch('/', this.storage.currentRevision(), (c) => this.observe(c));
  }

  stop(): void {
    this.watcher?.stop();
    this.loop.stop();
  }

  /** Resolves once nothing is queued or running (tests and shutdown). */
  idle(): Promise<void> {
    return this.loop.idle();
  }

  protected abstract observe(change: Change): void;
  protected abstract process(key: string): Promise<void>;
}
