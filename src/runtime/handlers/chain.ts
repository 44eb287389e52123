// Runs a handler chain for one object inside the finalizer protocol (controller/finalizer.ts):
//   update path (apply):   our finalizer is added first, alone; then every handler's ensureCreated
//                          in order;
//   delete path (cleanup): only while our finalizer is present: every ensureDeleted in order, then
//                          the finalizer is removed unless the chain was cancelled or a handler kept it.
// Objects annotated paused are skipped. Unlike operatorkit, an error is returned to the controller,
// which requeues with backoff; a cancelled chain asks to come back after `recheckMs`, a completed
// one after `resyncMs`.
import { Counter, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';
import type { KubeClient } from '../client/client.ts';
import type { KubeObject, ResourceType } from '../client/types.ts';
import { finalizer } from '../controller/finalizer.ts';
import type { CleanupResult } from '../controller/finalizer.ts';
import type { ObjectReconciler } from '../controller/object-reconciler.ts';
import type { ReconcileContext, ReconcileResult, Reconciler, Request } from '../controller/reconciler.ts';
import type { HandlerContext, HandlerEvent, ResourceHandler } from './types.ts';
import { cloneJson } from '../../apimachinery/json/index.ts';

export interface HandlerChainOptions<T extends KubeObject> {
  /** Controller name: a metric label and log field. */
  name: string;
  /** The finalizer this chain owns on the primary object. */
  finalizer: string;
  type: ResourceType;
  client: Pick<KubeClient, 'get' | 'create' | 'patch'>;
  /**
   * The request form's read of the primary object (an informer's lister); undefined when it is gone.
   * Not needed with `completeWithObjects(chain)`, which hands the chain the controller's cached object.
   */
  get?(req: Request): T | undefined;
  handlers: ResourceHandler<T>[];
  /** Annotations that, set to "true", make the chain skip an object. Default none. */
  pausedAnnotations?: string[];
  /** Level-triggered resync after a completed chain. Default 5 min (operatorkit's). */
  resyncMs?: number;
  /** Come back this soon after a cancelled chain or a kept finalizer. Default 5 s. */
  recheckMs?: number;
  metricsRegistry?: Registry;
}

export interface HandlerChainResult {
  /** Set when a handler stopped the chain, with its reason. */
  canceledBy?: { handler: string; reason: string };
  finalizerKeptBy?: { handler: string; reason: string };
  finalizerRemoved: boolean;
}

const metricsByRegistry = new WeakMap<Registry, { duration: Histogram; errors: Counter }>();

function handlerMetrics(registry: Registry): { duration: Histogram; errors: Counter } {
  let m = metricsByRegistry.get(registry);
  if (!m) {
    m = {
      duration: new Histogram({
        name: 'peerpods_handler_duration_seconds',
        help: 'Time one resource handler took, by controller, handler and path (update|delete).',
        labelNames: ['controller', 'handler', 'event'],
        buckets: [0.001, 0.005, 0.025, 0.1, 0.5, 1, 5, 30],
        registers: [registry],
      }),
      errors: new Counter({
        name: 'peerpods_handler_errors_total',
        help: 'Resource handler runs that ended in an error.',
        labelNames: ['controller', 'handler', 'event'],
        registers: [registry],
      }),
    };
    metricsByRegistry.set(registry, m);
  }
  return m;
}

/** An error from one handler, naming it. The cause is the original error. */
export class HandlerError extends Error {
  constructor(
    readonly handler: string,
    cause: unknown,
  ) {
    super(`handler ${handler}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'HandlerError';
  }
}

export class HandlerChain<T extends KubeObject> implements Reconciler, ObjectReconciler<T> {
  private readonly resyncMs: number;
  private readonly recheckMs: number;
  private readonly metrics?: { duration: Histogram; errors: Counter };
  /** The outcome of the last run per key, for tests and debugging. */
  readonly lastResult = new Map<string, HandlerChainResult>();

  constructor(private readonly opts: HandlerChainOptions<T>) {
    const names = new Set<string>();
    for (const h of opts.handlers) {
      if (names.has(h.name)) throw new Error(`handler chain ${opts.name}: handler ${h.name} listed twice`);
      names.add(h.name);
    }
    this.resyncMs = opts.resyncMs ?? 5 * 60_000;
    this.recheckMs = opts.recheckMs ?? 5_000;
    if (opts.metricsRegistry) this.metrics = handlerMetrics(opts.metricsRegistry);
  }

  /** The request form: reads the object through `get`. */
  readonly reconcile = async (req: Request, rctx: ReconcileContext): Promise<ReconcileResult | void> => {
    if (!this.opts.get) throw new Error(`handler chain ${this.opts.name}: the request form needs get()`);
    const cached = this.opts.get(req);
    if (!cached) return;
    return this.reconcileObject(cached, rctx);
  };

  /** The object form (`completeWithObjects`). A gone object has nothing left for the chain to do. */
  readonly reconcileObject = async (cached: T, rctx: ReconcileContext): Promise<ReconcileResult | void> => {
    // Handlers get their own copy: the cache's object is shared with every other reader.
    const obj = cloneJson(cached);
    const annotations = obj.metadata.annotations ?? {};
    if ((this.opts.pausedAnnotations ?? []).some((a) => annotations[a] === 'true')) {
      rctx.log.debug('paused; skipped');
      return;
    }
    const key = `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
    // Each path records its outcome; a run that only added the finalizer records a bare one.
    let outcome: HandlerChainResult | undefined;
    const record = (r: HandlerChainResult): void => void (outcome = r);
    const result = await finalizer(
      { client: this.opts.client, type: this.opts.type, name: this.opts.finalizer, signal: rctx.signal },
      obj,
      { apply: (o) => this.apply(o, rctx, record), cleanup: (o) => this.cleanup(o, rctx, record) },
    );
    if (outcome) this.lastResult.set(key, outcome);
    else if (!obj.metadata.deletionTimestamp) this.lastResult.set(key, { finalizerRemoved: false });
    return result;
  };

  /** Every ensureCreated; back after `resyncMs`, or `recheckMs` when cancelled (or sooner if asked). */
  private async apply(
    obj: T,
    rctx: ReconcileContext,
    record: (r: HandlerChainResult) => void,
  ): Promise<ReconcileResult> {
    const state = await this.runChain('update', obj, rctx);
    record({ ...state.result, finalizerRemoved: false });
    const base = state.result.canceledBy ? this.recheckMs : this.resyncMs;
    return { requeueAfter: Math.min(state.requeueAfter ?? base, base) };
  }

  /** Every ensureDeleted; the finalizer stays when the chain was cancelled or a handler kept it. */
  private async cleanup(
    obj: T,
    rctx: ReconcileContext,
    record: (r: HandlerChainResult) => void,
  ): Promise<CleanupResult | void> {
    const state = await this.runChain('delete', obj, rctx);
    const kept = state.result.canceledBy !== undefined || state.result.finalizerKeptBy !== undefined;
    record({ ...state.result, finalizerRemoved: !kept });
    if (!kept) return;
    return { keepFinalizer: true, requeueAfter: Math.min(state.requeueAfter ?? this.recheckMs, this.recheckMs) };
  }

  private async runChain(
    event: HandlerEvent,
    obj: T,
    rctx: ReconcileContext,
  ): Promise<{ result: Omit<HandlerChainResult, 'finalizerRemoved'>; requeueAfter?: number }> {
    const result: Omit<HandlerChainResult, 'finalizerRemoved'> = {};
    let requeueAfter: number | undefined;
    for (const handler of this.opts.handlers) {
      let handlerCanceled = false;
      const log = rctx.log.child({ handler: handler.name });
      const ctx: HandlerContext = {
        event,
        signal: rctx.signal,
        log,
        cancelHandler: (reason) => {
          handlerCanceled = true;
          log.debug({ reason }, 'handler cancelled');
        },
        cancelReconciliation: (reason) => {
          result.canceledBy ??= { handler: handler.name, reason };
          log.debug({ reason }, 'reconciliation cancelled');
        },
        keepFinalizer: (reason) => {
          result.finalizerKeptBy ??= { handler: handler.name, reason };
          log.debug({ reason }, 'finalizer kept');
        },
        requeueAfter: (ms) => {
          requeueAfter = requeueAfter === undefined ? ms : Math.min(requeueAfter, ms);
        },
        get handlerCanceled() {
          return handlerCanceled;
        },
        get reconciliationCanceled() {
          return result.canceledBy !== undefined;
        },
      };
      const end = this.metrics?.duration.startTimer({ controller: this.opts.name, handler: handler.name, event });
      try {
        if (event === 'update') await handler.ensureCreated(obj, ctx);
        else await handler.ensureDeleted(obj, ctx);
      } catch (e) {
        this.metrics?.errors.inc({ controller: this.opts.name, handler: handler.name, event });
        throw new HandlerError(handler.name, e);
      } finally {
        end?.();
      }
      if (result.canceledBy || rctx.signal.aborted) break;
    }
    return { result, requeueAfter };
  }
}
