// Hashes and canonical JSON the workload controllers name things by: the Deployment's
// pod-template-hash and the StatefulSet's ControllerRevision names.
import { isObject } from '../../../apimachinery/json/index.ts';

/**
 * JSON with object keys sorted, as Go's json.Marshal writes a map. With `goEscapes`, `<`, `>`,
 * `&`, U+2028 and U+2029 are escaped as Go does, so the bytes equal what a Go client computes.
 */
export function canonicalJson(v: unknown, goEscapes = false): string {
  const text = canonical(v);
  return goEscapes
    ? text.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : text;
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObject(v)) {
    const keys = Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

function fnv32a(bytes: Uint8Array, h = 0x811c9dc5): number {
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h;
}

const SAFE_ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** rand.SafeEncodeString: each character mapped into an alphabet without vowels or 0/1/3. */
export function safeEncode(s: string): string {
  return [...s].map((c) => SAFE_ALPHANUMS[c.codePointAt(0)! % SAFE_ALPHANUMS.length]).join('');
}

/**
 * controller.ComputeHash: fnv32a of the template, then of collisionCount as 8 little-endian bytes,
 * the decimal sum safe-encoded. kube feeds fnv the template as Go's spew prints the struct; this
 * feeds it the template's canonical JSON (sorted keys), so the value differs from kube's but is
 * as deterministic: the same template (and collision count) always gives the same hash.
 */
export function computeHash(template: unknown, collisionCount?: number): string {
  let h = fnv32a(new TextEncoder().encode(canonical(template)));
  if (collisionCount !== undefined) {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setUint32(0, collisionCount >>> 0, true);
    h = fnv32a(bytes, h);
  }
  return safeEncode(String(h));
}
