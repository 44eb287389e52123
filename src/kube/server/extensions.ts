// What the resource handler serves beyond the store's generic verbs: the registry's subresources
// (binding, eviction, scale; see registry/subresources/), when installed, Table output, and the
// kubelet's side of pods/log, exec and port-forward.
import type { IncomingMessage } from 'node:http';
import type { PodStreams } from '../kubelet/streams.ts';
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
  /**
   * The nodes' answers for pods/log, exec and portforward, read at each request so the control
   * plane (or a test) can set it after start. Absent: logs are empty, exec and portforward 404.
   */
  podStreams?: PodStreams;
}
