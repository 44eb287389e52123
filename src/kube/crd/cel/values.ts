// A JSON value as the CEL value kube gives a rule: `integer` fields (and the number side of
// int-or-string) are CEL ints — bigint for @bufbuild/cel, so `self.replicas == 1` and integer
// division behave as in kube — `number` fields are doubles, and schemaless values (preserved
// unknown fields) follow kube's JSON decoding: whole numbers are ints, others doubles.
import { fieldSchema } from '../schema/structural.ts';
import type { Structural } from '../schema/structural.ts';

function number(s: Structural | undefined, n: number): bigint | number {
  if (s?.type === 'number') return n;
  return Number.isInteger(n) ? BigInt(n) : n;
}

export function toCel(s: Structural | undefined, value: unknown): unknown {
  if (typeof value === 'number') return number(s, value);
  if (Array.isArray(value)) return value.map((v) => toCel(s?.items, v));
  if (value !== null && typeof value === 'object') {
    // A Map, not a plain object: the library reads some plain objects as protobuf messages.
    return new Map(Object.entries(value).map(([k, v]) => [k, toCel(fieldSchema(s, k), v)]));
  }
  return value;
}
