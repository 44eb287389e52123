// What the server knows about one resource (a plural name in a group/version): enough to route,
// discover, validate and store it. Built-in kinds come from builtins.ts; custom resources are
// added and removed at run time as their CRDs become Established.
import type { SchemaInfo } from '../patch/schema-info.ts';
import type { FieldError } from '../../apimachinery/validation/field-errors.ts';
import type { JsonObject } from '../../apimachinery/meta/index.ts';

export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

export interface ScaleInfo {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** Hooks that differ per kind; the generic store calls them at fixed points of every write. */
export interface ResourceStrategy {
  /** Built-in defaults or CRD structural defaults (mutates). */
  applyDefaults?(obj: JsonObject, op: 'create' | 'update', old?: JsonObject): void;
  /** Carries over what an update may not change (built-ins: status/spec isolation, immutable fields). */
  prepareForUpdate?(next: JsonObject, old: JsonObject, subresource: string | undefined): void;
  /**
   * Whether an update moves metadata.generation (the kind's PrepareForUpdate rule, judged after
   * mutating admission); undefined: any change outside metadata (and status) does.
   */
  generationChanged?(next: JsonObject, old: JsonObject, subresource: string | undefined): boolean | undefined;
  /** Allocates what a new object needs from cluster-wide pools (Service ClusterIPs); throws to reject. */
  allocate?(obj: JsonObject): void;
  /** Returns what `allocate` took when the object goes away or its write failed. */
  release?(obj: JsonObject): void;
  /** Removes fields unknown to the schema; returns the removed paths for fieldValidation. */
  prune?(obj: JsonObject): string[];
  /**
   * Built-ins: what kube's decoders say about values of the wrong JSON type (builtins'
   * typed-decode.ts): 'json' for bodies, 'unstructured' for strategic merge patch results,
   * 'apply' for apply configurations. Empty when the object decodes.
   */
  decodeErrors?(obj: JsonObject, flavour: 'json' | 'unstructured' | 'apply'): string[];
  /** Kind-specific validation (metadata is validated by the store). */
  validate?(obj: JsonObject, old?: JsonObject): FieldError[];
  /** How lists merge, for strategic merge patch and server-side apply. */
  schemaInfo?: SchemaInfo;
}

/**
 * A CRD's conversion webhook (spec.conversion.strategy Webhook), shared by the defs of all its
 * versions. Without one, versions differ only in apiVersion (strategy None).
 */
export interface CustomResourceConverter {
  /**
   * `objects` converted to `apiVersion`, in order; those already in it are returned as they are
   * and not sent. `asList`: the objects are one list's items, converted in one review.
   */
  convert(objects: JsonObject[], apiVersion: string, asList: boolean): Promise<JsonObject[]>;
}

export interface ResourceDef {
  group: string;
  version: string;
  /** Plural, lower case: `deployments`. */
  resource: string;
  kind: string;
  listKind: string;
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  verbs: string[];
  /** Subresource names served under this resource: status, scale, binding, finalize. */
  subresources: string[];
  builtin: boolean;
  /** Whether metadata.generation is kept (custom resources and workload kinds). */
  hasGeneration: boolean;
  /** PUT without resourceVersion: allowed for built-ins, 422 for custom resources. */
  allowUnconditionalUpdate: boolean;
  strategy: ResourceStrategy;
  printerColumns?: PrinterColumn[];
  scale?: ScaleInfo;
  /**
   * Where objects live in storage when it is not this resource's own prefix: events.k8s.io/v1
   * events are a view over core/v1 events.
   */
  storageOf?: { group: string; resource: string };
  /** Converts between this view and the stored form (used with storageOf). */
  view?: { toStored(obj: JsonObject): JsonObject; fromStored(obj: JsonObject): JsonObject };
  /** Storage version of a CRD when this def is a non-storage version. */
  storageVersion?: string;
  /** Set on every version of a CRD converted by a webhook; reads and writes across versions await it. */
  converter?: CustomResourceConverter;
}

export const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export function apiVersionOf(def: Pick<ResourceDef, 'group' | 'version'>): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

export function hasSubresource(def: ResourceDef, name: string): boolean {
  return def.subresources.includes(name);
}
