// A Content-Type as Go's mime.ParseMediaType reads it, which kube-apiserver's body decoding
// relies on (apimachinery/pkg/runtime/serializer negotiation: NegotiateInputSerializerForMediaType):
// a header it cannot parse is an unsupported media type, never a guess.

const TSPECIALS = '()<>@,;:\\"/[]?=';

/** RFC 2045 token characters: printable ASCII except space and tspecials. */
function isTokenChar(c: string): boolean {
  const code = c.charCodeAt(0);
  return code > 0x20 && code < 0x7f && !TSPECIALS.includes(c);
}

function consumeToken(s: string): [token: string, rest: string] {
  let i = 0;
  while (i < s.length && isTokenChar(s[i])) i++;
  return [s.slice(0, i), s.slice(i)];
}

/** What follows a parameter value (a token or a quoted-string); undefined when there is none. */
function afterValue(s: string): string | undefined {
  if (s[0] !== '"') {
    const [token, rest] = consumeToken(s);
    return token === '' ? undefined : rest;
  }
  for (let i = 1; i < s.length; i++) {
    if (s[i] === '"') return s.slice(i + 1);
    // Go escapes only tspecials; any other backslash is literal (MSIE's unescaped paths).
    if (s[i] === '\\' && i + 1 < s.length && TSPECIALS.includes(s[i + 1])) i++;
    else if (s[i] === '\r' || s[i] === '\n') return undefined;
  }
  return undefined;
}

/**
 * The lower-cased media type (`type/subtype`, or a lone token) of a Content-Type header, or
 * undefined when Go's mime.ParseMediaType would fail on it: no type, a bad subtype, a malformed
 * or duplicated parameter. A trailing `;` is allowed, as in Go.
 */
export function parseMediaType(header: string): string | undefined {
  const semi = header.indexOf(';');
  const base = semi < 0 ? header : header.slice(0, semi);
  const type = base.toLowerCase().trim();
  const [main, afterMain] = consumeToken(type);
  if (main === '') return undefined;
  if (afterMain !== '') {
    if (afterMain[0] !== '/') return undefined;
    const [sub, afterSub] = consumeToken(afterMain.slice(1));
    if (sub === '' || afterSub !== '') return undefined;
  }
  const seen = new Set<string>();
  let rest = header.slice(base.length);
  for (;;) {
    rest = rest.trimStart();
    if (rest === '') return type;
    if (rest.trim() === ';') return type;
    if (rest[0] !== ';') return undefined;
    const [param, afterParam] = consumeToken(rest.slice(1).trimStart());
    if (param === '') return undefined;
    const eq = afterParam.trimStart();
    if (eq[0] !== '=') return undefined;
    const next = afterValue(eq.slice(1).trimStart());
    if (next === undefined) return undefined;
    const key = param.toLowerCase();
    if (seen.has(key)) return undefined;
    seen.add(key);
    rest = next;
  }
}
