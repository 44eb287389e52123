// Writes core/v1 Events of the built-in scheduler, controllers and kubelets straight to the store,
// aggregated the way client-go's EventCorrelator does: a repeat of the same (object, type, reason,
// message) bumps `count` and `lastTimestamp` on the existing Event instead of creating a new one.
import { EventNamer, newEvent, objectReference } from '../../apimachinery/events/index.ts';
import type { EventType, ObjectReference } from '../../apimachinery/events/index.ts';
import type { JsonObject, ObjectMeta } from '../../apimachinery/meta/index.ts';
import type { ResourceCatalog } from '../registry/catalog.ts';
import { internalContext } from '../registry/context.ts';
import type { ObjectStore } from '../registry/store/index.ts';
import { formatTime } from '../../apimachinery/time/index.ts';

const MAX_REMEMBERED = 4096;

export class EventRecorder {
  /** Object (ns/name) -> aggregation key -> Event name; insertion order doubles as LRU order. */
  private readonly seen = new Map<string, Map<string, string>>();
  private readonly ctx;
  private readonly names = new EventNamer();

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
    obj: ObjectReference,
    type: EventType,
    reason: string,
    message: string,
    opts: { action?: string; aggregate?: boolean } = {},
  ): Promise<void> {
    const def = this.catalog.lookup('', 'v1', 'events')!;
    const ns = obj.namespace || 'default';
    const objKey = `${ns}/${obj.name}`;
    const key = `${obj.uid ?? ''}/${type}/${reason}/${message}`;
    const nowMs = Date.now();
    const existing = this.seen.get(objKey)?.get(key);
    if (existing) {
      const updated = await this.store.updateWith(def, ns, existing, this.ctx, (ev) => {
        ev.count = (typeof ev.count === 'number' ? ev.count : 1) + 1;
        ev.lastTimestamp = formatTime(nowMs);
        return ev;
      });
      if (updated) return;
    }
    const kubelet = this.component === 'kubelet';
    const event = newEvent(
      {
        involvedObject: obj,
        type,
        reason,
        message,
        source: { component: this.component, ...(kubelet ? { host: this.host } : {}) },
        reportingInstance: kubelet ? this.host : `${this.component}-${this.host}`,
        action: opts.action,
      },
      this.names.name(obj.name, nowMs),
      nowMs,
    );
    const name = event.metadata.name;
    try {
      await this.store.create(def, ns, event as JsonObject, this.ctx);
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

  /**
   * `record` for a controller's own object, swallowing every failure: a controller's sync must not
   * fail (and back off) because an Event could not be written.
   */
  async recordBestEffort(
    obj: { apiVersion: string; kind: string; metadata: ObjectMeta },
    type: EventType,
    reason: string,
    message: string,
    opts: { action?: string; aggregate?: boolean } = {},
  ): Promise<void> {
    try {
      await this.record(objectReference(obj), type, reason, message, opts);
    } catch {
      // An Event is worth less than the sync that reports it.
    }
  }

  /** Drops aggregation state of an object that is gone. */
  forget(namespace: string, name: string): void {
    this.seen.delete(`${namespace}/${name}`);
  }
}
