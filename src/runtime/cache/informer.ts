// A shared informer: one reflector + one store for a kind and scope, fanned out to any number of
// event handlers. Objects handed out are shared with every reader and handler and must be treated
// as immutable: copy (structuredClone) before changing one. Reads never copy, but the store keeps
// JSON text (see store.ts), so once no one holds an object a later read gets a fresh, equal
// instance: compare objects by resourceVersion, never by identity across reads.
import type { Logger } from 'pino';
import type { KubeClient } from '../client/client.ts';
import type { KubeObject, ResourceType } from '../client/types.ts';
import { listWatchFor } from './list-watch.ts';
import type { ListerWatcher } from './list-watch.ts';
import { cacheMetrics } from './metrics.ts';
import type { CacheMetrics } from './metrics.ts';
import { resolveInformerOptions } from './options.ts';
import type { InformerOptions, InformerOverrides, ResolvedInformerOptions } from './options.ts';
import { Reflector, describeError } from './reflector.ts';
import type { ReflectorSink } from './reflector.ts';
import { resourceVersionReached } from './resource-version.ts';
import { describeScope, normalizeScope } from './scope.ts';
import type { Scope } from './scope.ts';
import { Store, keyOf, objectKey } from './store.ts';
import type { TimerHandle } from '../util/clock.ts';
import { deepFreeze } from './transform.ts';
import type { Transform } from './transform.ts';

export interface EventHandler<T> {
  /** `isInitialList`: the object came from the first list, or is a synthetic add for a late handler. */
  onAdd?(obj: T, isInitialList: boolean): void;
  onUpdate?(oldObj: T, newObj: T): void;
  /** The last known state of the object. */
  onDelete?(obj: T): void;
}

export class CacheSyncTimeoutError extends Error {
  constructor(name: string, ms: number, lastError: unknown) {
    super(
      `cache for ${name} did not sync within ${ms} ms` +
        (lastError !== undefined ? ` (last error: ${describeError(lastError)})` : ''),
    );
    this.name = 'CacheSyncTimeoutError';
  }
}

interface RVWaiter {
  rv: string;
  resolve: (reached: boolean) => void;
  timer: TimerHandle | undefined;
}

