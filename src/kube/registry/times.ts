// Built-in kinds hold times as Go's metav1.Time (whole seconds) or MicroTime (microseconds),
// always written back in UTC with a `Z`. Clients send other RFC 3339 forms (the Python client
// sends `+00:00`), so stored times are re-serialized the way kube-apiserver's decoding would.
import { formatMicroTime, formatTime } from '../../apimachinery/time/index.ts';
import type { JsonObject, JsonValue } from '../../apimachinery/meta/index.ts';

const MICRO_TIME_FIELDS = new Set(['renewTime', 'acquireTime', 'eventTime', 'lastObservedTime']);
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function reformat(value: string, micro: boolean): string {
  if (!RFC3339.test(value)) return value;
  const fraction = /\.(\d+)/.exec(value)?.[1] ?? '';
  const ms = Date.parse(value.replace(/\.\d+/, ''));
  if (Number.isNaN(ms)) return value;
  return micro ? formatMicroTime(ms, Number(fraction.padEnd(6, '0').slice(0, 6))) : formatTime(ms);
}

export function normalizeTimes(value: JsonValue | undefined, key = ''): JsonValue | undefined {
  if (typeof value === 'string') {
    if (MICRO_TIME_FIELDS.has(key)) return reformat(value, true);
    if (key.endsWith('Time') || key.endsWith('Timestamp')) return reformat(value, false);
    return value;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = normalizeTimes(value[i], key) as JsonValue;
    return value;
  }
  if (value && typeof value === 'object') {
    const obj = value as JsonObject;
    for (const k of Object.keys(obj)) {
      // Free-form maps hold user data, not times.
      if (k === 'data' || k === 'stringData' || k === 'labels' || k === 'annotations' || k === 'binaryData') continue;
      obj[k] = normalizeTimes(obj[k], k);
    }
  }
  return value;
}
