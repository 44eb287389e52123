// The JSONPath of CRD printer columns, evaluated as kube's table convertor does (client-go's
// jsonpath with missing keys allowed): `.spec.replicas`, `.status.conditions[0].status`,
// `.metadata.labels.app`, `.status.conditions[?(@.type=="Ready")].status`, `..name`, `[*]`,
// slices and unions. `printerCell` turns the first result into the Table cell kube would send.
import { goFloat, goJson, goNumber } from '../../apimachinery/strings/go-format.ts';
import { isObject } from '../../apimachinery/json/index.ts';

type Literal = { kind: 'literal'; value: string | number | boolean; float?: boolean };
type Step =
  | { kind: 'field'; name: string }
  | { kind: 'wildcard' }
  | { kind: 'recursive' }
  | { kind: 'slice'; start?: number; end?: number; derivedEnd: boolean; step?: number }
  | { kind: 'filter'; left: Step[]; op: string; right: Step[] }
  | { kind: 'union'; parts: Step[][] }
  | Literal;

export type JsonPath = Step[];

const TERMINATORS = new Set([' ', '\t', '\r', '\n', '.', ',', '[', ']', '$', '@', '{', '}']);
const SLICE = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;

/** Parses a column JSONPath (with or without the surrounding `{}`); throws on syntax errors. */
export function parseJsonPath(expr: string): JsonPath {
  const text = expr.trim().startsWith('{') && expr.trim().endsWith('}') ? expr.trim().slice(1, -1) : expr;
  return parseAction(text);
}

function parseAction(s: string): Step[] {
  const steps: Step[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (s.startsWith('[?(', i)) {
      const end = filterEnd(s, i + 3);
      steps.push(parseFilter(s.slice(i + 3, end)));
      i = end + 2;
    } else if (s.startsWith('..', i)) {
      if (steps.at(-1)?.kind === 'recursive') throw new Error('invalid multiple recursive descent');
      steps.push({ kind: 'recursive' });
      i += 2;
      if (i < s.length && /[\p{L}\p{N}_]/u.test(s[i])) i = parseField(s, i, steps);
    } else if (c === ' ' || c === '@' || c === '$') {
      i++;
    } else if (c === '[') {
      const end = s.indexOf(']', i);
      if (end < 0) throw new Error('unterminated array');
      steps.push(parseBracket(s.slice(i + 1, end)));
      i = end + 1;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < s.length && !(s[j] === c && s[j - 1] !== '\\')) j++;
      if (j >= s.length) throw new Error('unterminated quoted string');
      steps.push({ kind: 'literal', value: s.slice(i + 1, j).replace(/\\(.)/g, '$1') });
      i = j + 1;
    } else if (c === '.') {
      i = parseField(s, i + 1, steps);
    } else if (/[-+\d]/.test(c)) {
      const m = /^[-+]?[\d.]*/.exec(s.slice(i)) as RegExpExecArray;
      const n = Number(m[0]);
      if (Number.isNaN(n)) throw new Error(`cannot parse number ${m[0]}`);
      steps.push({ kind: 'literal', value: n, float: m[0].includes('.') });
      i += m[0].length;
    } else if (/[\p{L}\p{N}_]/u.test(c)) {
      let j = i;
      while (j < s.length && !TERMINATORS.has(s[j])) j++;
      const word = s.slice(i, j);
      if (word !== 'true' && word !== 'false') throw new Error(`unrecognized identifier ${word}`);
      steps.push({ kind: 'literal', value: word === 'true' });
      i = j;
    } else {
      throw new Error(`unrecognized character in action: ${c}`);
    }
  }
  return steps;
}

function parseField(s: string, start: number, steps: Step[]): number {
  let j = start;
  let name = '';
  while (j < s.length && !TERMINATORS.has(s[j])) {
    if (s[j] === '\\' && j + 1 < s.length) j++;
    name += s[j];
    j++;
  }
  steps.push(s.slice(start, j) === '*' ? { kind: 'wildcard' } : { kind: 'field', name });
  return j;
}

