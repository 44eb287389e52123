// The TableOptions query of a Table answer (which conversion a request gets is negotiated in
// ../output/negotiate.ts).
import type { IncomingMessage } from 'node:http';
import { badRequest } from '../../../apimachinery/errors/index.ts';
import type { MetaVersion } from '../output/negotiate.ts';

export type TableVersion = MetaVersion;
export type IncludeObject = 'None' | 'Object' | 'Metadata';

export function includeObjectOf(req: IncomingMessage): IncludeObject {
  const q = new URL(req.url ?? '/', 'http://x').searchParams;
  const v = q.get('includeObject') ?? '';
  if (v === '') return 'Metadata';
  if (v === 'None' || v === 'Object' || v === 'Metadata') return v;
  throw badRequest(
    `Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(v)}: must be 'Metadata', 'Object', 'None', or empty`,
  );
}
