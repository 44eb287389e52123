// Hands out one shared informer per kind and scope, and starts, syncs and stops them together.
import type { KubeClient } from '../client/client.ts';
import { resourceKey } from '../client/resources.ts';
import type { KubeObject, ResourceType } from '../client/types.ts';
import { SharedInformer } from './informer.ts';
import { listWatchFor } from './list-watch.ts';
import type { ListerWatcher } from './list-watch.ts';
import { resolveInformerOptions } from './options.ts';
import type { InformerOptions, InformerOverrides, ResolvedInformerOptions } from './options.ts';
import { describeScope, informerKey, normalizeScope } from './scope.ts';
import type { Scope } from './scope.ts';

export interface InformerFactoryOptions extends InformerOptions {
  /**
   * Builds the list/watch calls for a kind and scope. Default: the client's `list` and `watch`.
   * Tests pass a fake here.
   */
  listerWatcher?: (type: ResourceType, scope: Scope) => ListerWatcher<KubeObject>;
}

export interface InformerStatus {
  kind: string;
  group: string;
  scope: string;
  synced: boolean;
  healthy: boolean;
  objects: number;
  resourceVersion: string;
  lastError?: string;
}

export class InformerFactory {
  readonly options: ResolvedInformerOptions;
  private readonly informersByKey = new Map<string, SharedInformer<KubeObject>>();
  private readonly makeListerWatcher: (type: ResourceType, scope: Scope) => ListerWatcher<KubeObject>;
  private started = false;
  private stopped = false;

  constructor(client: KubeClient | null, opts: InformerFactoryOptions = {}) {
    const { listerWatcher, ...rest } = opts;
    this.options = resolveInformerOptions(rest);
    if (listerWatcher) this.makeListerWatcher = listerWatcher;
    else if (client) this.makeListerWatcher = (type, scope) => listWatchFor(client, type, scope);
    else throw new TypeError('InformerFactory needs a client or a listerWatcher');
  }

  /**
   * The shared informer for `type` within `scope` (created on first use; started at once when the
   * factory is already running). Each distinct scope is a separate list+watch and store.
   */
  informerFor<T extends KubeObject>(
    type: ResourceType,
    scope?: Scope,
    overrides?: InformerOverrides<T>,
  ): SharedInformer<T> {
    if (this.stopped) throw new Error('InformerFactory was stopped');
    const s = normalizeScope(type, scope);
    const key = informerKey(type, s);
    let inf = this.informersByKey.get(key) as SharedInformer<T> | undefined;
    if (inf) {
      if (overrides?.transform !== undefined) {
        throw new Error(`informer ${inf.name} already exists; its transform can only be set when it is created`);
      }
      for (const [name, fn] of Object.entries(overrides?.indexers ?? {})) {
        if (!inf.hasIndex(name)) inf.addIndex(name, fn);
      }
      return inf;
    }
    const lw = this.makeListerWatcher(type, s) as unknown as ListerWatcher<T>;
    inf = new SharedInformer<T>(type, s, lw, this.options, overrides);
    this.informersByKey.set(key, inf as unknown as SharedInformer<KubeObject>);
    if (this.started) inf.start();
    return inf;
  }

  /** The informer for exactly this kind and scope, if one was created. */
  find<T extends KubeObject>(type: ResourceType, scope?: Scope): SharedInformer<T> | undefined {
    return this.informersByKey.get(informerKey(type, normalizeScope(type, scope))) as SharedInformer<T> | undefined;
  }

  /** Every informer of a kind, whatever its scope. */
  informersOf<T extends KubeObject>(type: ResourceType): SharedInformer<T>[] {
    const prefix = `${resourceKey(type)}|`;
    return [...this.informersByKey.entries()]
      .filter(([k]) => k.startsWith(prefix))
      .map(([, v]) => v as unknown as SharedInformer<T>);
  }

  informers(): SharedInformer<KubeObject>[] {
    return [...this.informersByKey.values()];
  }

  /** Starts every informer, and any created later. */
  start(): void {
    if (this.stopped) throw new Error('InformerFactory was stopped');
    this.started = true;
    for (const inf of this.informersByKey.values()) inf.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.informersByKey.values()].map((i) => i.stop()));
  }

  /** Waits until every informer created so far has synced (controller-runtime's CacheSyncTimeout is 2 min). */
  async waitForSync(signal?: AbortSignal, timeoutMs?: number): Promise<void> {
    await Promise.all([...this.informersByKey.values()].map((i) => i.waitForSync(signal, timeoutMs)));
  }

  allSynced(): boolean {
    for (const inf of this.informersByKey.values()) if (!inf.hasSynced()) return false;
    return true;
  }

  /** For readiness: every informer synced and currently listing/watching successfully. */
  healthy(): boolean {
    for (const inf of this.informersByKey.values()) if (!inf.hasSynced() || !inf.healthy()) return false;
    return true;
  }

  status(): InformerStatus[] {
    return this.informers().map((inf) => {
      const err = inf.lastError();
      return {
        kind: inf.type.kind,
        group: inf.type.group,
        scope: describeScope(inf.scope),
        synced: inf.hasSynced(),
        healthy: inf.healthy(),
        objects: inf.size(),
        resourceVersion: inf.lastResourceVersion(),
        ...(err !== undefined && !inf.healthy() ? { lastError: err instanceof Error ? err.message : String(err) } : {}),
      };
    });
  }
}
