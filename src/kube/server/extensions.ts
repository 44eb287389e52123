// What the resource handler serves beyond the store's generic verbs: the registry's subresources
// (binding, eviction, scale; see registry/subresources/), when installed, Table output, and the
// kubelet's side of pods/log, exec and port-forward.
import type { IncomingMessage } from 'node:http';
import type { PodStreams } from '../kubelet/streams.ts';
import type { ListResult } from '../registry/list.ts';
import type { ResourceDef } from '../registry/resource.ts';
import type { Subresources } from '../registry/subresources/index.ts';
import type { MetaVersion } from './output/negotiate.ts';
import type { RequestContext } from '../registry/context.ts';
import type { JsonObject } from '../../apimachinery/meta/index.ts';

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

/**
 * A resource that is only ever created and never stored (TokenReview, SelfSubjectAccessReview,
 * the serviceaccounts/token subresource): POST decodes the body and hands it here; the reply is
 * the returned object with its HTTP code (201 as kube). `name` is the object named in the path
 * (for subresources), `namespace` the path's namespace.
 */
export interface CreateOnly {
  create(
    request: { def: ResourceDef; namespace: string | undefined; name: string | undefined; body: JsonObject },
    ctx: RequestContext,
  ): Promise<{ code: number; object: JsonObject }>;
}

/** `group/resource` or `group/resource/subresource`, as createOnly is keyed. */
export function createOnlyKey(group: string, resource: string, subresource?: string): string {
  return subresource ? `${group}/${resource}/${subresource}` : `${group}/${resource}`;
}

export interface Extensions extends Subresources {
  table?: TableRenderer;
  /**
   * The nodes' answers for pods/log, exec and portforward, read at each request so the control
   * plane (or a test) can set it after start. Absent: logs are empty, exec and portforward 404.
   */
  podStreams?: PodStreams;
  /** Create-only resources and subresources, keyed by createOnlyKey. */
  createOnly?: Map<string, CreateOnly>;
}
