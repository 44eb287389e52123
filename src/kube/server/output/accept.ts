// The Accept header as goautoneg reads it: clauses with their parameters, in the order
// kube-apiserver tries them.
export interface AcceptClause {
  type: string;
  subtype: string;
  q: number;
  params: Map<string, string>;
}

export function parseAccept(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  for (const raw of header.split(',')) {
    const [range, ...rest] = raw.split(';').map((s) => s.trim());
    if (!range) continue;
    const [type, subtype = ''] = range.toLowerCase().split('/');
    const params = new Map<string, string>();
    let q = 1;
    for (const p of rest) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      const k = p.slice(0, eq).trim().toLowerCase();
      const v = p.slice(eq + 1).trim();
      if (k === 'q') q = Number(v) || 0;
      else params.set(k, v);
    }
    clauses.push({ type, subtype, q, params });
  }
  // goautoneg's order: higher q first, then concrete types before wildcards; otherwise as sent.
  const rank = (c: AcceptClause) => (c.type === '*' ? 2 : c.subtype === '*' ? 1 : 0);
  return clauses
    .map((c, i) => ({ c, i }))
    .sort((a, b) => b.c.q - a.c.q || rank(a.c) - rank(b.c) || a.i - b.i)
    .map((x) => x.c);
}

/** Whether the clause admits a JSON answer, the only encoding conversions are served in here. */
export function acceptsJson(c: AcceptClause): boolean {
  return c.type === '*' || (c.type === 'application' && (c.subtype === 'json' || c.subtype === '*'));
}
