// Building core/v1 Events the way client-go's recorder does, for every reporter in the project (the
// operator runtime's recorder, the embedded control plane's scheduler, controllers and kubelets).
// Writing them (correlation, rate limits, retries) is each reporter's business.
import type { KubeObject } from '../meta/index.ts';
import { formatTime } from '../time/index.ts';
import type { CoreEvent, EventSource, EventType, ObjectReference } from './types.ts';

/** A reference to `obj` for `involvedObject` or `related`; `fieldPath` names a part, e.g. `spec.containers{app}`. */
export function objectReference(obj: KubeObject, fieldPath?: string): ObjectReference {
  const ref: ObjectReference = {
    apiVersion: obj.apiVersion ?? '',
    kind: obj.kind ?? '',
    name: obj.metadata?.name ?? '',
  };
  if (obj.metadata?.namespace) ref.namespace = obj.metadata.namespace;
  if (obj.metadata?.uid) ref.uid = obj.metadata.uid;
  if (obj.metadata?.resourceVersion) ref.resourceVersion = obj.metadata.resourceVersion;
  if (fieldPath) ref.fieldPath = fieldPath;
  return ref;
}

/**
 * client-go names events `<object>.<unix nanos in hex>`. Milliseconds are all a clock gives here,
 * so names taken in the same millisecond count up one nanosecond: a namer never repeats a name.
 */
export class EventNamer {
  private lastNanos = 0n;

  name(objectName: string, nowMs: number): string {
    const ns = BigInt(Math.trunc(nowMs)) * 1_000_000n;
    this.lastNanos = ns > this.lastNanos ? ns : this.lastNanos + 1n;
    return `${objectName}.${this.lastNanos.toString(16)}`;
  }
}

export interface EventInit {
  involvedObject: ObjectReference;
  type: EventType;
  /** CamelCase, machine-readable. */
  reason: string;
  message: string;
  /** The reporter; `source.component` is also `reportingComponent`. */
  source: EventSource;
  reportingInstance: string;
  /** What was done (events.k8s.io `action`), e.g. "Scaling". */
  action?: string;
  /** A second object the event is about. */
  related?: ObjectReference;
}

/** A first occurrence (count 1) at `nowMs`, named `name`. */
export function newEvent(init: EventInit, name: string, nowMs: number): CoreEvent {
  const ts = formatTime(nowMs);
  const event: CoreEvent = {
    apiVersion: 'v1',
    kind: 'Event',
    // Events of cluster-scoped objects live in "default", as client-go puts them.
    metadata: { name, namespace: init.involvedObject.namespace || 'default' },
    involvedObject: init.involvedObject,
    reason: init.reason,
    message: init.message,
    type: init.type,
    source: init.source,
    firstTimestamp: ts,
    lastTimestamp: ts,
    count: 1,
    reportingComponent: init.source.component,
    reportingInstance: init.reportingInstance,
  };
  if (init.action) event.action = init.action;
  if (init.related) event.related = init.related;
  return event;
}
