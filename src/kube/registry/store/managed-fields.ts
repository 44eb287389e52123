// Records the request's field manager in metadata.managedFields (for writes other than apply,
// which computes its own).
import { internalError } from '../../../apimachinery/errors/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { setManagedFields, updateManagedFields } from '../../patch/apply/managed-fields.ts';
import { atomicSchemaInfo } from '../../patch/schema-info.ts';
import { formatTime } from '../../../apimachinery/time/index.ts';
import type { RequestContext } from '../context.ts';
import { apiVersionOf, hasSubresource, type ResourceDef } from '../resource.ts';
import type { StoreContext } from './context.ts';

export function recordManagedFields(
  store: StoreContext,
  def: ResourceDef,
  current: JsonObject | undefined,
  next: JsonObject,
  ctx: RequestContext,
  subresource: string | undefined,
): void {
  if (!ctx.fieldManager) return;
  let entries: ReturnType<typeof updateManagedFields>;
  try {
    entries = updateManagedFields(current, next, ctx.fieldManager, {
      apiVersion: apiVersionOf(def),
      subresource,
      now: formatTime(store.now()),
      schemaInfo: def.strategy.schemaInfo ?? atomicSchemaInfo,
      statusSubresource: hasSubresource(def, 'status'),
    });
  } catch (e) {
    throw internalError(`tracking managed fields: ${(e as Error).message}`);
  }
  next.metadata = setManagedFields(next, entries).metadata;
}
