// resource.Quantity ("500m", "1Gi", "1e3") with apimachinery's parsing and canonical text.
// The server must return quantities exactly as kube-apiserver would (clients diff against the
// live object), including its quirks: an input already in a "canonical-looking" short form is
// echoed verbatim ("1.", "+1", "01"), DecimalExponent stays in e-notation, and DecimalSI
// exponents past E have no suffix.
import {
  abs,
  addDecimal,
  compareDecimal,
  pow10,
  removeFactors,
  roundUpTo,
  shiftRightAwayFromZero,
  type Decimal,
} from './decimal.ts';

export type QuantityFormat = 'DecimalExponent' | 'BinarySI' | 'DecimalSI';

export const QUANTITY_REGEX = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';

/** The parse failures, with upstream's messages; callers turn them into 400s or field errors. */
export class QuantityError extends Error {
  static formatWrong(): QuantityError {
    return new QuantityError(`quantities must match the regular expression '${QUANTITY_REGEX}'`);
  }
  static numeric(): QuantityError {
    return new QuantityError('unable to parse numeric part of quantity');
  }
  static suffix(): QuantityError {
    return new QuantityError("unable to parse quantity's suffix");
  }
  static tooLarge(): QuantityError {
    return new QuantityError(
      `quantities are limited to ${MAX_QUANTITY_DIGITS} digits and a decimal exponent of at most ${MAX_QUANTITY_EXPONENT}`,
    );
  }
  constructor(message: string) {
    super(message);
    this.name = 'QuantityError';
  }
}

const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]));
const BINARY_BY_EXPONENT = new Map(Object.entries(BINARY_SUFFIXES).map(([s, e]) => [e, s]));

const NANO = -9;
const MAX_INT64 = 2n ** 63n - 1n;

/**
 * Bounds checked before any arithmetic. Go's inf.Dec keeps "1e100000000" as 1 × 10^100000000 and
 * only its int32 exponent is bounded; our exact bigint form would have to build such a number to
 * add, compare across scales or canonicalize it (seconds to minutes of one thread), and a long run
 * of digits costs quadratic time to canonicalize. No resource comes near these bounds: an int64 in
 * nano-units has 28 digits.
 */
export const MAX_QUANTITY_DIGITS = 1000;
export const MAX_QUANTITY_EXPONENT = 1000;

export class Quantity {
  readonly unscaled: bigint;
  readonly exponent: number;
  readonly format: QuantityFormat;
  /** The original text when upstream would keep it (its Quantity.s). */
  private readonly cached: string | undefined;

  constructor(value: Decimal, format: QuantityFormat, cached?: string) {
    this.unscaled = value.unscaled;
    this.exponent = value.exponent;
    this.format = format;
    this.cached = cached;
  }

  static zero(format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity({ unscaled: 0n, exponent: 0 }, format);
  }

  private get decimal(): Decimal {
    return { unscaled: this.unscaled, exponent: this.exponent };
  }

  isZero(): boolean {
    return this.unscaled === 0n;
  }

  sign(): -1 | 0 | 1 {
    return this.unscaled === 0n ? 0 : this.unscaled < 0n ? -1 : 1;
  }

  /** -1, 0 or 1. */
  cmp(other: Quantity): -1 | 0 | 1 {
    return compareDecimal(this.decimal, other.decimal);
  }

  equals(other: Quantity): boolean {
    return this.cmp(other) === 0;
  }

  /** Sum in this quantity's format (the other's, when this one is zero). */
  add(other: Quantity): Quantity {
    return new Quantity(addDecimal(this.decimal, other.decimal), this.isZero() ? other.format : this.format);
  }

  sub(other: Quantity): Quantity {
    return this.add(other.neg());
  }

  neg(): Quantity {
    return new Quantity({ unscaled: -this.unscaled, exponent: this.exponent }, this.format);
  }

  /**
   * Quantity.RoundUp: drop digits below 10^scale, rounding away from zero. A value already
   * that coarse keeps its original text; `exact` says whether anything was lost.
   */
  roundUp(scale: number): { quantity: Quantity; exact: boolean } {
    if (this.exponent >= scale) return { quantity: this, exact: true };
    const { decimal, exact } = roundUpTo(this.decimal, scale);
    return { quantity: new Quantity(decimal, this.format), exact };
  }

  /** MilliValue: value × 1000, rounded away from zero. */
  toMilli(): bigint {
    return this.scaled(-3);
  }