function filterEnd(s: string, from: number): number {
  let quote = '';
  for (let j = from; j < s.length; j++) {
    const c = s[j];
    if (quote) {
      if (c === quote && s[j - 1] !== '\\') quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === ')') {
      if (s[j + 1] !== ']') throw new Error('unclosed array expect ]');
      return j;
    }
  }
  throw new Error('unterminated filter');
}

function parseFilter(text: string): Step {
  const m = /^([^!<>=]+)([!<>=]+)(.+?)$/.exec(text);
  if (!m) return { kind: 'filter', left: parseAction(text), op: 'exists', right: [] };
  return { kind: 'filter', left: parseAction(m[1]), op: m[2], right: parseAction(m[3]) };
}

function parseBracket(inner: string): Step {
  const text = inner === '*' ? ':' : inner;
  const parts = text.split(',');
  if (parts.length > 1) return { kind: 'union', parts: parts.map((p) => parseAction(`[${p.trim()}]`)) };
  const dict = /^'([^']*)'$/.exec(text);
  if (dict) return { kind: 'field', name: dict[1] };
  const m = SLICE.exec(text);
  if (!m) throw new Error(`invalid array index ${text}`);
  const num = (v: string | undefined, colon: boolean) => {
    const raw = colon ? v?.slice(1) : v;
    return raw === undefined || raw === '' ? undefined : Number(raw);
  };
  const start = num(m[1], false);
  const end = m[2] === undefined ? (start ?? 0) + 1 : num(m[2], true);
  return { kind: 'slice', start, end, derivedEnd: m[2] === undefined, step: num(m[3], true) };
}

type Kind = 'int' | 'float' | 'string' | 'bool';

function basicKind(v: unknown, float?: boolean): Kind {
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return float || !Number.isInteger(v) ? 'float' : 'int';
  throw new Error('invalid type for comparison');
}

/** text/template's comparison functions: only same basic kinds compare. */
function compare(op: string, left: unknown, right: unknown, rightFloat?: boolean): boolean {
  const lk = basicKind(left);
  const rk = basicKind(right, rightFloat);
  if (lk !== rk) throw new Error('incompatible types for comparison');
  const l = left as string | number | boolean;
  const r = right as string | number | boolean;
  switch (op) {
    case '==':
      return l === r;
    case '!=':
      return l !== r;
    case '<':
    case '>':
    case '<=':
    case '>=':
      if (lk === 'bool') throw new Error('invalid type for comparison');
      return op === '<' ? l < r : op === '>' ? l > r : op === '<=' ? l <= r : l >= r;
    default:
      throw new Error(`unrecognized filter operator ${op}`);
  }
}

function evalSteps(input: unknown[], steps: Step[]): unknown[] {
  let cur = input;
  for (const step of steps) cur = evalStep(cur, step);
  return cur;
}

function evalStep(input: unknown[], step: Step): unknown[] {
  const out: unknown[] = [];
  switch (step.kind) {
    case 'literal':
      return input.map(() => step.value);
    case 'field':
      for (const v of input)
        if (isObject(v) && Object.prototype.hasOwnProperty.call(v, step.name)) out.push(v[step.name]);
      return out;
    case 'wildcard':
      for (const v of input) {
        if (isObject(v)) out.push(...Object.values(v));
        else if (Array.isArray(v)) out.push(...v);
        else if (typeof v === 'string') out.push(...v);
      }
      return out;
    case 'recursive':
      return recursive(input);
    case 'union':
      for (const part of step.parts) out.push(...evalSteps(input, part));
      return out;
    case 'slice':
      for (const v of input) {
        if (v === null || v === undefined) continue;
        if (!Array.isArray(v)) throw new Error('not array or slice');
        out.push(...slice(v, step));
      }
      return out;
    case 'filter':
      for (const v of input) {
        if (!Array.isArray(v)) throw new Error('is not array or slice and cannot be filtered');
        for (const item of v) {
          const lefts = evalSteps([item], step.left);
          if (step.op === 'exists') {
            if (lefts.length > 0) out.push(item);
            continue;
          }
          if (lefts.length === 0) continue;
          if (lefts.length > 1) throw new Error('can only compare one element at a time');
          const rights = evalSteps([item], step.right);
          if (rights.length === 0) continue;
          if (rights.length > 1) throw new Error('can only compare one element at a time');
          const lastRight = step.right.at(-1);
          const rightFloat = lastRight?.kind === 'literal' ? lastRight.float : undefined;
          if (compare(step.op, lefts[0], rights[0], rightFloat)) out.push(item);
        }
      }
      return out;
  }
}

