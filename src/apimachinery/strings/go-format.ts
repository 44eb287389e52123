// Renders values the way Go's fmt and encoding/json print them inside kube's error messages, so
// our 422 texts are byte-for-byte those of kube-apiserver: `%q` strings, `%v` floats (1e+06),
// json.Marshal (sorted keys, HTML-escaped) for lists and maps.
import { compareStrings } from './compare.ts';
import { goQuote } from './goquote.ts';

/** Go's `%v` for a float64: shortest digits, exponent form below 1e-4 and from 1e+06. */
export function goFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return '+Inf';
  if (n === -Infinity) return '-Inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [mantissa, expText] = n.toExponential().split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const digits = Math.abs(exp) < 10 ? `0${Math.abs(exp)}` : String(Math.abs(exp));
    return `${mantissa}e${exp < 0 ? '-' : '+'}${digits}`;
  }
  return String(n);
}

/** Integers print as int64 in kube (its JSON decoder keeps integral numbers as int64). */
export function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 9.2e18) return BigInt(n).toString();
  return goFloat(n);
}

function escapeHtml(json: string): string {
  return json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A Go struct for goJson: fields in declaration order rather than sorted like map keys. */
export interface OrderedFields {
  fields: [string, unknown][];
}

function isOrdered(v: unknown): v is OrderedFields {
  return (
    typeof v === 'object' &&
    v !== null &&
    Array.isArray((v as OrderedFields).fields) &&
    !Array.isArray(v) &&
    v.constructor !== Object
  );
}

/** Go's json.Marshal: map keys sorted, struct fields in order, <, > and & escaped. */
export function goJson(v: unknown): string {
  if (v === undefined || v === null) return 'null';
  if (isOrdered(v)) return `{${v.fields.map(([k, x]) => `${escapeHtml(JSON.stringify(k))}:${goJson(x)}`).join(',')}}`;
  if (Array.isArray(v)) return `[${v.map((x) => goJson(x)).join(',')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort(compareStrings);
    return `{${keys.map((k) => `${escapeHtml(JSON.stringify(k))}:${goJson(o[k])}`).join(',')}}`;
  }
  if (typeof v === 'string') return escapeHtml(JSON.stringify(v));
  return JSON.stringify(v) ?? 'null';
}

/** How field.Error.ErrorBody prints a bad value: `%v` for numbers and booleans, `%q` for strings, JSON otherwise. */
export function goValue(v: unknown): string {
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  return goJson(v);
}