  /** Value: whole units (bytes for memory), rounded away from zero. */
  toBigInt(): bigint {
    return this.scaled(0);
  }

  /** Value as a JS number; precise up to 2^53. */
  toNumber(): number {
    return Number(this.toBigInt());
  }

  /** ScaledValue: the value in units of 10^scale (-9 for nano-units), rounded away from zero. */
  scaledValue(scale: number): bigint {
    return this.scaled(scale);
  }

  private scaled(scale: number): bigint {
    // A value this large has no meaningful integer form; refuse instead of building it.
    if (this.exponent - scale > 10_000) throw new RangeError(`quantity ${this.toString()} is too large`);
    return shiftRightAwayFromZero(this.unscaled, scale - this.exponent).value;
  }

  /** The text kube-apiserver would serialize. */
  toString(): string {
    return this.cached ?? this.canonical();
  }

  toJSON(): string {
    return this.toString();
  }

  /** CanonicalizeBytes, ignoring any remembered input text. */
  canonical(): string {
    if (this.isZero()) return '0';
    let format = this.format;
    if (format === 'BinarySI') {
      const magnitude = { unscaled: abs(this.unscaled), exponent: this.exponent };
      const small = compareDecimal(magnitude, { unscaled: 1024n, exponent: 0 }) < 0;
      if (small || !roundUpTo(this.decimal, 0).exact) format = 'DecimalSI';
    }
    if (format === 'BinarySI') {
      const whole = roundUpTo(this.decimal, 0).decimal;
      const { rest, times } = removeFactors(whole.unscaled * pow10(whole.exponent), 1024n);
      return `${rest}${BINARY_BY_EXPONENT.get(times * 10) ?? ''}`;
    }
    const { rest, times } = removeFactors(this.unscaled, 10n);
    let amount = rest;
    let exponent = this.exponent + times;
    while (exponent % 3 !== 0) {
      amount *= 10n;
      exponent--;
    }
    if (format === 'DecimalExponent') return exponent === 0 ? `${amount}` : `${amount}e${exponent}`;
    // Upstream has no suffix past E or below n and silently prints none.
    return `${amount}${DECIMAL_BY_EXPONENT.get(exponent) ?? ''}`;
  }
}

interface Split {
  positive: boolean;
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

// parseQuantityString: sign, digits, optional fraction, then suffix letters and an optional
// signed exponent. Leading zeros are skipped for `num` but kept in `value`.
function split(str: string): Split {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (str[0] === '-') {
    positive = false;
    pos++;
  } else if (str[0] === '+') pos++;
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  let num = str.slice(pos, i);
  if (i >= end) return { positive, value: str, num, denom: '', suffix: '' };
  pos = i;
  if (num.length === 0) num = '0';
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    denom = str.slice(pos, i);
    if (i >= end) return { positive, value: str, num, denom, suffix: '' };
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  while (pos < end && 'eEinumkKMGTP'.includes(str[pos])) pos++;
  if (pos < end && (str[pos] === '-' || str[pos] === '+')) pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos < end) throw QuantityError.formatWrong();
  return { positive, value, num, denom, suffix: str.slice(suffixStart) };
}

function interpretSuffix(suffix: string): { base: 10 | 2; exponent: number; format: QuantityFormat } {
  if (suffix in DECIMAL_SUFFIXES) return { base: 10, exponent: DECIMAL_SUFFIXES[suffix], format: 'DecimalSI' };
  if (suffix in BINARY_SUFFIXES) return { base: 2, exponent: BINARY_SUFFIXES[suffix], format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[+-]?[0-9]+$/.test(suffix.slice(1))) {
    const parsed = BigInt(suffix.slice(1));
    if (parsed >= -(2n ** 63n) && parsed <= MAX_INT64) {
      // Go narrows the parsed int64 to int32.
      return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: 'DecimalExponent' };
    }
  }
  throw QuantityError.suffix();
}

function parseDecimalString(value: string): Decimal {
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/.exec(value);
  // A lone "." has no digits at all, which inf.Dec refuses.
  if (!m || (m[2] === '' && !m[3])) throw QuantityError.numeric();
  const digits = `${m[2]}${m[3] ?? ''}` || '0';
  const unscaled = BigInt(digits);
  return { unscaled: m[1] === '-' ? -unscaled : unscaled, exponent: -(m[3] ?? '').length };
}

