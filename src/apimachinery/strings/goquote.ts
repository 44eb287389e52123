// Go's `%q` and `%#v` renderings. kube-apiserver builds its error messages with Go's fmt, and
// clients (and people grepping logs) see those strings verbatim, so values inside our messages
// must be quoted the way strconv.Quote would quote them, not the way JSON.stringify does.

const SIMPLE_ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};

// Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/** strconv.Quote: a double-quoted Go string literal. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const simple = SIMPLE_ESCAPES[ch];
    if (simple !== undefined) {
      out += simple;
      continue;
    }
    if (PRINTABLE.test(ch)) {
      out += ch;
      continue;
    }
    const cp = ch.codePointAt(0) ?? 0;
    // Lone surrogates cannot be valid UTF-8; Go would have seen the replacement character.
    if (cp >= 0xd800 && cp <= 0xdfff) out += '\\ufffd';
    else if (cp < 0x80) out += `\\x${hex(cp, 2)}`;
    else if (cp <= 0xffff) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return out + '"';
}

/** `%#v` of a []string, e.g. `[]string{"a", "b"}`. */
export function goStringSlice(values: readonly string[]): string {
  return `[]string{${values.map(goQuote).join(', ')}}`;
}
