// What an answer carries, once the Accept header was negotiated: the resource's own JSON, a
// Table, or its metadata only. kube-apiserver transforms every answer of a resource endpoint
// the same way (transformResponseObject, watchEmbeddedEncoder in handlers/response.go).
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { ListResult } from '../../registry/list.ts';
import {
  asPartialObjectMetadata,
  asPartialObjectMetadataList,
  listAsSingleObject,
  objectAsList,
} from '../output/partial-metadata.ts';
import type { WatchEventType } from '../../registry/watch.ts';
import type { HandlerDeps, ResourceRequest } from './types.ts';

const isStatus = (json: string): boolean => (JSON.parse(json) as JsonObject).kind === 'Status';

/** One object (a get, or what a write returns); a Status is never converted. */
export function objectBody(deps: HandlerDeps, r: ResourceRequest, json: string): string {
  const { output } = r;
  if (output.as === undefined || isStatus(json)) return json;
  switch (output.as) {
    case 'PartialObjectMetadata':
      return asPartialObjectMetadata(json, output.version);
    case 'PartialObjectMetadataList':
      throw objectAsList(r.def);
    case 'Table':
      return deps.extensions.table?.object(r.def, json, r.req, output.version) ?? json;
  }
}

/** A collection; undefined when it leaves as the resource's own list. */
export function convertedListBody(
  deps: HandlerDeps,
  r: ResourceRequest,
  itemsJson: () => string[],
  result: ListResult,
): string | undefined {
  const { output } = r;
  switch (output.as) {
    case undefined:
      return undefined;
    case 'PartialObjectMetadata':
      throw listAsSingleObject(r.def);
    case 'PartialObjectMetadataList':
      return asPartialObjectMetadataList(itemsJson(), result, output.version);
    case 'Table':
      return deps.extensions.table?.list(r.def, itemsJson(), r.req, result, output.version);
  }
}

export interface WatchObjectEncoder {
  encode(type: WatchEventType, json: string): string;
  /**
   * Names the representation when every watcher asking for it gets the same bytes for the same
   * object, so an encoded event can be shared; undefined when encoding depends on the watch (a
   * Table's first event carries the column definitions).
   */
  sharedAs: string | undefined;
}

/**
 * How a watch's event objects are written. A watch asked for PartialObjectMetadataList gets the
 * objects unchanged: kube's conversion of a single object to a list fails, and its watch encoder
 * then sends the object as it is.
 */
export function watchObjectEncoder(deps: HandlerDeps, r: ResourceRequest): WatchObjectEncoder {
  const { output } = r;
  switch (output.as) {
    case 'PartialObjectMetadata':
      return {
        encode: (_type, json) => asPartialObjectMetadata(json, output.version),
        sharedAs: `PartialObjectMetadata;${output.version}`,
      };
    case 'Table': {
      const table = deps.extensions.table?.watch(r.def, r.req, output.version);
      if (table) return { encode: (type, json) => (type === 'BOOKMARK' ? json : table(json)), sharedAs: undefined };
      return { encode: (_type, json) => json, sharedAs: '' };
    }
    default:
      return { encode: (_type, json) => json, sharedAs: '' };
  }
}
