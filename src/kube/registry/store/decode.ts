// A request body as an object of the resource's kind: apiVersion and kind are checked, then set.
import { badRequest } from '../../../apimachinery/errors/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { apiVersionOf, type ResourceDef } from '../resource.ts';

export function decodeObject(def: ResourceDef, body: unknown): JsonObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest(`the body of the request was not a ${def.kind} object`);
  }
  const obj = body as JsonObject;
  const expected = apiVersionOf(def);
  if (obj.apiVersion !== undefined && obj.apiVersion !== expected) {
    throw badRequest(
      `the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expected})`,
    );
  }
  if (obj.kind !== undefined && obj.kind !== def.kind) {
    throw badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${def.kind})`);
  }
  obj.apiVersion = expected;
  obj.kind = def.kind;
  return obj;
}
