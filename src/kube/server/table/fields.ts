// Small readers over untyped JSON objects and the text formats kube's printers share: ages,
// label maps, label selectors, container lists.
import { selectorString } from '../../builtins/selector.ts';
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';
import { humanDuration } from '../../../apimachinery/time/index.ts';

export function asObj(v: JsonValue | undefined): JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : {};
}

export function asList(v: JsonValue | undefined): JsonObject[] {
  return Array.isArray(v) ? v.map((x) => asObj(x)) : [];
}

export function asStr(v: JsonValue | undefined): string {
  return typeof v === 'string' ? v : '';
}

export function asInt(v: JsonValue | undefined): number {
  return typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : 0;
}

/** Reads a nested field: `at(pod, 'status', 'phase')`. */
export function at(obj: JsonObject, ...path: string[]): JsonValue | undefined {
  let cur: JsonValue | undefined = obj;
  for (const p of path) {
    if (typeof cur !== 'object' || cur === null || Array.isArray(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

export function meta(obj: JsonObject): JsonObject {
  return asObj(obj.metadata);
}

export function nameOf(obj: JsonObject): string {
  return asStr(meta(obj).name);
}

export function countKeys(v: JsonValue | undefined): number {
  return Object.keys(asObj(v)).length;
}

export function timeMs(v: JsonValue | undefined): number | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  const ms = Date.parse(v);
  // Go's zero time marshals as 0001-01-01T00:00:00Z and counts as unset.
  return Number.isNaN(ms) || ms <= Date.UTC(1, 0, 1) ? undefined : ms;
}

/** translateTimestampSince: the age of a timestamp, `<unknown>` when it is unset. */
export function since(v: JsonValue | undefined, now: number): string {
  const ms = timeMs(v);
  return ms === undefined ? '<unknown>' : humanDuration(now - ms);
}

export function ageOf(obj: JsonObject, now: number): string {
  return since(meta(obj).creationTimestamp, now);
}

const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** labels.Set(m).String(): sorted `k=v` pairs joined by commas. */
export function labelsString(v: JsonValue | undefined): string {
  return Object.entries(asObj(v))
    .map(([k, val]) => [k, asStr(val)] as const)
    .sort((a, b) => byteOrder(a[0], b[0]))
    .map(([k, val]) => `${k}=${val}`)
    .join(',');
}

/** labels.FormatLabels: as labelsString, `<none>` when empty. */
export function formatLabels(v: JsonValue | undefined): string {
  return labelsString(v) || '<none>';
}

/** metav1.FormatLabelSelector: `<none>` for an empty or missing selector, `<error>` for a bad one. */
export function formatSelector(v: JsonValue | undefined): string {
  const s = selectorString(v);
  if (s === undefined) return '<error>';
  return s || '<none>';
}

/** layoutContainerCells: container names and images, each comma-joined. */
export function containerCells(podSpec: JsonValue | undefined): [string, string] {
  const containers = asList(asObj(podSpec).containers);
  return [containers.map((c) => asStr(c.name)).join(','), containers.map((c) => asStr(c.image)).join(',')];
}

/** An IntOrString as Go's IntOrString.String() prints it. */
export function intOrString(v: JsonValue | undefined): string {
  if (typeof v === 'number') return String(Math.trunc(v));
  return asStr(v);
}

/** True when `conditions` has an entry of `type` whose status is "True". */
export function conditionTrue(conditions: JsonValue | undefined, type: string): boolean {
  const c = asList(conditions).find((x) => x.type === type);
  return c?.status === 'True';
}
