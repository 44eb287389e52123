// The pods/binding subresource, as kube's BindingREST: assigns a pod to a node in one write that
// sets spec.nodeName and the PodScheduled=True condition together. A pod already bound, or being
// deleted, is a conflict. The built-in scheduler binds through here as any other scheduler would.
import { badRequest, conflict, notFound } from '../../../apimachinery/errors/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { formatTime } from '../../../apimachinery/time/index.ts';
import type { RequestContext } from '../context.ts';
import type { ResourceDef } from '../resource.ts';
import { refOf, type ObjectStore } from '../store/index.ts';

/** POST pods/{name}/binding: returns the Success Status (201) or throws the failure. */
export async function bindPod(
  store: ObjectStore,
  def: ResourceDef,
  ns: string | undefined,
  name: string,
  binding: JsonObject,
  ctx: RequestContext,
): Promise<JsonObject> {
  const target = (binding.target ?? {}) as JsonObject;
  const node = typeof target.name === 'string' ? target.name : '';
  if (!node) throw badRequest('target.name: Required value');
  let already: string | undefined;
  const updated = await store.updateWith(
    def,
    ns,
    name,
    ctx,
    (pod) => {
      const spec = (pod.spec ?? {}) as JsonObject;
      if (spec.nodeName) {
        already = String(spec.nodeName);
        return undefined;
      }
      if ((pod.metadata as JsonObject).deletionTimestamp) {
        already = '';
        return undefined;
      }
      spec.nodeName = node;
      pod.spec = spec;
      const status = (pod.status ?? {}) as JsonObject;
      const conditions = ((status.conditions as JsonObject[] | undefined) ?? []).filter(
        (c) => c.type !== 'PodScheduled',
      );
      conditions.push({
        type: 'PodScheduled',
        status: 'True',
        lastProbeTime: null,
        lastTransitionTime: formatTime(new Date()),
      });
      pod.status = { ...status, conditions };
      return pod;
    },
    'binding',
  );
  if (!updated) throw notFound(refOf(def), name);
  if (already !== undefined) {
    throw conflict(
      refOf(def),
      name,
      already
        ? `pod ${name} is already assigned to node "${already}"`
        : `pod ${name} is being deleted, cannot be assigned to a host`,
    );
  }
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
}
