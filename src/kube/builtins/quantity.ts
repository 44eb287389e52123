// The quantity operations built-in defaulting and validation need, over the shared
// resource.Quantity implementation in util/quantity.ts (which also keeps upstream's quirk of
// echoing already-canonical input text, e.g. "+5k").
import type { JsonObject } from '../types.ts';
import { Quantity, QuantityError, quantityFromJSON } from '../util/quantity.ts';

export { Quantity };

/** Quantities arrive as JSON strings or numbers; undefined when the value does not parse. */
export function parseQuantity(input: unknown): Quantity | undefined {
  if (input === undefined) return undefined;
  try {
    return quantityFromJSON(input);
  } catch (e) {
    if (e instanceof QuantityError) return undefined;
    throw e;
  }
}

export function compareQuantity(a: Quantity, b: Quantity): number {
  return a.cmp(b);
}

export function addQuantity(a: Quantity, b: Quantity): Quantity {
  return a.add(b);
}

export function formatQuantity(q: Quantity): string {
  return q.toString();
}

export function isNegativeQuantity(q: Quantity): boolean {
  return q.sign() < 0;
}

/** MilliValue() % 1000 == 0: validation's test for integer-only resources. */
export function isWholeQuantity(q: Quantity): boolean {
  return q.toMilli() % 1000n === 0n;
}

/** Canonical text of a quantity value, or undefined when it does not parse. */
export function canonicalQuantity(input: unknown, roundToMilli = false): string | undefined {
  const q = parseQuantity(input);
  if (!q) return undefined;
  return (roundToMilli ? q.roundUp(-3).quantity : q).toString();
}

/**
 * SetDefaults_ResourceList: every value rounded up to milli precision and written canonically.
 * Unparseable values are left alone: decoding rejects them first (util/resource-lists.ts).
 */
export function canonicalizeResourceList(list: JsonObject | undefined): void {
  if (!list) return;
  for (const [k, v] of Object.entries(list)) {
    const c = canonicalQuantity(v, true);
    if (c !== undefined) list[k] = c;
  }
}
