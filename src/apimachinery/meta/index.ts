// Object meta types: plain JSON, ObjectMeta and the object envelope, metav1.Status.
export type { JsonPrimitive, JsonValue, JsonObject } from './json-types.ts';
export type {
  OwnerReference,
  ManagedFieldsEntry,
  WrittenManagedFieldsEntry,
  ObjectMeta,
  KubeObject,
} from './object-meta.ts';
export type { StatusCause, StatusDetails, Status } from './status.ts';
export { isStatus } from './status.ts';
