// Records core/v1 Events about objects. `event()` never throws and never waits: events go to a
// bounded in-memory queue written in the background (as client-go's broadcaster does), so a slow
// or failing API server can never stall or break a reconcile.
import { hostname } from 'node:os';
import { exponentialDelay } from '../../apimachinery/backoff.ts';
import { EventNamer, newEvent, objectReference } from '../../apimachinery/events/index.ts';
import type { CoreEvent, EventInit, EventType } from '../../apimachinery/events/index.ts';
import { isNotFound } from '../client/errors.ts';
import { Events } from '../client/resources.ts';
import type { KubeObject, ResourceType } from '../client/types.ts';
import { realClock } from '../util/clock.ts';
import type { Clock } from '../util/clock.ts';
import { silentLogger } from '../util/logger.ts';
import type { Logger } from '../util/logger.ts';
import { EventCorrelator } from './correlator.ts';
import type { Correlated, CorrelatorOptions } from './correlator.ts';

/** The client calls the recorder makes. */
export interface EventSink {
  create<T extends KubeObject>(type: ResourceType, obj: T): Promise<T>;
  patch<T extends KubeObject>(
    type: ResourceType,
    name: string,
    namespace: string | undefined,
    patch: unknown,
    patchType: 'merge',
  ): Promise<T>;
}

export interface EventRecorderOptions extends CorrelatorOptions {
  /** `source.component` / `reportingComponent`, e.g. the controller or operator name. Required. */
  component: string;
  /** `reportingInstance` and `source.host`. Default: the host name. */
  instance?: string;
  /** Events waiting to be written; beyond this, new ones are dropped (and logged). Default 1000. */
  queueSize?: number;
  /** Attempts per write on network or 5xx errors. Default 3. */
  maxAttempts?: number;
  /** Delay before the second attempt; doubles each time. Default 1000 ms. */
  retryDelayMs?: number;
  clock?: Clock;
  logger?: Logger;
}

export interface EventOptions {
  /** What was done (events.k8s.io `action`), e.g. "Scaling". */
  action?: string;
  /** A second object the event is about. */
  related?: KubeObject;
  /** Part of the object the event is about, e.g. `spec.containers{app}`. */
  fieldPath?: string;
}

/** A recorder bound to nothing but its queue: safe to call from anywhere. */
export interface Recorder {
  event(obj: KubeObject, type: EventType, reason: string, message: string, opts?: EventOptions): void;
  normal(obj: KubeObject, reason: string, message: string, opts?: EventOptions): void;
  warning(obj: KubeObject, reason: string, message: string, opts?: EventOptions): void;
}

export class EventRecorder implements Recorder {
  private readonly component: string;
  private readonly instance: string;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly correlator: EventCorrelator;
  private readonly queueSize: number;
  private readonly maxAttempts: number;
  private readonly retryDelayMs: number;
  private readonly pending: CoreEvent[] = [];
  private draining: Promise<void> | undefined;
  private readonly names = new EventNamer();
  private stopped = false;

  constructor(
    private readonly sink: EventSink,
    opts: EventRecorderOptions,
  ) {
    this.component = opts.component;
    this.instance = opts.instance ?? hostname();
    this.clock = opts.clock ?? realClock;
    this.log = (opts.logger ?? silentLogger()).child({ eventComponent: opts.component });
    this.correlator = new EventCorrelator(opts);
    this.queueSize = opts.queueSize ?? 1000;
    this.maxAttempts = opts.maxAttempts ?? 3;
    this.retryDelayMs = opts.retryDelayMs ?? 1000;
  }

  normal(obj: KubeObject, reason: string, message: string, opts?: EventOptions): void {
    this.event(obj, 'Normal', reason, message, opts);
  }

  warning(obj: KubeObject, reason: string, message: string, opts?: EventOptions): void {
    this.event(obj, 'Warning', reason, message, opts);
  }

  event(obj: KubeObject, type: EventType, reason: string, message: string, opts: EventOptions = {}): void {
    try {
      if (this.stopped) return;
      if (type !== 'Normal' && type !== 'Warning') {
        this.log.error({ type, reason }, 'unsupported event type; dropped');
        return;
      }
      if (!obj?.metadata?.name) {
        this.log.error({ type, reason }, 'event about an object without a name; dropped');
        return;
      }
      if (this.pending.length >= this.queueSize) {
        this.log.warn({ reason, object: obj.metadata?.name }, 'event queue full; event dropped');
        return;
      }
      this.pending.push(this.makeEvent(obj, type, reason, message, opts));
      this.draining ??= this.drain().finally(() => (this.draining = undefined));
    } catch (err) {
      // Recording is best effort by contract: a malformed object must not surface in the caller.
      this.log.error({ err }, 'failed to record event');
    }
  }

  /** Resolves once every event queued so far was written or given up on. */
  async flush(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /** Stops taking events; resolves after the queued ones are written. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.flush();
  }

  private makeEvent(obj: KubeObject, type: EventType, reason: string, message: string, opts: EventOptions): CoreEvent {
    const now = this.clock.now();
    const ref = objectReference(obj, opts.fieldPath);
    const init: EventInit = {
      involvedObject: ref,
      type,
      reason,
      message,
      source: { component: this.component, host: this.instance },
      reportingInstance: this.instance,
      action: opts.action,
      related: opts.related && objectReference(opts.related),
    };
    return newEvent(init, this.names.name(ref.name, now), now);
  }

  private async drain(): Promise<void> {
    for (let e = this.pending.shift(); e; e = this.pending.shift()) {
      const decision = this.correlator.correlate(e, this.clock.now());
      if (decision.action === 'skip') {
        this.log.debug({ reason: e.reason, object: e.involvedObject.name }, 'event rate-limited by the spam filter');
        continue;
      }
      try {
        await this.write(decision);
      } catch (err) {
        this.correlator.forget(decision.key);
        this.log.warn({ err, reason: e.reason, object: e.involvedObject.name }, 'could not write event; dropped');
      }
    }
  }

  private async write(d: Exclude<Correlated, { action: 'skip' }>): Promise<void> {
    const ev = d.event;
    if (d.action === 'create') {
      await this.retrying(() => this.sink.create(Events, ev));
      return;
    }
    try {
      await this.retrying(() => this.sink.patch(Events, ev.metadata.name, ev.metadata.namespace, d.patch, 'merge'));
    } catch (err) {
      if (!isNotFound(err)) throw err;
      // The event expired (1 h TTL) between repeats: write it again as a new one, keeping the count.
      const fresh: CoreEvent = {
        ...ev,
        metadata: { ...ev.metadata, name: this.names.name(ev.involvedObject.name, this.clock.now()) },
      };
      await this.retrying(() => this.sink.create(Events, fresh));
      this.correlator.recreated(d.key, fresh.metadata.name, fresh.count, fresh.firstTimestamp);
    }
  }

  private async retrying<T>(fn: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        const retriable = typeof code !== 'number' || code >= 500 || code === 429;
        if (!retriable || attempt >= this.maxAttempts) throw err;
      }
      await this.clock.sleep(exponentialDelay(attempt - 1, this.retryDelayMs, Infinity));
    }
  }
}