export class SharedInformer<T extends KubeObject> {
  readonly type: ResourceType;
  readonly scope: Scope;
  /** "pods.v1" or "pods.v1 namespace=a,labels=app=x", for logs and errors. */
  readonly name: string;
  private readonly store: Store<T>;
  private readonly reflector: Reflector<T>;
  private readonly opts: ResolvedInformerOptions;
  private readonly transform: Transform<T> | null;
  private readonly logger: Logger;
  private readonly metrics:
    { metrics: CacheMetrics; labels: { kind: string; group: string; scope: string } } | undefined;
  private handlers: EventHandler<T>[] = [];
  private synced = false;
  private isHealthy = false;
  private started = false;
  private stopped = false;
  private rv = '';
  private rvWaiters: RVWaiter[] = [];
  private syncWaiters: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];

  constructor(
    type: ResourceType,
    scope: Scope | undefined,
    listerWatcher: ListerWatcher<T>,
    options: InformerOptions = {},
    overrides: InformerOverrides<T> = {},
  ) {
    this.type = type;
    this.scope = normalizeScope(type, scope);
    const scopeText = describeScope(this.scope);
    this.name = `${type.group ? `${type.plural}.${type.group}` : type.plural}${scopeText ? ` ${scopeText}` : ''}`;
    // Resolving is idempotent, so already-resolved options (from a factory) pass through unchanged.
    this.opts = resolveInformerOptions(options);
    this.transform =
      overrides.transform === undefined ? (this.opts.transform as Transform<T> | null) : overrides.transform;
    this.logger = this.opts.logger.child({ informer: this.name });
    this.metrics = this.opts.metricsRegistry
      ? {
          metrics: cacheMetrics(this.opts.metricsRegistry),
          labels: { kind: type.kind, group: type.group, scope: scopeText },
        }
      : undefined;
    this.store = new Store<T>({
      onIndexError: (index, obj, err) => {
        this.countHandlerError();
        this.logger.error({ index, object: objectKey(obj), err: describeError(err) }, 'index function threw');
      },
      freezeObjects: this.opts.freezeObjects,
      keepParsedObjects: this.opts.keepParsedObjects,
    });
    for (const [name, fn] of Object.entries(overrides.indexers ?? {})) this.store.addIndex(name, fn);
    this.reflector = new Reflector<T>({
      name: this.name,
      listerWatcher,
      sink: this.sink(),
      options: this.opts,
      logger: this.logger,
      ...(this.metrics ? { metrics: this.metrics } : {}),
    });
    this.setGauge('synced', 0);
    this.setGauge('healthy', 0);
  }

  /** An informer over a client's list and watch calls. */
  static forClient<T extends KubeObject>(
    client: KubeClient,
    type: ResourceType,
    scope?: Scope,
    options?: InformerOptions,
    overrides?: InformerOverrides<T>,
  ): SharedInformer<T> {
    const s = normalizeScope(type, scope);
    return new SharedInformer<T>(type, s, listWatchFor<T>(client, type, s), options, overrides);
  }

  /** Registers a handler. If objects are already cached, it first gets a synthetic add for each. */
  addHandler(h: EventHandler<T>): void {
    this.handlers.push(h);
    if (h.onAdd && this.store.size > 0) {
      for (const obj of this.store.list()) this.call(() => h.onAdd!(obj, true));
    }
  }

  removeHandler(h: EventHandler<T>): void {
    this.handlers = this.handlers.filter((x) => x !== h);
  }

  /** Starts listing and watching in the background. Idempotent. */
  start(): void {
    if (this.stopped) throw new Error(`informer ${this.name} was stopped; informers cannot be restarted`);
    if (this.started) return;
    this.started = true;
    this.reflector.start();
  }

  /** Stops the reflector; pending read-your-writes waits resolve false and sync waits reject. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.reflector.stop();
    for (const w of this.rvWaiters) {
      this.opts.clock.clearTimeout(w.timer);
      w.resolve(false);
    }
    this.rvWaiters = [];
    for (const w of this.syncWaiters) w.reject(new Error(`informer ${this.name} stopped before it synced`));
    this.syncWaiters = [];
  }

  isStarted(): boolean {
    return this.started && !this.stopped;
  }

  /** True once the first complete list has been stored and delivered to handlers. Stays true. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves once synced; rejects with {@link CacheSyncTimeoutError} after `timeoutMs`, or on abort/stop. */
  waitForSync(signal?: AbortSignal, timeoutMs?: number): Promise<void> {
    if (this.synced) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      let timer: TimerHandle | undefined;
      const done = (): void => {
        this.opts.clock.clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.syncWaiters = this.syncWaiters.filter((w) => w !== waiter);
      };
      const waiter = {
        resolve: () => {
          done();
          resolve();
        },
        reject: (e: Error) => {
          done();
          reject(e);
        },
      };
      const onAbort = (): void => waiter.reject(signal!.reason as Error);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs !== undefined) {
        timer = this.opts.clock.setTimeout(
          () => waiter.reject(new CacheSyncTimeoutError(this.name, timeoutMs, this.reflector.lastError())),
          timeoutMs,
        );
      }
      this.syncWaiters.push(waiter);
    });
  }

  /** False while listing or watching fails (and before the first successful list). */
  healthy(): boolean {
    return this.isHealthy;
  }

  /** The most recent list/watch failure, if any. */
  lastError(): unknown {
    return this.reflector.lastError();
  }

  /** `namespace` is ignored for cluster-scoped kinds. */
  get(namespace: string | undefined, name: string): T | undefined {
    return this.store.get(keyOf(this.type.namespaced ? namespace : undefined, name));
  }

  /** All cached objects, or those of one namespace. */
  list(namespace?: string): T[] {
    return namespace ? this.store.byIndex('namespace', namespace) : this.store.list();
  }

  size(): number {
    return this.store.size;
  }

  /** Objects whose index function returned `value`. Built in: "namespace", "ownerUid". */
  byIndex(index: string, value: string): T[] {
    return this.store.byIndex(index, value);
  }

  /** Adds an index (built over existing objects at once). Names must be unique. */
  addIndex(name: string, fn: (obj: T) => string[]): void {
    this.store.addIndex(name, fn);
  }

  hasIndex(name: string): boolean {
    return this.store.hasIndex(name);
  }

  /** The newest resourceVersion seen (list, event or bookmark); "" before the first list. */
  lastResourceVersion(): string {
    return this.rv;
  }

  /**
   * Read-your-writes: resolves true once the cache has seen `rv` (e.g. from the response to our own
   * write), false after `timeoutMs` (default `readYourWritesTimeoutMs`) or when the informer stops.
   * RVs are compared as integers, so an event or bookmark past `rv` also counts.
   */
  waitForResourceVersion(rv: string, timeoutMs?: number): Promise<boolean> {
    if (!rv || resourceVersionReached(this.rv, rv)) return Promise.resolve(true);
    if (this.stopped) return Promise.resolve(false);
    const ms = timeoutMs ?? this.opts.readYourWritesTimeoutMs;
    return new Promise<boolean>((resolve) => {
      const waiter: RVWaiter = { rv, resolve, timer: undefined };
      waiter.timer = this.opts.clock.setTimeout(() => {
        this.rvWaiters = this.rvWaiters.filter((w) => w !== waiter);
        resolve(false);
      }, ms);
      this.rvWaiters.push(waiter);
    });
  }

  private sink(): ReflectorSink<T> {
    return {
      replace: (items, rv) => this.onReplace(items, rv),
      event: (type, obj) => this.onEvent(type, obj),
      bookmark: (rv) => this.advance(rv),
      health: (healthy, err) => this.onHealth(healthy, err),
    };
  }

  private onReplace(items: T[], rv: string): void {
    const initial = !this.synced;
    const diff = this.store.replace(items.map((o) => this.prepare(o)));
    for (const obj of diff.deleted) this.each((h) => h.onDelete?.(obj));
    for (const [oldObj, newObj] of diff.updated) this.each((h) => h.onUpdate?.(oldObj, newObj));
    for (const obj of diff.added) this.each((h) => h.onAdd?.(obj, initial));
    if (!initial) {
      this.logger.info(
        { added: diff.added.length, updated: diff.updated.length, deleted: diff.deleted.length, resourceVersion: rv },
        'relist applied',
      );
    }
    this.setGauge('objects', this.store.size);
    this.advance(rv);
    if (initial) {
      this.synced = true;
      this.setGauge('synced', 1);
      for (const w of [...this.syncWaiters]) w.resolve();
    }
  }

  private onEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', raw: T): void {
    const obj = this.prepare(raw);
    if (type === 'DELETED') {
      // Handlers get the event's final state, so the cached copy need not be parsed.
      this.store.discard(objectKey(obj));
      this.each((h) => h.onDelete?.(obj));
    } else {
      const old = this.store.get(objectKey(obj));
      // A replayed event for a version we already hold changes nothing; don't wake handlers for it.
      if (old && old.metadata.resourceVersion && old.metadata.resourceVersion === obj.metadata.resourceVersion) {
        this.advance(obj.metadata.resourceVersion ?? '');
        return;
      }
      this.store.upsert(obj);
      if (old) this.each((h) => h.onUpdate?.(old, obj));
      else this.each((h) => h.onAdd?.(obj, false));
    }
    this.setGauge('objects', this.store.size);
    if (obj.metadata.resourceVersion) this.advance(obj.metadata.resourceVersion);
  }

  private onHealth(healthy: boolean, err?: unknown): void {
    if (healthy === this.isHealthy) return;
    this.isHealthy = healthy;
    this.setGauge('healthy', healthy ? 1 : 0);
    if (healthy) this.logger.info('list/watch healthy');
    else this.logger.warn({ err: describeError(err) }, 'list/watch failing');
  }

  private advance(rv: string): void {
    if (!rv) return;
    this.rv = rv;
    if (this.rvWaiters.length === 0) return;
    const still: RVWaiter[] = [];
    for (const w of this.rvWaiters) {
      if (resourceVersionReached(rv, w.rv)) {
        this.opts.clock.clearTimeout(w.timer);
        w.resolve(true);
      } else still.push(w);
    }
    this.rvWaiters = still;
  }

  private prepare(obj: T): T {
    let out = obj;
    if (this.transform) {
      try {
        out = this.transform(obj);
      } catch (e) {
        this.countHandlerError();
        this.logger.error(
          { object: objectKey(obj), err: describeError(e) },
          'transform threw; caching the object as received',
        );
        out = obj;
      }
    }
    return this.opts.freezeObjects ? deepFreeze(out) : out;
  }

  private each(fn: (h: EventHandler<T>) => void): void {
    for (const h of this.handlers) this.call(() => fn(h));
  }

  private call(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.countHandlerError();
      this.logger.error({ err: describeError(e) }, 'event handler threw');
    }
  }

  private countHandlerError(): void {
    if (this.metrics) this.metrics.metrics.handlerErrors.inc(this.metrics.labels);
  }

  private setGauge(name: 'objects' | 'synced' | 'healthy', value: number): void {
    if (this.metrics) this.metrics.metrics[name].set(this.metrics.labels, value);
  }
}
