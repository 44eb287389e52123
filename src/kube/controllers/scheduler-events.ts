// core/v1 Events for the built-in scheduler and kubelets, aggregated the way client-go's
// EventCorrelator does: a repeat of the same (object, type, reason, message) bumps `count` and
// `lastTimestamp` on the existing Event instead of creating a new one.
import type { JsonObject } from '../types.ts';
import type { ResourceCatalog } from '../registry/catalog.ts';
import { internalContext } from '../registry/context.ts';
import type { ObjectStore } from '../registry/store.ts';
import { formatTime } from '../util/duration.ts';

export interface InvolvedObject {
  kind: string;
  apiVersion: string;
  namespace?: string;
  name: string;
  uid?: string;
  resourceVersion?: string;
}

const MAX_REMEMBERED = 4096;

export class EventRecorder {
  /** Object (ns/name) -> aggregation key -> Event name; insertion order doubles as LRU order. */
  private readonly seen = new Map<string, Map<string, string>>();
  private readonly ctx;
  private seq = 0;

  constructor(
    private readonly store: ObjectStore,
    private readonly catalog: ResourceCatalog,
    private readonly component: string,
    private readonly host = 'peerpods',
  ) {
    this.ctx = internalContext(component);
  }

  /** `aggregate: false` for one-off events (e.g. Scheduled), which need no memory. */
  async record(
    obj: InvolvedObject,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
    opts: { action?: string; aggregate?: boolean } = {},
  ): Promise<void> {
    const def = this.catalog.lookup('', 'v1', 'events')!;
    const ns = obj.namespace || 'default';
    const objKey = `${ns}/${obj.name}`;
    const key = `${obj.uid ?? ''}/${type}/${reason}/${message}`;
    const now = formatTime(new Date());
    const existing = this.seen.get(objKey)?.get(key);
    if (existing) {
      const updated = await this.store.updateWith(def, ns, existing, this.ctx, (ev) => {
        ev.count = (typeof ev.count === 'number' ? ev.count : 1) + 1;
        ev.lastTimestamp = now;
        return ev;
      });
      if (updated) return;
    }
    // Name like client-go's: object name plus a hex timestamp (nanoseconds), unique per process.
    const name = `${obj.name}.${(BigInt(Date.now()) * 1_000_000n + BigInt(this.seq++ % 1_000_000)).toString(16)}`;
    const event: JsonObject = {
      metadata: { name, namespace: ns },
      involvedObject: { ...obj } as unknown as JsonObject,
      reason,
      message,
      source: { component: this.component, ...(this.component === 'kubelet' ? { host: this.host } : {}) },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      type,
      reportingComponent: this.component,
      reportingInstance: this.component === 'kubelet' ? this.host : `${this.component}-${this.host}`,
      ...(opts.action ? { action: opts.action } : {}),
    };
    try {
      await this.store.create(def, ns, event, this.ctx);
    } catch (e) {
      // The namespace may be going away with the pod; an event is best effort.
      const code = (e as { code?: number }).code;
      if (code === 403 || code === 404 || code === 409) return;
      throw e;
    }
    if (opts.aggregate === false) return;
    const perObject = this.seen.get(objKey) ?? new Map<string, string>();
    this.seen.delete(objKey);
    this.seen.set(objKey, perObject.set(key, name));
    if (this.seen.size > MAX_REMEMBERED) this.seen.delete(this.seen.keys().next().value as string);
  }

  /** Drops aggregation state of an object that is gone. */
  forget(namespace: string, name: string): void {
    this.seen.delete(`${namespace}/${name}`);
  }
}
