// metav1.ObjectMeta and the object envelope, naming only the fields the server and the runtime
// read or write themselves; everything else passes through the index signatures untouched.
import type { JsonObject } from './json-types.ts';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/**
 * One manager's field set, as a client may send it: every field optional (the server decides what
 * is valid). Entries the server writes have all of them; see {@link WrittenManagedFieldsEntry}.
 */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: JsonObject;
  subresource?: string;
}

/** An entry as the server writes it: manager, operation, apiVersion and a FieldsV1 set always present. */
export type WrittenManagedFieldsEntry = ManagedFieldsEntry &
  Required<Pick<ManagedFieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'fieldsV1'>> & { fieldsType: 'FieldsV1' };

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
  [key: string]: unknown;
}

/**
 * Any object with metadata. `apiVersion` and `kind` are optional because clients build objects
 * without them (the URL names the kind); stored and served objects always have them.
 */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}
