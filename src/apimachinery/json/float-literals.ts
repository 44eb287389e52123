// JSON.parse forgets how a number was written: `2.0`, `2e0` and `2` are the same value. Go's
// encoding/json does not — a number written with a fraction or an exponent does not decode into
// an integer field (`json: cannot unmarshal number 2.0 into Go struct field … of type int32`),
// whatever its value. So a request body is parsed here, and where it has such numbers their
// literals are kept beside the parsed value, by JSON pointer, for the typed decoding to look up.

import { escapePointerToken } from './pointer.ts';

const literals = new WeakMap<object, ReadonlyMap<string, string>>();

/** Anything that could start a fraction or exponent right after a digit: most bodies have none. */
const MAYBE_FLOAT = /\d[.eE]/;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Numbers written with a fraction or exponent, outside strings: their offsets and texts. */
function floatTokens(text: string): Array<{ start: number; end: number; literal: string }> {
  const found: Array<{ start: number; end: number; literal: string }> = [];
  for (let i = 0; i < text.length;) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i++;
        else if (d === 34) break;
      }
      i++;
    } else if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      if (!m) return []; // not JSON; JSON.parse reports it
      const literal = m[0];
      if (/[.eE]/.test(literal)) found.push({ start: i, end: i + literal.length, literal });
      i += literal.length;
    } else i++;
  }
  return found;
}

/** JSON.parse, keeping the literals of numbers written with a fraction or exponent (floatLiteralsOf). */
export function parseJsonKeepingFloatLiterals(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (value === null || typeof value !== 'object' || !MAYBE_FLOAT.test(text)) return value;
  const tokens = floatTokens(text);
  if (tokens.length === 0) return value;
  // Parse again with each such number replaced by a marker string, to learn where it sits.
  const nonce = `\u0000${Math.random().toString(36).slice(2)}:`;
  let marked = '';
  let from = 0;
  tokens.forEach((t, i) => {
    marked += `${text.slice(from, t.start)}"${JSON.stringify(nonce + i).slice(1, -1)}"`;
    from = t.end;
  });
  marked += text.slice(from);
  const found = new Map<string, string>();
  const walk = (v: unknown, ptr: string): void => {
    if (typeof v === 'string' && v.startsWith(nonce)) found.set(ptr, tokens[Number(v.slice(nonce.length))].literal);
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${ptr}/${i}`));
    else if (v !== null && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) walk(x, `${ptr}/${escapePointerToken(k)}`);
  };
  walk(JSON.parse(marked), '');
  if (found.size > 0) literals.set(value, found);
  return value;
}

/** The fraction-or-exponent literals of the body `root` was parsed from, by JSON pointer. */
export function floatLiteralsOf(root: object): ReadonlyMap<string, string> | undefined {
  return literals.get(root);
}
