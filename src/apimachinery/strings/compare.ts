// Go's string order. Go compares strings as UTF-8 bytes, which is code point order; JavaScript's
// `<` compares UTF-16 units, which differs once characters outside the BMP are involved.

/** -1, 0 or 1 in Go's (code point) order. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const ai = a[Symbol.iterator]();
  const bi = b[Symbol.iterator]();
  for (;;) {
    const x = ai.next();
    const y = bi.next();
    if (x.done) return y.done ? 0 : -1;
    if (y.done) return 1;
    const d = (x.value.codePointAt(0) ?? 0) - (y.value.codePointAt(0) ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
}
