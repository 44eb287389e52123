// Kind defaults and schema pruning for a write, before and again after mutating admission.
import { badRequest } from '../../../apimachinery/errors/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { coerceObjectMeta } from '../../crd/schema/object-meta.ts';
import type { RequestContext } from '../context.ts';
import type { ResourceDef } from '../resource.ts';
import { normalizeTimes } from '../times.ts';
import { meta } from './objects.ts';

/** What a mutating webhook may not change; the values from before admission are put back. */
const IDENTITY_META = [
  'uid',
  'creationTimestamp',
  'generation',
  'namespace',
  'name',
  'resourceVersion',
  'deletionTimestamp',
];

/** Kind defaults and schema pruning, with `fieldValidation` reporting of unknown fields. */
export function normalize(
  def: ResourceDef,
  obj: JsonObject,
  op: 'create' | 'update',
  ctx: RequestContext,
  old?: JsonObject,
): void {
  // Go decodes built-ins into typed ObjectMeta, so a wrong type there is a 400 decode error
  // (CRs get the same check while pruning); later code may assume the Go types.
  if (def.builtin) {
    const bad = coerceObjectMeta(obj.metadata, 'metadata').invalid;
    if (bad.length > 0) throw badRequest(bad.join(', '));
  }
  const pruned = def.strategy.prune?.(obj) ?? [];
  if (pruned.length > 0 && ctx.fieldValidation !== 'Ignore') {
    const messages = pruned.map((p) => `unknown field "${p}"`);
    if (ctx.fieldValidation === 'Strict') throw badRequest(`strict decoding error: ${messages.join(', ')}`);
    ctx.warnings.push(...messages);
  }
  def.strategy.applyDefaults?.(obj, op, old);
  if (def.builtin) normalizeTimes(obj);
}

/** Re-applies what a mutating webhook must not undo, then defaults and prunes again. */
export function afterMutation(
  def: ResourceDef,
  admitted: JsonObject,
  before: JsonObject,
  ctx: RequestContext,
  op: 'create' | 'update',
): JsonObject {
  if (admitted === before) return admitted;
  const am = meta(admitted);
  const bm = meta(before);
  for (const f of IDENTITY_META) {
    if (bm[f] === undefined) delete am[f];
    else am[f] = bm[f];
  }
  normalize(def, admitted, op, { ...ctx, fieldValidation: 'Ignore' });
  return admitted;
}
