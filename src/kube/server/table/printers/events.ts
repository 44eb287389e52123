// Events, for both core/v1 and the events.k8s.io/v1 view (kube prints both from the same
// internal Event): LAST SEEN, TYPE, REASON, OBJECT, MESSAGE, and more in wide output.
import type { JsonObject } from '../../../../apimachinery/meta/index.ts';
import { col, NAME, wide } from '../columns.ts';
import { asInt, asObj, asStr, nameOf, since, timeMs } from '../fields.ts';
import type { Printer } from '../types.ts';

function source(ev: JsonObject): string {
  const src = asObj(ev.source);
  const component = asStr(src.component) || asStr(ev.reportingComponent);
  const instance = asStr(src.host) || asStr(ev.reportingInstance);
  return instance ? `${component}, ${instance}` : component;
}

/** Takes a core/v1 Event; events.k8s.io objects are converted to it first. */
export const eventPrinter: Printer = {
  columns: [
    col('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
    col('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future'),
    col(
      'Reason',
      'string',
      "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    ),
    col('Object', 'string', 'The object that this event is about.'),
    wide(
      'Subobject',
      'string',
      'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.',
    ),
    wide('Source', 'string', 'The component reporting this event. Should be a short machine understandable string.'),
    col('Message', 'string', 'A human-readable description of the status of this operation.'),
    wide(
      'First Seen',
      'string',
      'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
    ),
    wide('Count', 'string', 'The number of times this event has occurred.'),
    { ...NAME, priority: 1 },
  ],
  cells(ev, now) {
    const firstSeen =
      timeMs(ev.firstTimestamp) !== undefined ? since(ev.firstTimestamp, now) : since(ev.eventTime, now);
    let lastSeen = timeMs(ev.lastTimestamp) !== undefined ? since(ev.lastTimestamp, now) : firstSeen;
    let count = asInt(ev.count);
    if (ev.series !== undefined && ev.series !== null) {
      const series = asObj(ev.series);
      lastSeen = since(series.lastObservedTime, now);
      count = asInt(series.count);
    } else if (count === 0) {
      // Singleton events of the new API carry no count.
      count = 1;
    }
    const involved = asObj(ev.involvedObject);
    const kind = asStr(involved.kind).toLowerCase();
    const target = asStr(involved.name) ? `${kind}/${asStr(involved.name)}` : kind;
    return [
      lastSeen,
      asStr(ev.type),
      asStr(ev.reason),
      target,
      asStr(involved.fieldPath),
      source(ev),
      asStr(ev.message).trim(),
      firstSeen,
      count,
      nameOf(ev),
    ];
  },
};
