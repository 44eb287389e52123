// The fluent builder, after controller-runtime's pkg/builder: For (the primary kind), Owns (kinds
// it creates, mapped back through their controller ownerReference), Watches (any kind, mapped by a
// function), predicates, options, then Complete (a request-form reconciler) or CompleteWithObjects
// (an object-form one, reading the `for()` informer) registers the controller with the manager.
import type { Registry } from 'prom-client';
import type { Scope } from '../cache/scope.ts';
import type { KubeObject, ResourceType } from '../client/types.ts';
import type { Runnable } from '../manager/runnable.ts';
import type { Clock } from '../util/clock.ts';
import type { Logger } from '../util/logger.ts';
import { Controller } from './controller.ts';
import type { ControllerOptions, WatchSource } from './controller.ts';
import { requestForObject, requestsForOwner } from './handlers.ts';
import type { MapFunc } from './handlers.ts';
import { objectReconciler } from './object-reconciler.ts';
import type { ObjectReconcileFunc, ObjectReconciler, ObjectReconcilerOptions } from './object-reconciler.ts';
import type { Predicate } from './predicates.ts';
import type { ReconcileFunc, Reconciler } from './reconciler.ts';
import type { ControllerInformer } from './source.ts';

/** Narrows an informer (namespace, label/field selectors). Passed through to the manager's cache. */
export type InformerScope = Scope;

/** What the builder needs from a manager. */
export interface ControllerHost {
  informerFor<T extends KubeObject = KubeObject>(type: ResourceType, scope?: InformerScope): ControllerInformer<T>;
  add(runnable: Runnable): void;
  readonly logger: Logger;
  readonly metricsRegistry: Registry;
  readonly clock: Clock;
  /** Manager-wide defaults (cache sync timeout, graceful shutdown, ...), overridden by `withOptions`. */
  readonly controllerDefaults?: Partial<ControllerOptions>;
}

/** Options of `for()` and `watches()`. */
export interface ForOptions<T extends KubeObject = KubeObject> {
  predicates?: Predicate<T>[];
  scope?: InformerScope;
}

export interface OwnsOptions<T extends KubeObject = KubeObject> extends ForOptions<T> {
  /** Also map non-controller owner references. Default false. */
  anyOwner?: boolean;
}

/** Per-controller options settable through {@link ControllerBuilder.withOptions}. */
export type BuilderControllerOptions = Omit<
  ControllerOptions,
  'name' | 'reconciler' | 'logger' | 'metricsRegistry' | 'clock'
>;

interface PendingWatch {
  type: ResourceType;
  map: (forType: ResourceType | undefined) => MapFunc;
  opts: ForOptions;
  description: string;
}

const usedNames = new WeakMap<ControllerHost, Set<string>>();

/** `T` is the `for()` kind's object type, which {@link ControllerBuilder.completeWithObjects} hands over. */
export class ControllerBuilder<T extends KubeObject = KubeObject> {
  private forType: ResourceType | undefined;
  private readonly watches_: PendingWatch[] = [];
  private readonly globalPredicates: Predicate[] = [];
  private options: BuilderControllerOptions = {};
  private done = false;

  constructor(
    private readonly host: ControllerHost,
    private readonly name: string,
  ) {
    if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name)) {
      // The name is a metric label and a log field; keep it to what Kubernetes names allow.
      throw new Error(`controller name ${JSON.stringify(name)} must be a lowercase DNS-1123 name`);
    }
  }

  /** The primary kind: its own changes enqueue its own key. Call once. */
  for<F extends KubeObject = KubeObject>(type: ResourceType, opts: ForOptions<F> = {}): ControllerBuilder<F> {
    if (this.forType) throw new Error(`controller ${this.name}: for() called twice`);
    this.forType = type;
    this.watches_.unshift({
      type,
      map: () => requestForObject,
      opts: opts as ForOptions,
      description: `for ${type.kind}`,
    });
    return this as unknown as ControllerBuilder<F>;
  }

  /** A kind this controller creates: its changes enqueue the controlling owner of the primary kind. */
  owns<T extends KubeObject = KubeObject>(type: ResourceType, opts: OwnsOptions<T> = {}): this {
    this.watches_.push({
      type,
      map: (forType) => {
        if (!forType) throw new Error(`controller ${this.name}: owns() needs for()`);
        return requestsForOwner(forType, { onlyController: !opts.anyOwner });
      },
      opts: opts as ForOptions,
      description: `owns ${type.kind}`,
    });
    return this;
  }

  /** Any kind, mapped to requests by `mapFn` (e.g. a ConfigMap to every object that mounts it). */
  watches<T extends KubeObject = KubeObject>(type: ResourceType, mapFn: MapFunc<T>, opts: ForOptions<T> = {}): this {
    this.watches_.push({
      type,
      map: () => mapFn as unknown as MapFunc,
      opts: opts as ForOptions,
      description: `watches ${type.kind}`,
    });
    return this;
  }

  /** A predicate applied to every watched kind. */
  withEventFilter(predicate: Predicate): this {
    this.globalPredicates.push(predicate);
    return this;
  }

  withOptions(options: BuilderControllerOptions): this {
    this.options = { ...this.options, ...options };
    return this;
  }

  /**
   * Builds the controller with a request-form reconciler and adds it to the manager; it starts with
   * the manager (once leader).
   */
  complete(reconciler: Reconciler | ReconcileFunc): Controller {
    return this.build(() => (typeof reconciler === 'function' ? { reconcile: reconciler } : reconciler));
  }

  /**
   * Like {@link complete}, with an object-form reconciler: it gets the `for()` object from the
   * informer `for()` registered (same scope), or a gone signal (see object-reconciler.ts).
   */
  completeWithObjects(
    reconciler: ObjectReconciler<T> | ObjectReconcileFunc<T>,
    opts: ObjectReconcilerOptions = {},
  ): Controller {
    return this.build((forInformer) => {
      if (!forInformer) throw new Error(`controller ${this.name}: completeWithObjects() needs for()`);
      return objectReconciler(forInformer as ControllerInformer<T>, reconciler, opts);
    });
  }

  private build(reconcilerFor: (forInformer: ControllerInformer | undefined) => Reconciler): Controller {
    if (this.done) throw new Error(`controller ${this.name}: complete() called twice`);
    if (this.watches_.length === 0) throw new Error(`controller ${this.name}: nothing to watch; call for()`);
    const names = usedNames.get(this.host) ?? new Set<string>();
    usedNames.set(this.host, names);
    // Metrics and logs are keyed by name; two controllers sharing one would be indistinguishable.
    if (names.has(this.name)) throw new Error(`controller name ${this.name} is already used in this manager`);
    const sources = this.watches_.map((w): WatchSource => ({
      informer: this.host.informerFor(w.type, w.opts.scope),
      map: w.map(this.forType),
      predicates: [...this.globalPredicates, ...(w.opts.predicates ?? [])],
      description: w.description,
    }));
    // for() is always first in the list (it unshifts itself).
    const controller = new Controller({
      ...this.host.controllerDefaults,
      ...this.options,
      name: this.name,
      reconciler: reconcilerFor(this.forType ? sources[0].informer : undefined),
      logger: this.host.logger,
      metricsRegistry: this.host.metricsRegistry,
      clock: this.host.clock,
    });
    for (const source of sources) controller.watch(source);
    names.add(this.name);
    this.done = true;
    this.host.add(controller);
    return controller;
  }
}
