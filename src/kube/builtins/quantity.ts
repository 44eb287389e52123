// The quantity rules built-in defaulting and validation add on top of apimachinery's
// resource.Quantity: integer-only resources, and ResourceLists rounded up to milli precision.
import { canonicalQuantity, type Quantity } from '../../apimachinery/quantity/quantity.ts';
import type { JsonObject } from '../../apimachinery/meta/index.ts';

/** MilliValue() % 1000 == 0: validation's test for integer-only resources. */
export function isWholeQuantity(q: Quantity): boolean {
  return q.toMilli() % 1000n === 0n;
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
