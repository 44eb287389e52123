// Metadata-only answers: kube-apiserver's asPartialObjectMetadata and asPartialObjectMetadataList
// (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/response.go) over the JSON we serve. Each
// item carries its own kind and apiVersion; an empty list's items are null, because the Go list
// starts from a nil slice and `items` has no omitempty (apimachinery pkg/apis/meta/v1/types.go).
import { StatusError } from '../../../apimachinery/errors/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { ListResult } from '../../registry/list.ts';
import type { ResourceDef } from '../../registry/resource.ts';
import type { MetaVersion } from './negotiate.ts';
import { metaModels } from '../../builtins/openapi/meta.ts';
import { META } from '../../builtins/openapi/schema.ts';

/**
 * metav1.ObjectMeta's fields in Go declaration order, the order encoding/json writes them in: the
 * ObjectMeta model's properties, which are written in that order.
 */
const OBJECT_META_FIELDS = Object.keys(metaModels[`${META}.ObjectMeta`].properties ?? {});

/** meta.AsPartialObjectMetadata: the typed ObjectMeta, so unknown keys go and a zero creationTimestamp is null. */
function objectMeta(metadata: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k of OBJECT_META_FIELDS) {
    const v = metadata[k];
    if (v !== undefined) out[k] = v;
    else if (k === 'creationTimestamp') out[k] = null;
  }
  return out;
}

function partialJson(obj: JsonObject, version: MetaVersion): string {
  const metadata = objectMeta((obj.metadata as JsonObject | undefined) ?? {});
  return `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/${version}","metadata":${JSON.stringify(metadata)}}`;
}

/** One object as PartialObjectMetadata; a Status (a watch's ERROR) passes through, as in kube. */
export function asPartialObjectMetadata(json: string, version: MetaVersion): string {
  const obj = JSON.parse(json) as JsonObject;
  return obj.kind === 'Status' ? json : partialJson(obj, version);
}

export function asPartialObjectMetadataList(itemsJson: string[], result: ListResult, version: MetaVersion): string {
  const metadata: JsonObject = { resourceVersion: String(result.revision) };
  if (result.continueToken) metadata.continue = result.continueToken;
  if (result.remainingItemCount !== undefined) metadata.remainingItemCount = result.remainingItemCount;
  const items =
    itemsJson.length === 0
      ? 'null'
      : `[${itemsJson.map((text) => partialJson(JSON.parse(text) as JsonObject, version)).join(',')}]`;
  return `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/${version}","metadata":${JSON.stringify(metadata)},"items":${items}}`;
}

/**
 * The Go type kube-apiserver names in its 406 (`%T` of what its storage returned): the internal
 * type of a built-in kind (events.k8s.io events are core events inside), or unstructured for
 * custom resources.
 */
function goTypeName(def: ResourceDef, list: boolean): string {
  if (!def.builtin) return list ? '*unstructured.UnstructuredList' : '*unstructured.Unstructured';
  const pkg = def.group === '' || def.group === 'events.k8s.io' ? 'core' : def.group.split('.')[0];
  return `*${pkg}.${list ? def.listKind : def.kind}`;
}

/** A collection asked for as a single PartialObjectMetadata (handlers/response.go). */
export function listAsSingleObject(def: ResourceDef): StatusError {
  return new StatusError(
    406,
    'NotAcceptable',
    `you requested PartialObjectMetadata, but the requested object is a list (${goTypeName(def, true)})`,
  );
}

/** A single object asked for as a PartialObjectMetadataList (handlers/response.go). */
export function objectAsList(def: ResourceDef): StatusError {
  return new StatusError(
    406,
    'NotAcceptable',
    `you requested PartialObjectMetadataList, but the requested object is not a list (${goTypeName(def, false)})`,
  );
}
