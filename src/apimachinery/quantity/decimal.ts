// Exact decimal arithmetic on (unscaled bigint) × 10^exponent, the representation behind
// Quantity. Kept apart so the Quantity code reads like the rules it implements.

export interface Decimal {
  readonly unscaled: bigint;
  /** Power of ten: the value is unscaled × 10^exponent. */
  readonly exponent: number;
}

export function pow10(n: number): bigint {
  return 10n ** BigInt(n);
}

export function abs(n: bigint): bigint {
  return n < 0n ? -n : n;
}

export function sign(n: bigint): -1 | 0 | 1 {
  return n === 0n ? 0 : n < 0n ? -1 : 1;
}

/** Strips factors of `base`; returns what is left (same sign) and how many were removed. */
export function removeFactors(value: bigint, base: bigint): { rest: bigint; times: number } {
  let rest = abs(value);
  let times = 0;
  while (rest >= base && rest % base === 0n) {
    rest /= base;
    times++;
  }
  return { rest: value < 0n ? -rest : rest, times };
}

/** value / 10^digits, rounded away from zero; `exact` when nothing was lost. */
export function shiftRightAwayFromZero(value: bigint, digits: number): { value: bigint; exact: boolean } {
  if (digits <= 0) return { value: value * pow10(-digits), exact: true };
  const magnitude = abs(value);
  // Past its own length the result is 0 or ±1 whatever the digits; avoid a huge power.
  if (digits > magnitude.toString().length + 1) {
    return magnitude === 0n ? { value: 0n, exact: true } : { value: value < 0n ? -1n : 1n, exact: false };
  }
  const divisor = pow10(digits);
  let q = magnitude / divisor;
  const exact = magnitude % divisor === 0n;
  if (!exact) q += 1n;
  return { value: value < 0n ? -q : q, exact };
}

/** The same value written at a lower exponent (more trailing digits). */
export function atExponent(d: Decimal, exponent: number): bigint {
  return d.unscaled * pow10(d.exponent - exponent);
}

export function compareDecimal(a: Decimal, b: Decimal): -1 | 0 | 1 {
  const sa = sign(a.unscaled);
  const sb = sign(b.unscaled);
  if (sa !== sb) return sa < sb ? -1 : 1;
  if (sa === 0) return 0;
  // Different orders of magnitude decide without aligning (exponents can be huge).
  const ma = abs(a.unscaled).toString().length + a.exponent;
  const mb = abs(b.unscaled).toString().length + b.exponent;
  if (ma !== mb) return ma < mb === sa > 0 ? -1 : 1;
  const e = Math.min(a.exponent, b.exponent);
  const x = atExponent(a, e);
  const y = atExponent(b, e);
  return x === y ? 0 : x < y ? -1 : 1;
}

export function addDecimal(a: Decimal, b: Decimal): Decimal {
  const e = Math.min(a.exponent, b.exponent);
  return { unscaled: atExponent(a, e) + atExponent(b, e), exponent: e };
}

/** Round to `exponent` (keep no digits below 10^exponent), away from zero. */
export function roundUpTo(d: Decimal, exponent: number): { decimal: Decimal; exact: boolean } {
  if (d.exponent >= exponent) return { decimal: d, exact: true };
  const { value, exact } = shiftRightAwayFromZero(d.unscaled, exponent - d.exponent);
  return { decimal: { unscaled: value, exponent }, exact };
}
