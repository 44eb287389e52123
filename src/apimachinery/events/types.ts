// core/v1 Event, the shape kubectl describe and most dashboards still read.

export type EventType = 'Normal' | 'Warning';

export interface ObjectReference {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

export interface EventSource {
  component: string;
  host?: string;
}

export interface CoreEvent {
  apiVersion: 'v1';
  kind: 'Event';
  metadata: { name: string; namespace: string; resourceVersion?: string; [k: string]: unknown };
  involvedObject: ObjectReference;
  reason: string;
  message: string;
  type: EventType;
  source: EventSource;
  /** Time (seconds precision): the first and the latest occurrence. */
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  reportingComponent: string;
  reportingInstance: string;
  action?: string;
  related?: ObjectReference;
  [k: string]: unknown;
}
