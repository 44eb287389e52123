// The field selector string grammar (`a=b,c!=d`, backslash escapes in values), with the same
// term splitting, ordering and error text as apimachinery's fields.ParseSelector.

export type FieldOperator = '=' | '!=';

export interface FieldRequirement {
  readonly field: string;
  /** `==` parses to `=`, as in Go. */
  readonly operator: FieldOperator;
  readonly value: string;
}

// Terms are split on commas that are not escaped; the backslash itself stays in the term.
function splitTerms(selector: string): string[] {
  if (selector.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

const OPERATORS = ['!=', '==', '='] as const;

function splitTerm(term: string): { lhs: string; op: string; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of OPERATORS) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

function unescapeValue(s: string): string | { error: string } {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') {
        return { error: `invalid field selector: invalid escape sequence: \\${c}` };
      }
      out += c;
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    // Go prints the offending rune with %v, i.e. as its code point number.
    else if (c === ',' || c === '=')
      return { error: `invalid field selector: unescaped character in value: ${c.codePointAt(0)}` };
    else out += c;
  }
  if (inSlash) return { error: 'invalid field selector: invalid escape sequence: \\' };
  return out;
}

export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

// sort.Strings compares UTF-8 bytes.
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Requirements in upstream's (sorted term) order, or the upstream error message. */
export function parseFieldRequirements(selector: string): { requirements: FieldRequirement[] } | { error: string } {
  const parts = splitTerms(selector).sort(byteOrder);
  const requirements: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const split = splitTerm(part);
    if (!split) return { error: `invalid selector: '${selector}'; can't understand '${part}'` };
    const value = unescapeValue(split.rhs);
    if (typeof value !== 'string') return value;
    requirements.push({ field: split.lhs, operator: split.op === '!=' ? '!=' : '=', value });
  }
  return { requirements };
}
