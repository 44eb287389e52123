// Content negotiation for Tables: which Accept clause wins, and the TableOptions query.
import type { IncomingMessage } from 'node:http';
import { badRequest, StatusError } from '../../../apimachinery/errors/index.ts';

export type TableVersion = 'v1' | 'v1beta1';
export type IncludeObject = 'None' | 'Object' | 'Metadata';

interface Clause {
  type: string;
  subtype: string;
  q: number;
  params: Map<string, string>;
}

function parseAccept(header: string): Clause[] {
  const clauses: Clause[] = [];
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
  const rank = (c: Clause) => (c.type === '*' ? 2 : c.subtype === '*' ? 1 : 0);
  return clauses
    .map((c, i) => ({ c, i }))
    .sort((a, b) => b.c.q - a.c.q || rank(a.c) - rank(b.c) || a.i - b.i)
    .map((x) => x.c);
}

const servesJson = (c: Clause): boolean =>
  c.type === '*' || (c.type === 'application' && (c.subtype === 'json' || c.subtype === '*'));

/**
 * The Table version the request asks for, or undefined when the first clause the server can
 * honour is a plain media type. Throws 406 when every clause asks for a conversion that cannot
 * be served, as kube-apiserver does.
 */
export function negotiateTable(req: IncomingMessage): TableVersion | undefined {
  const header = req.headers.accept;
  if (!header) return undefined;
  let sawConversion = false;
  for (const c of parseAccept(Array.isArray(header) ? header.join(',') : header)) {
    if (c.q <= 0) continue;
    const as = c.params.get('as');
    if (as === undefined && !c.params.has('g') && !c.params.has('v')) return undefined;
    sawConversion = true;
    if (as !== 'Table' || c.params.get('g') !== 'meta.k8s.io' || !servesJson(c)) continue;
    const v = c.params.get('v');
    if (v === 'v1' || v === 'v1beta1') return v;
  }
  if (sawConversion) {
    throw new StatusError(
      406,
      'NotAcceptable',
      'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
  }
  return undefined;
}

export function includeObjectOf(req: IncomingMessage): IncludeObject {
  const q = new URL(req.url ?? '/', 'http://x').searchParams;
  const v = q.get('includeObject') ?? '';
  if (v === '') return 'Metadata';
  if (v === 'None' || v === 'Object' || v === 'Metadata') return v;
  throw badRequest(
    `Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(v)}: must be 'Metadata', 'Object', 'None', or empty`,
  );
}