function recursive(input: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const v of input) {
    // client-go also descends into strings (yielding bytes); nothing prints those usefully, so strings are leaves.
    const children = isObject(v) ? Object.values(v) : Array.isArray(v) ? v : [];
    if (children.length === 0) continue;
    out.push(v, ...recursive(children));
  }
  return out;
}

function slice(list: unknown[], step: Extract<Step, { kind: 'slice' }>): unknown[] {
  const len = list.length;
  let start = step.start ?? 0;
  if (start < 0) start += len;
  let end = step.end ?? len;
  if (end < 0 || (end === 0 && step.derivedEnd)) end += len;
  if (end === start) return [];
  if (start >= len || start < 0) throw new Error(`array index out of bounds: index ${start}, length ${len}`);
  if (end > len || end < 0) throw new Error(`array index out of bounds: index ${end - 1}, length ${len}`);
  if (start > end) throw new Error(`starting index ${start} is greater than ending index ${end}`);
  const stride = step.step ?? 1;
  if (stride <= 0) throw new Error('step must be > 0');
  const out: unknown[] = [];
  for (let i = start; i < end; i += stride) out.push(list[i]);
  return out;
}

/** All values a path selects in `data`; throws where client-go's jsonpath reports an error. */
export function findResults(data: unknown, path: string | JsonPath): unknown[] {
  return evalSteps([data], typeof path === 'string' ? parseJsonPath(path) : path);
}

export interface PrinterColumnLike {
  type: string;
  jsonPath: string;
}

/** jsonpath's text output for one value: JSON for lists and maps, Go's `%v` otherwise. */
function text(v: unknown): string {
  if (v === null || v === undefined) return '<no value>';
  if (typeof v === 'object') return goJson(v);
  if (typeof v === 'number') return Number.isInteger(v) ? goNumber(v) : goFloat(v);
  return String(v);
}

/** What metav1.Time accepts (RFC 3339, as Go's time.Parse reads it). */
function isRFC3339(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-](\d{2}):(\d{2}))$/.exec(s);
  if (!m) return false;
  const [y, mo, d, h, mi, sec] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number);
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return (
    mo >= 1 &&
    mo <= 12 &&
    d >= 1 &&
    d <= days &&
    h < 24 &&
    mi < 60 &&
    sec < 60 &&
    (!m[9] || (Number(m[9]) < 24 && Number(m[10]) < 60))
  );
}

/**
 * The cell kube's CRD table convertor puts in a row for `column`: null when the path finds
 * nothing; `string` columns print the value as text; `integer`/`number`/`boolean` columns keep the
 * value when it has that type. A `date` cell is the RFC 3339 timestamp, which the Table code turns
 * into an age; "<invalid>" (unparsable) and "<unknown>" (empty) are printed as they are.
 */
export function printerCell(obj: unknown, column: PrinterColumnLike): string | number | boolean | null {
  let results: unknown[];
  try {
    results = findResults(obj, column.jsonPath);
  } catch {
    return null;
  }
  if (results.length === 0) return null;
  const value = results[0];
  if (column.type === 'string') return text(value);
  if (value === null || value === undefined) return null;
  switch (column.type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      if (typeof value !== 'string') return null;
      if (value === '' || value === 'null') return '<unknown>';
      return isRFC3339(value) ? value : '<invalid>';
    default:
      return null;
  }
}
