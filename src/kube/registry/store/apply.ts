// Server-side apply: merges an applied configuration into the object (or into nothing, creating
// it) and computes the applier's managedFields.
import { badRequest, invalid } from '../../../apimachinery/errors/index.ts';
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';
import { isObject } from '../../../apimachinery/json/index.ts';
import { serverSideApply } from '../../patch/apply/apply.ts';
import { atomicSchemaInfo } from '../../patch/schema-info.ts';
import { formatTime } from '../../../apimachinery/time/index.ts';
import type { RequestContext } from '../context.ts';
import { apiVersionOf, hasSubresource, type ResourceDef } from '../resource.ts';
import type { StoreContext } from './context.ts';
import { createObject } from './create.ts';
import { decodeObject } from './decode.ts';
import { meta } from './objects.ts';
import type { WriteResult } from './types.ts';

export interface ApplyOptions {
  subresource?: string;
  force?: boolean;
}

export function applyConfiguration(
  store: StoreContext,
  def: ResourceDef,
  current: JsonObject | undefined,
  body: unknown,
  ctx: RequestContext,
  options: ApplyOptions,
): JsonObject {
  if (!ctx.fieldManager) {
    throw invalid(def.group, def.kind, String(meta((current ?? {}) as JsonObject).name ?? ''), [
      { reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' },
    ]);
  }
  // Unlike create and update, apply takes apiVersion and kind only from the configuration
  // (managedfields versioncheck.go): missing ones are an "invalid object type".
  if (!isObject(body as JsonValue)) decodeObject(def, body);
  const applied = body as JsonObject;
  const result = serverSideApply(current, applied, {
    manager: ctx.fieldManager,
    force: options.force ?? false,
    apiVersion: apiVersionOf(def),
    kind: def.kind,
    typeErrors: def.strategy.decodeErrors && ((obj) => def.strategy.decodeErrors?.(obj, 'apply') ?? []),
    conversionErrors: def.strategy.decodeErrors && ((obj) => def.strategy.decodeErrors?.(obj, 'unstructured') ?? []),
    subresource: options.subresource,
    now: formatTime(store.now()),
    schemaInfo: def.strategy.schemaInfo ?? atomicSchemaInfo,
    statusSubresource: hasSubresource(def, 'status'),
  });
  return result.object;
}

export async function createByApply(
  store: StoreContext,
  def: ResourceDef,
  namespace: string | undefined,
  name: string,
  body: unknown,
  ctx: RequestContext,
  force: boolean,
): Promise<WriteResult> {
  const applied = applyConfiguration(store, def, undefined, body, ctx, { force });
  const m = meta(applied);
  if (m.name !== undefined && m.name !== name) {
    throw badRequest(`the name of the object (${String(m.name)}) does not match the name on the URL (${name})`);
  }
  m.name = name;
  // An empty fieldManager keeps the managedFields the apply computed: the applier owns what it set.
  const created = await createObject(store, def, namespace, applied, { ...ctx, fieldManager: '' });
  return { object: created, created: true };
}
