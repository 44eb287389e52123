// Which parts of an incoming object a write may change: status-subresource isolation in both
// directions, pods/binding, and namespace /finalize.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { cloneJson } from '../../../apimachinery/json/index.ts';
import { hasSubresource, type ResourceDef } from '../resource.ts';

export function isolate(
  def: ResourceDef,
  current: JsonObject,
  incoming: JsonObject,
  subresource: string | undefined,
): JsonObject {
  if (subresource === 'status') {
    const next = cloneJson(current);
    if (incoming.status === undefined) delete next.status;
    else next.status = incoming.status;
    // Built-in status strategies reset only the spec (and what builtins/status.ts lists), so
    // metadata edits made through /status persist: the deployment controller writes its revision
    // annotation with UpdateStatus (pkg/controller/deployment/sync.go). Custom resources' /status
    // changes status alone; managedFields come from the request.
    if (def.builtin && incoming.metadata !== undefined) next.metadata = cloneJson(incoming.metadata);
    return next;
  }
  if (subresource === 'binding') {
    const next = cloneJson(current);
    next.spec = { ...((next.spec as JsonObject) ?? {}), nodeName: (incoming.spec as JsonObject).nodeName };
    next.status = cloneJson(incoming.status ?? {});
    return next;
  }
  if (subresource === 'finalize') {
    const next = cloneJson(current);
    const spec = (incoming.spec ?? {}) as JsonObject;
    next.spec = { ...((next.spec as JsonObject) ?? {}), finalizers: spec.finalizers ?? [] };
    return next;
  }
  return isolateMainResource(def, current, incoming);
}

function isolateMainResource(def: ResourceDef, current: JsonObject, incoming: JsonObject): JsonObject {
  const next = cloneJson(incoming);
  const isNamespace = def.builtin && def.kind === 'Namespace';
  if (hasSubresource(def, 'status') && !isNamespace) {
    if (current.status === undefined) delete next.status;
    else next.status = cloneJson(current.status);
  }
  if (isNamespace) {
    // spec.finalizers only change through /finalize; status.phase is the server's.
    if (current.spec !== undefined) next.spec = cloneJson(current.spec);
    if (current.status !== undefined) next.status = cloneJson(current.status);
  }
  return next;
}
