// A new object before it is stored: system fields, defaults, admission and validation, in
// kube-apiserver's order.
import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { formatTime } from '../../../apimachinery/time/index.ts';
import type { AdmissionAttributes, RequestContext } from '../context.ts';
import { hasSubresource, type ResourceDef } from '../resource.ts';
import type { StoreContext } from './context.ts';
import { recordManagedFields } from './managed-fields.ts';
import { afterMutation, normalize } from './normalize.ts';
import { meta } from './objects.ts';
import { validate } from './validate.ts';

export async function prepareCreate(
  store: StoreContext,
  def: ResourceDef,
  obj: JsonObject,
  ctx: RequestContext,
): Promise<JsonObject> {
  const m = meta(obj);
  stampSystemFields(store, def, obj);
  normalize(def, obj, 'create', ctx);
  const attrs: AdmissionAttributes = {
    def,
    operation: 'CREATE',
    namespace: m.namespace,
    name: String(m.name ?? ''),
    ctx,
  };
  let admitted = await store.admission.mutate(attrs, obj, undefined);
  admitted = afterMutation(def, admitted, obj, ctx, 'create');
  validate(def, admitted, undefined);
  await store.admission.validate(attrs, admitted, undefined);
  recordManagedFields(store, def, undefined, admitted, ctx, undefined);
  return admitted;
}

function stampSystemFields(store: StoreContext, def: ResourceDef, obj: JsonObject): void {
  const m = meta(obj);
  m.uid = randomUUID();
  m.creationTimestamp = formatTime(store.now());
  delete m.deletionTimestamp;
  delete m.deletionGracePeriodSeconds;
  delete m.selfLink;
  if (def.hasGeneration) m.generation = 1;
  else delete m.generation;
  // A new object's status is the system's to write, except for Nodes (kubelets register with status).
  if (hasSubresource(def, 'status') && !(def.builtin && def.kind === 'Node')) delete obj.status;
}
