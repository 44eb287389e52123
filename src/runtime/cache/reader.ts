// Reads through the informer cache. A read of a kind (or namespace) that no informer covers throws
// instead of quietly starting a cluster-wide informer: caching every Secret of a cluster because of
// one `get` is how operators run out of memory.
import type { KubeObject, ResourceType } from '../client/types.ts';
import type { InformerFactory } from './factory.ts';
import type { SharedInformer } from './informer.ts';
import { describeScope, isClusterWide } from './scope.ts';
import type { Scope } from './scope.ts';
import { parseLabelSelector } from '../../apimachinery/selectors/label.ts';

/** No informer covers the requested kind/namespace. Register one with `factory.informerFor(type, scope)`. */
export class NoInformerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NoInformerError';
  }
}

/** The informer exists but has not finished its first list; wait for `factory.waitForSync()` first. */
export class CacheNotSyncedError extends Error {
  constructor(name: string) {
    super(`cache for ${name} has not synced yet; wait for InformerFactory.waitForSync() before reading`);
    this.name = 'CacheNotSyncedError';
  }
}

export interface CacheReadOptions {
  /** Read from the informer of exactly this scope (needed when several scoped informers could answer). */
  scope?: Scope;
}

export interface CacheListOptions extends CacheReadOptions {
  namespace?: string;
  /** Filters cached objects client-side with the server's label selector grammar. */
  labelSelector?: string;
}

export class CacheReader {
  constructor(private readonly factory: InformerFactory) {}

  /** Returns the cached object, or undefined when it does not exist (in the informer's scope). */
  get<T extends KubeObject>(
    type: ResourceType,
    name: string,
    namespace?: string,
    opts: CacheReadOptions = {},
  ): T | undefined {
    return this.informer<T>(type, { ...opts, ...(namespace !== undefined ? { namespace } : {}) }).get(namespace, name);
  }

  list<T extends KubeObject>(type: ResourceType, opts: CacheListOptions = {}): T[] {
    const inf = this.informer<T>(type, opts);
    const items = inf.list(type.namespaced ? opts.namespace : undefined);
    if (!opts.labelSelector) return items;
    const selector = parseLabelSelector(opts.labelSelector);
    return items.filter((o) => selector.matches(o.metadata.labels));
  }

  byIndex<T extends KubeObject>(
    type: ResourceType,
    index: string,
    value: string,
    opts: CacheReadOptions & { namespace?: string } = {},
  ): T[] {
    return this.informer<T>(type, opts).byIndex(index, value);
  }

  /** Read-your-writes: waits until the informer that serves `type` (in `namespace`) has seen `rv`. */
  waitForResourceVersion(
    type: ResourceType,
    rv: string,
    opts: CacheReadOptions & { namespace?: string; timeoutMs?: number } = {},
  ): Promise<boolean> {
    return this.informer(type, { ...opts, requireSynced: false }).waitForResourceVersion(rv, opts.timeoutMs);
  }

  /**
   * The informer that answers reads of `type` in `namespace`: the exact `scope` when given; otherwise one
   * for that namespace, or a cluster-wide one, preferring informers without selectors.
   */
  informer<T extends KubeObject>(
    type: ResourceType,
    opts: CacheReadOptions & { namespace?: string; requireSynced?: boolean } = {},
  ): SharedInformer<T> {
    const inf = this.resolve<T>(type, opts);
    if (opts.requireSynced !== false && !inf.hasSynced()) throw new CacheNotSyncedError(inf.name);
    return inf;
  }

  private resolve<T extends KubeObject>(
    type: ResourceType,
    opts: CacheReadOptions & { namespace?: string },
  ): SharedInformer<T> {
    const what = `${type.kind}${type.group ? `.${type.group}` : ''}`;
    if (opts.scope) {
      const inf = this.factory.find<T>(type, opts.scope);
      if (!inf) {
        throw new NoInformerError(
          `no informer for ${what} with scope "${describeScope(opts.scope)}"; create it with factory.informerFor()`,
        );
      }
      return inf;
    }
    const all = this.factory.informersOf<T>(type);
    const ns = type.namespaced ? opts.namespace : undefined;
    const covering = all.filter((i) => !i.scope.namespace || (ns !== undefined && i.scope.namespace === ns));
    if (covering.length === 0) {
      const have = all.map((i) => `"${describeScope(i.scope)}"`).join(', ');
      throw new NoInformerError(
        `no informer caches ${what}${ns ? ` in namespace "${ns}"` : type.namespaced ? ' across all namespaces' : ''}` +
          (have ? ` (existing scopes: ${have})` : '') +
          `; register one with factory.informerFor(${type.kind}s, scope) before reading, ` +
          'or read from the API with the client',
      );
    }
    const unselected = covering.filter((i) => !i.scope.labelSelector && !i.scope.fieldSelector);
    const exactNs = unselected.find((i) => i.scope.namespace === ns && ns !== undefined);
    if (exactNs) return exactNs;
    const wide = unselected.find((i) => isClusterWide(i.scope));
    if (wide) return wide;
    if (covering.length === 1) return covering[0]!;
    throw new NoInformerError(
      `several scoped informers could answer reads of ${what} (${covering
        .map((i) => `"${describeScope(i.scope)}"`)
        .join(', ')}); pass { scope } to choose one`,
    );
  }
}
