// resource.Quantity as built-in objects need it: parse, compare, and write back in canonical
// form (`0.5` → `500m`, `1024Mi` → `1Gi`, `1000` → `1k`). Values are kept exact as
// mantissa × 10^exponent in bigint, so no float rounding can leak into stored objects.
//
// Local to builtins until src/kube/util/quantity.ts lands; then this should delegate to it.
import type { JsonObject } from '../types.ts';

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  /** value = m × 10^e */
  m: bigint;
  e: number;
  format: QuantityFormat;
}

/** The message kube-apiserver's decoder gives (as a 400) for an unparseable quantity. */
export const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

const DECIMAL_SUFFIX: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIX: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const BINARY_NAMES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const DECIMAL_NAMES: Record<number, string> = { [-9]: 'n', [-6]: 'u', [-3]: 'm', 0: '', 3: 'k', 6: 'M', 9: 'G', 12: 'T', 15: 'P', 18: 'E' };

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** Quantities arrive as strings, or as bare JSON numbers (which Go reads from their text). */
export function parseQuantity(input: unknown): Quantity | undefined {
  let text: string;
  if (typeof input === 'string') text = input;
  else if (typeof input === 'number' && Number.isFinite(input)) text = String(input);
  else return undefined;
  const match = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$/.exec(text);
  if (!match) return undefined;
  const [, sign, intPart, fracPart = '', suffix] = match;
  if (intPart.length + fracPart.length === 0) return undefined;
  let m = BigInt((intPart || '0') + fracPart);
  let e = -fracPart.length;
  let format: QuantityFormat;
  if (suffix in DECIMAL_SUFFIX) {
    e += DECIMAL_SUFFIX[suffix];
    format = 'DecimalSI';
  } else if (suffix in BINARY_SUFFIX) {
    m *= 1024n ** BigInt(BINARY_SUFFIX[suffix]);
    format = 'BinarySI';
  } else if (/^[eE][+-]?[0-9]+$/.test(suffix)) {
    e += Number(suffix.slice(1));
    format = 'DecimalExponent';
  } else {
    return undefined;
  }
  if (sign === '-') m = -m;
  return { m, e, format };
}

/** Quantity.RoundUp: to at most `scale` decimal places below the unit, away from zero. */
export function roundUp(q: Quantity, scale = -3): Quantity {
  if (q.e >= scale) return q;
  const factor = pow10(scale - q.e);
  let m = q.m / factor;
  if (q.m % factor !== 0n) m += q.m < 0n ? -1n : 1n;
  return { m, e: scale, format: q.format };
}

function isInteger(q: Quantity): boolean {
  return q.e >= 0 || q.m % pow10(-q.e) === 0n;
}

function integerValue(q: Quantity): bigint {
  return q.e >= 0 ? q.m * pow10(q.e) : q.m / pow10(-q.e);
}

export function compareQuantity(a: Quantity, b: Quantity): number {
  const e = Math.min(a.e, b.e);
  const av = a.m * pow10(a.e - e);
  const bv = b.m * pow10(b.e - e);
  return av < bv ? -1 : av > bv ? 1 : 0;
}

export function addQuantity(a: Quantity, b: Quantity): Quantity {
  const e = Math.min(a.e, b.e);
  return { m: a.m * pow10(a.e - e) + b.m * pow10(b.e - e), e, format: a.format };
}

export function isZeroQuantity(q: Quantity): boolean {
  return q.m === 0n;
}

/** Quantity.String(): the canonical spelling kube-apiserver writes back. */
export function formatQuantity(q: Quantity): string {
  if (q.m === 0n) return '0';
  let format = q.format;
  if (format === 'BinarySI') {
    const small = compareQuantity(q, { m: -1024n, e: 0, format }) > 0 && compareQuantity(q, { m: 1024n, e: 0, format }) < 0;
    // Binary suffixes only for whole numbers of at least 1Ki; anything else would lose precision.
    if (small || !isInteger(q)) format = 'DecimalSI';
  }
  if (format === 'BinarySI') {
    let n = integerValue(q);
    let k = 0;
    while (k < 6 && n % 1024n === 0n) {
      n /= 1024n;
      k++;
    }
    return `${n}${BINARY_NAMES[k]}`;
  }
  let m = q.m;
  let e = q.e;
  while (m % 10n === 0n) {
    m /= 10n;
    e++;
  }
  // Exponents are shown in steps of three; move the remainder into the mantissa.
  const r = ((e % 3) + 3) % 3;
  if (r === 1) {
    m *= 10n;
    e -= 1;
  } else if (r === 2) {
    m *= 100n;
    e -= 2;
  }
  if (format === 'DecimalSI' && e in DECIMAL_NAMES) return `${m}${DECIMAL_NAMES[e]}`;
  return e === 0 ? `${m}` : `${m}e${e}`;
}

/** Canonical text of a quantity value, or undefined when it does not parse. */
export function canonicalQuantity(input: unknown, roundToMilli = false): string | undefined {
  const q = parseQuantity(input);
  if (!q) return undefined;
  return formatQuantity(roundToMilli ? roundUp(q) : q);
}

/**
 * SetDefaults_ResourceList: every value rounded up to milli precision and written canonically.
 * Unparseable values are left for the decode check to reject.
 */
export function canonicalizeResourceList(list: JsonObject | undefined): void {
  if (!list) return;
  for (const [k, v] of Object.entries(list)) {
    const c = canonicalQuantity(v, true);
    if (c !== undefined) list[k] = c;
  }
}
