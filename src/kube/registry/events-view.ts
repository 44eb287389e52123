// events.k8s.io/v1 Events are a second view of the core/v1 Event store, as in kube-apiserver:
// both API versions read and write the same objects, only the field names differ.
import type { JsonObject, JsonValue } from '../../apimachinery/meta/index.ts';
import { builtinFieldOrder } from '../builtins/index.ts';

const coreEventOrder = builtinFieldOrder('', 'v1', 'Event');
const eventsV1Order = builtinFieldOrder('events.k8s.io', 'v1', 'Event');

/** [core/v1 field, events.k8s.io/v1 field] */
const RENAMES: Array<[string, string]> = [
  ['involvedObject', 'regarding'],
  ['message', 'note'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
  ['reportingComponent', 'reportingController'],
];

function rename(obj: JsonObject, from: 0 | 1, apiVersion: string): JsonObject {
  const to = from === 0 ? 1 : 0;
  const out: JsonObject = { kind: 'Event', apiVersion };
  const map = new Map(RENAMES.map((r) => [r[from], r[to]]));
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion' || k === 'kind' || v === undefined) continue;
    out[map.get(k) ?? k] = v as JsonValue;
  }
  return out;
}

export const eventsV1View = {
  /** In core/v1 Event's field order, as every stored object is (see store/objects.ts ordered). */
  toStored(obj: JsonObject): JsonObject {
    return coreEventOrder(rename(obj, 1, 'v1'));
  },
  /** In events.k8s.io/v1 Event's own field order (k8s.io/api/events/v1/types.go). */
  fromStored(obj: JsonObject): JsonObject {
    return eventsV1Order(rename(obj, 0, 'events.k8s.io/v1'));
  },
};
