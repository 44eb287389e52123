// Subresources and output formats whose logic lives outside the generic handler: pod binding,
// pod eviction (eviction.ts), the scale subresource, and (when installed) Table output.
import type { IncomingMessage } from 'node:http';
import { badRequest, conflict, notFound } from '../errors.ts';
import type { JsonObject, JsonValue } from '../types.ts';
import { formatTime } from '../util/duration.ts';
import { selectorString } from './table/fields.ts';
import type { RequestContext } from '../registry/context.ts';
import type { ListResult } from '../registry/list.ts';
import type { ResourceDef } from '../registry/resource.ts';
import { refOf, type ObjectStore } from '../registry/store.ts';
import { applyPatch, PATCH_CONTENT_TYPES } from '../registry/patching.ts';
import { atomicSchemaInfo } from '../patch/schema-info.ts';
import { PodEvictions } from './eviction.ts';

/** Table output (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`); absent means plain JSON. */
export interface TableRenderer {
  list(def: ResourceDef, itemsJson: string[], req: IncomingMessage, result: ListResult): { body: string } | undefined;
  object(def: ResourceDef, json: string, req: IncomingMessage): { body: string } | undefined;
  /** Returns a converter for watch event objects when the watch asked for Tables. */
  watch(def: ResourceDef, req: IncomingMessage): ((json: string) => string) | undefined;
}

export interface ScaleSubresource {
  get(def: ResourceDef, ns: string | undefined, name: string): JsonObject;
  update(
    def: ResourceDef,
    ns: string | undefined,
    name: string,
    method: string,
    body: Buffer,
    contentType: string,
    ctx: RequestContext,
  ): Promise<JsonObject>;
}

export interface Extensions {
  table?: TableRenderer;
  scale: ScaleSubresource;
  bind(
    def: ResourceDef,
    ns: string | undefined,
    name: string,
    binding: JsonObject,
    ctx: RequestContext,
  ): Promise<JsonObject>;
  /** POST pods/{name}/eviction with a policy/v1 (or v1beta1) Eviction body. */
  evict(
    def: ResourceDef,
    ns: string | undefined,
    name: string,
    eviction: unknown,
    ctx: RequestContext,
  ): Promise<JsonObject>;
}

function getPath(obj: JsonObject, path: string): unknown {
  let cur: unknown = obj;
  for (const p of path.replace(/^\./, '').split('.')) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as JsonObject)[p];
  }
  return cur;
}

function setPath(obj: JsonObject, path: string, value: unknown): void {
  const parts = path.replace(/^\./, '').split('.');
  let cur = obj;
  for (const p of parts.slice(0, -1)) {
    if (typeof cur[p] !== 'object' || cur[p] === null) cur[p] = {};
    cur = cur[p] as JsonObject;
  }
  cur[parts[parts.length - 1]] = value as JsonObject;
}

function scalePaths(def: ResourceDef): { spec: string; status: string; selector?: string } {
  if (def.scale)
    return {
      spec: def.scale.specReplicasPath,
      status: def.scale.statusReplicasPath,
      selector: def.scale.labelSelectorPath,
    };
  return { spec: '.spec.replicas', status: '.status.replicas', selector: '.spec.selector' };
}

export function defaultExtensions(store: ObjectStore): Extensions {
  const toScale = (def: ResourceDef, obj: JsonObject): JsonObject => {
    const m = obj.metadata as JsonObject;
    const paths = scalePaths(def);
    const sel = paths.selector ? getPath(obj, paths.selector) : undefined;
    // Built-ins keep a LabelSelector; kube reports it in selector syntax, keys sorted.
    const selector = def.builtin
      ? selectorString(sel as JsonValue) || undefined
      : typeof sel === 'string'
        ? sel
        : undefined;
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name: m.name,
        namespace: m.namespace,
        uid: m.uid,
        resourceVersion: m.resourceVersion,
        creationTimestamp: m.creationTimestamp,
      },
      spec: { replicas: (getPath(obj, paths.spec) as number | undefined) ?? 0 },
      status: { replicas: (getPath(obj, paths.status) as number | undefined) ?? 0, ...(selector ? { selector } : {}) },
    };
  };
  const evictions = new PodEvictions(store);
  return {
    evict: (def, ns, name, eviction, ctx) => evictions.evict(def, ns, name, eviction, ctx),
    scale: {
      get: (def, ns, name) => toScale(def, store.get(def, ns, name)),
      async update(def, ns, name, method, body, contentType, ctx) {
        const current = store.get(def, ns, name);
        let scale: JsonObject;
        const text = body.toString('utf8');
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch (e) {
          throw badRequest(`the body of the request could not be decoded: ${(e as Error).message}`);
        }
        if (method === 'PUT') scale = parsed as JsonObject;
        else {
          const type = PATCH_CONTENT_TYPES[contentType];
          if (!type || type === 'apply') throw badRequest(`unsupported patch type for scale: ${contentType}`);
          scale = applyPatch(type, toScale(def, current), parsed, atomicSchemaInfo);
        }
        const replicas = (scale.spec as JsonObject | undefined)?.replicas;
        if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
          throw badRequest('spec.replicas: Invalid value: must be a non-negative integer');
        }
        const rv = (scale.metadata as JsonObject | undefined)?.resourceVersion;
        if (rv !== undefined && rv !== (current.metadata as JsonObject).resourceVersion)
          throw conflict(refOf(def), name);
        const updated = await store.updateWith(def, ns, name, ctx, (obj) => {
          setPath(obj, scalePaths(def).spec, replicas);
          return obj;
        });
        if (!updated) throw notFound(refOf(def), name);
        return toScale(def, updated);
      },
    },
    async bind(def, ns, name, binding, ctx) {
      const target = (binding.target ?? {}) as JsonObject;
      const node = typeof target.name === 'string' ? target.name : '';
      if (!node) throw badRequest('target.name: Required value');
      let already: string | undefined;
      // One write, like kube's binding registry: spec.nodeName and PodScheduled=True together.
      const updated = await store.updateWith(
        def,
        ns,
        name,
        ctx,
        (pod) => {
          const spec = (pod.spec ?? {}) as JsonObject;
          if (spec.nodeName) {
            already = String(spec.nodeName);
            return undefined;
          }
          if ((pod.metadata as JsonObject).deletionTimestamp) {
            already = '';
            return undefined;
          }
          spec.nodeName = node;
          pod.spec = spec;
          const status = (pod.status ?? {}) as JsonObject;
          const conditions = ((status.conditions as JsonObject[] | undefined) ?? []).filter(
            (c) => c.type !== 'PodScheduled',
          );
          conditions.push({
            type: 'PodScheduled',
            status: 'True',
            lastProbeTime: null,
            lastTransitionTime: formatTime(new Date()),
          });
          pod.status = { ...status, conditions };
          return pod;
        },
        'binding',
      );
      if (!updated) throw notFound(refOf(def), name);
      if (already !== undefined) {
        throw conflict(
          refOf(def),
          name,
          already
            ? `pod ${name} is already assigned to node "${already}"`
            : `pod ${name} is being deleted, cannot be assigned to a host`,
        );
      }
      return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
    },
  };
}