/** resource.ParseQuantity. Throws QuantityError. */
export function parseQuantity(str: string): Quantity {
  if (str.length === 0) throw QuantityError.formatWrong();
  if (str === '0') return new Quantity({ unscaled: 0n, exponent: 0 }, 'DecimalSI', '0');
  // Room for a sign, a point and any suffix; longer text is refused without being scanned.
  if (str.length > MAX_QUANTITY_DIGITS + 64) throw QuantityError.tooLarge();
  const { positive, value, num, denom, suffix } = split(str);
  // Leading zeros count too: BigInt still has to read them.
  const digits = value.length - (/^[+-]/.test(value) ? 1 : 0) - (value.includes('.') ? 1 : 0);
  if (digits > MAX_QUANTITY_DIGITS) throw QuantityError.tooLarge();
  const { base, exponent, format } = interpretSuffix(suffix);
  if (exponent > MAX_QUANTITY_EXPONENT) throw QuantityError.tooLarge();

  // Fast path (upstream's int64Amount): small enough to be exact in an int64.
  let precision: number;
  let scale = 0;
  let mantissa = 1n;
  if (format === 'BinarySI') {
    if (exponent >= 0 && denom.length === 0) {
      mantissa = 1n << BigInt(exponent);
      precision = 15 - num.length - Math.trunc((Math.fround(exponent) * 3) / 10) - 1;
    } else precision = -1;
  } else {
    scale = exponent;
    precision = 18 - (num.length + denom.length);
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= NANO) {
      const shifted = num + denom;
      const parsed = BigInt(shifted);
      const result = parsed * mantissa;
      if (result <= MAX_INT64) {
        const signed = positive ? result : -result;
        // Upstream remembers the input text when it already looks canonical.
        const keep =
          format === 'BinarySI'
            ? exponent % 10 === 0 && (parsed & 7n) !== 0n
            : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        return new Quantity({ unscaled: signed, exponent: scale }, format, keep ? str : undefined);
      }
    }
  }

  // Slow path (inf.Dec): exact, then rounded up to nano units.
  let amount = parseDecimalString(value);
  if (base === 10) amount = { unscaled: amount.unscaled, exponent: amount.exponent + exponent };
  else amount = { unscaled: amount.unscaled << BigInt(exponent), exponent: amount.exponent };
  const negative = amount.unscaled < 0n;
  if (negative) amount = { unscaled: -amount.unscaled, exponent: amount.exponent };
  if (amount.unscaled !== 0n) amount = roundUpTo(amount, NANO).decimal;
  let finalFormat = format;
  if (format === 'BinarySI') {
    const max = { unscaled: MAX_INT64, exponent: 0 };
    if (compareDecimal(amount, max) > 0) amount = max;
    if (compareDecimal(amount, { unscaled: 1n, exponent: 0 }) < 0 && amount.unscaled > 0n) finalFormat = 'DecimalSI';
  }
  if (negative) amount = { unscaled: -amount.unscaled, exponent: amount.exponent };
  return new Quantity(amount, finalFormat);
}

/** Quantity.UnmarshalJSON: JSON strings (trimmed) and numbers; null is zero; anything else fails. */
export function quantityFromJSON(value: unknown): Quantity {
  if (value === null) return Quantity.zero('DecimalExponent');
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw QuantityError.formatWrong();
    return parseQuantity(String(value));
  }
  if (typeof value === 'string') return parseQuantity(value.trim());
  throw QuantityError.formatWrong();
}

/** quantityFromJSON, or undefined when the value is absent or does not parse (reported elsewhere). */
export function tryQuantityFromJSON(value: unknown): Quantity | undefined {
  if (value === undefined) return undefined;
  try {
    return quantityFromJSON(value);
  } catch (e) {
    if (e instanceof QuantityError) return undefined;
    throw e;
  }
}

/** Canonical text of a JSON quantity, optionally rounded up to milli precision; undefined when it does not parse. */
export function canonicalQuantity(input: unknown, roundToMilli = false): string | undefined {
  const q = tryQuantityFromJSON(input);
  if (!q) return undefined;
  return (roundToMilli ? q.roundUp(-3).quantity : q).toString();
}

/** Convenience for callers holding text that must be valid. */
export function isValidQuantity(text: string): boolean {
  try {
    parseQuantity(text);
    return true;
  } catch (e) {
    if (e instanceof QuantityError) return false;
    throw e;
  }
}
