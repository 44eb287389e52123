// Label selectors evaluated against cached objects, with the server's grammar
// (=, ==, !=, in, notin, exists, !exists, gt, lt), so cache reads filter the way lists do.

type Requirement =
  | { key: string; op: 'exists' | 'notexists' }
  | { key: string; op: 'in' | 'notin'; values: Set<string> }
  | { key: string; op: 'gt' | 'lt'; value: number };

export type LabelMatcher = (labels: Record<string, string> | undefined) => boolean;

/** Parses a label selector; throws on syntax errors. The empty selector matches everything. */
export function parseLabelSelector(selector: string): LabelMatcher {
  const reqs = splitTerms(selector).map(parseTerm);
  return (labels) => reqs.every((r) => matches(r, labels ?? {}));
}

function splitTerms(s: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      terms.push(cur);
      cur = '';
    } else cur += ch;
  }
  terms.push(cur);
  return terms.map((t) => t.trim()).filter((t) => t.length > 0);
}

function parseTerm(term: string): Requirement {
  let m = /^([^\s!=<>(),]+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term);
  if (m) {
    const values = new Set(
      m[3]!
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v.length > 0),
    );
    return { key: m[1]!, op: m[2] as 'in' | 'notin', values };
  }
  m = /^!\s*([^\s!=<>(),]+)$/.exec(term);
  if (m) return { key: m[1]!, op: 'notexists' };
  m = /^([^\s!=<>(),]+)\s*(==|=|!=|>|<)\s*([^\s!=<>(),]*)$/.exec(term);
  if (m) {
    const [, key, op, value] = m as unknown as [string, string, string, string];
    if (op === '>' || op === '<') {
      const n = Number(value);
      if (!Number.isInteger(n)) throw new SyntaxError(`label selector "${term}": ${op} needs an integer`);
      return { key, op: op === '>' ? 'gt' : 'lt', value: n };
    }
    return { key, op: op === '!=' ? 'notin' : 'in', values: new Set([value]) };
  }
  m = /^([^\s!=<>(),]+)$/.exec(term);
  if (m) return { key: m[1]!, op: 'exists' };
  throw new SyntaxError(`invalid label selector term "${term}"`);
}

function matches(r: Requirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const v = labels[r.key];
  switch (r.op) {
    case 'exists':
      return has;
    case 'notexists':
      return !has;
    case 'in':
      return has && r.values.has(v!);
    case 'notin':
      return !has || !r.values.has(v!);
    case 'gt':
    case 'lt': {
      if (!has) return false;
      const n = Number(v);
      if (!Number.isInteger(n)) return false;
      return r.op === 'gt' ? n > r.value : n < r.value;
    }
  }
}
