// What the resource handler serves beyond the store's generic verbs: the registry's subresources
// (binding, eviction, scale; see registry/subresources/) and, when installed, Table output.
import type { IncomingMessage } from 'node:http';
import type { ListResult } from '../registry/list.ts';
import type { ResourceDef } from '../registry/resource.ts';
import type { Subresources } from '../registry/subresources/index.ts';

/** Table output (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`); absent means plain JSON. */
export interface TableRenderer {
  list(def: ResourceDef, itemsJson: string[], req: IncomingMessage, result: ListResult): { body: string } | undefined;
  object(def: ResourceDef, json: string, req: IncomingMessage): { body: string } | undefined;
  /** Returns a converter for watch event objects when the watch asked for Tables. */
  watch(def: ResourceDef, req: IncomingMessage): ((json: string) => string) | undefined;
}

export interface Extensions extends Subresources {
  table?: TableRenderer;
}
