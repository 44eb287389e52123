// Kubernetes resource quantities ("500m", "1.5Gi", "1e3") as exact integers of nano-units, so sums
// over many containers never pick up floating-point error before the final rounding up.

const NANO = 1_000_000_000n;

const SUFFIX: Record<string, bigint | [bigint, number]> = {
  '': 1n,
  // Decimal SI, as [multiplier, power of ten] so sub-unit suffixes stay integers.
  n: [1n, -9],
  u: [1n, -6],
  m: [1n, -3],
  k: 10n ** 3n,
  M: 10n ** 6n,
  G: 10n ** 9n,
  T: 10n ** 12n,
  P: 10n ** 15n,
  E: 10n ** 18n,
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};

const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/;

export class QuantityError extends Error {}

/** The quantity in nano-units (1 = 1e-9), rounded up as the API server rounds sub-nano values. */
export function parseQuantity(input: string | number): bigint {
  const text = String(input).trim();
  const m = QUANTITY.exec(text);
  if (!m)
    throw new QuantityError(
      `quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': ${JSON.stringify(text)}`,
    );
  const [, sign, num, exp, suffix = ''] = m;
  const [whole, frac = ''] = num.split('.');
  let digits = BigInt(`${whole || '0'}${frac}`);
  let pow10 = 9 - frac.length; // value = digits * 10^pow10 nano-units (before the suffix)
  const s = SUFFIX[suffix];
  if (exp) pow10 += Number(exp.slice(1));
  else if (Array.isArray(s)) pow10 += s[1];
  else digits *= s as bigint;
  let nanos: bigint;
  if (pow10 >= 0) nanos = digits * 10n ** BigInt(pow10);
  else nanos = ceilDiv(digits, 10n ** BigInt(-pow10));
  return sign === '-' ? -nanos : nanos;
}

export function ceilDiv(a: bigint, b: bigint): bigint {
  if (a <= 0n) return -(-a / b);
  return (a + b - 1n) / b;
}

/** Whole units, rounded up (500m -> 1). */
export function ceilUnits(nanos: bigint): bigint {
  return ceilDiv(nanos, NANO);
}

/** Bytes given in nano-units, as MiB rounded up. */
export function ceilMiB(nanos: bigint): bigint {
  return ceilDiv(nanos, NANO << 20n);
}
