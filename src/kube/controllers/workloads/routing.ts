// How a workload controller's share of the change stream reaches its queue (the event handlers of
// kube's workload controllers): its own objects by key, the objects they control (pods,
// ControllerRevisions, ReplicaSets, Jobs) by their controller reference, and orphans to every owner
// whose selector picks them, since that owner may adopt them.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { Change, Storage } from '../../storage/storage.ts';
import type { WorkLoop } from '../work-loop.ts';
import { controllerRef, labelsOf, nsAndName, parseObject, parsedChange, refersTo, selectorMatcher } from './common.ts';
import { deepEqual } from '../../../apimachinery/json/index.ts';

/**
 * Which orphans wake the owners whose selector picks them: new or relabelled ones, and also
 * (`released`) those whose controller reference just went, labels unchanged.
 */
export type Adoption = 'new-or-relabelled' | 'new-relabelled-or-released';

export interface OwnedKind {
  /** Storage prefix of the owned objects, e.g. `/core/pods/`. */
  prefix: string;
  /** Which orphans wake possible adopters; none when unset (the owner never adopts). */
  adoption?: Adoption;
}

export interface OwnerRoutingOptions {
  /** The owner's API group ('' for core) and kind, as its controller references name them. */
  group: string;
  kind: string;
  /** Storage prefix of the owner's objects, e.g. `/apps/daemonsets/`. */
  prefix: string;
  /** The owner's selector as written in its spec; spec.selector (a LabelSelector) unless given. */
  labelSelector?: (spec: JsonObject) => unknown;
  owned: OwnedKind[];
  /** What is kept per owner key, dropped once the owner is deleted. */
  backoff: { forget(key: string): void };
  events: { forget(namespace: string, name: string): void };
  /** More to drop for a deleted owner; `last` is its last stored state. */
  onDeleted?: (key: string, last: string) => void;
  /** Whether a deleted owner is synced once more (a Job's pods must lose their finalizers). */
  syncDeleted?: boolean;
}

export class OwnerRouting {
  constructor(
    private readonly storage: Storage,
    private readonly loop: WorkLoop,
    private readonly options: OwnerRoutingOptions,
  ) {}

  /** Every stored owner (kept storage: owners written before the controller ran are synced once). */
  enqueueAll(): void {
    const { prefix } = this.options;
    for (const s of this.storage.list(prefix)) this.loop.add(s.key.slice(prefix.length));
  }

  /** Routes an owner's or an owned object's change; false for anything else. */
  observe(c: Change): boolean {
    const { prefix } = this.options;
    if (c.key.startsWith(prefix)) {
      this.observeOwner(c, c.key.slice(prefix.length));
      return true;
    }
    const owned = this.options.owned.find((o) => c.key.startsWith(o.prefix));
    if (!owned) return false;
    this.observeOwned(c, owned);
    return true;
  }

  private observeOwner(c: Change, key: string): void {
    if (c.type === 'DELETED') {
      this.options.backoff.forget(key);
      this.options.events.forget(...nsAndName(key));
      this.options.onDeleted?.(key, c.json);
      if (!this.options.syncDeleted) return;
    }
    this.loop.add(key);
  }

  /** The owner controlling the object before or after wakes; an orphan wakes those that may adopt it. */
  private observeOwned(c: Change, owned: OwnedKind): void {
    const { group, kind } = this.options;
    const ns = c.key.slice(owned.prefix.length).split('/')[0];
    const { prev, next } = parsedChange(c);
    for (const o of [prev, next]) {
      const ref = controllerRef(o?.metadata);
      if (ref && refersTo(ref, group, kind)) this.loop.add(`${ns}/${ref.name}`);
    }
    if (!owned.adoption || !next || controllerRef(next.metadata) || next.metadata.deletionTimestamp) return;
    const released = owned.adoption === 'new-relabelled-or-released' && controllerRef(prev?.metadata) !== undefined;
    if (c.type !== 'ADDED' && !released && deepEqual(labelsOf(prev), labelsOf(next))) return;
    const labels = labelsOf(next);
    const labelSelector = this.options.labelSelector ?? ((spec: JsonObject) => spec.selector);
    for (const s of this.storage.list(`${this.options.prefix}${ns}/`)) {
      const owner = parseObject(s.json);
      if (owner && selectorMatcher(labelSelector(owner.spec))?.matches(labels))
        this.loop.add(`${ns}/${owner.metadata.name}`);
    }
  }
}
