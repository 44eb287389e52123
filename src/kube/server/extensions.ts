// What the resource handler serves beyond the store's generic verbs: the registry's subresources
// (binding, eviction, scale; see registry/subresources/) and, when installed, Table output.
import type { IncomingMessage } from 'node:http';
import type { ListResult } from '../registry/list.ts';
import type { ResourceDef } from '../registry/resource.ts';
import type { Subresources } from '../registry/subresources/index.ts';
import type { MetaVersion } from './output/negotiate.ts';

/**
 * Table output (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`), once negotiated; absent,
 * Tables are not acceptable. `req` carries the TableOptions query.
 */
export interface TableRenderer {
  list(def: ResourceDef, itemsJson: string[], req: IncomingMessage, result: ListResult, version: MetaVersion): string;
  object(def: ResourceDef, json: string, req: IncomingMessage, version: MetaVersion): string;
  /** The converter of a watch's event objects. */
  watch(def: ResourceDef, req: IncomingMessage, version: MetaVersion): (json: string) => string;
}

export interface Extensions extends Subresources {
  table?: TableRenderer;
}
