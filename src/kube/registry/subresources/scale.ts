// The scale subresource (autoscaling/v1 Scale) of the built-in workloads and of custom resources
// that declare one: a view of the object's replica fields, and writes that change only the
// desired replica count.
import { jsonSyntaxMessage, unrecognizedObject, versionKindParseMessage } from '../body-errors.ts';
import { badRequest, conflict, notFound } from '../../../apimachinery/errors/index.ts';
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';
import { selectorString } from '../../builtins/selector.ts';
import { atomicSchemaInfo } from '../../patch/schema-info.ts';
import type { RequestContext } from '../context.ts';
import { applyPatch, PATCH_CONTENT_TYPES } from '../patching.ts';
import type { ResourceDef } from '../resource.ts';
import { checkBodyDecodes, checkPatchedDecodes, refOf, type Decoding, type ObjectStore } from '../store/index.ts';
import { decodeErrors } from '../../builtins/index.ts';
import { isObject } from '../../../apimachinery/json/index.ts';

/** Scale bodies decode into autoscaling/v1 Scale, whatever resource they scale. */
const SCALE: Decoding = {
  group: 'autoscaling',
  version: 'v1',
  kind: 'Scale',
  builtin: true,
  strategy: { decodeErrors: (obj, flavour) => decodeErrors('autoscaling', 'v1', 'Scale', obj, flavour) },
};

export interface ScaleSubresource {
  get(def: ResourceDef, ns: string | undefined, name: string): Promise<JsonObject>;
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

function toScale(def: ResourceDef, obj: JsonObject): JsonObject {
  const m = obj.metadata as JsonObject;
  const paths = scalePaths(def);
  const sel = paths.selector ? getPath(obj, paths.selector) : undefined;
  // Built-ins keep a LabelSelector (ReplicationControllers a map, labels.SelectorFromSet); kube
  // reports it in selector syntax, keys sorted.
  const labelSelector =
    def.builtin && def.kind === 'ReplicationController' && def.group === '' ? { matchLabels: sel } : sel;
  const selector = def.builtin
    ? selectorString(labelSelector as JsonValue) || undefined
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
}

export function scaleSubresource(store: ObjectStore): ScaleSubresource {
  // The scaled object in the request's version (a webhook-converted CRD's replica paths are that version's).
  const read = (def: ResourceDef, ns: string | undefined, name: string) =>
    def.converter ? store.getConverted(def, ns, name) : store.get(def, ns, name);
  return {
    get: async (def, ns, name) => toScale(def, await read(def, ns, name)),
    async update(def, ns, name, method, body, contentType, ctx) {
      const current = await read(def, ns, name);
      let scale: JsonObject;
      const text = body.toString('utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        // PUT decodes a Scale (handlers/update.go); PATCH fails as patch.go's decoding does.
        if (method === 'PUT') throw unrecognizedObject('Scale', versionKindParseMessage(text), body);
        throw badRequest(`error decoding patch: ${jsonSyntaxMessage(text)}`);
      }
      if (method === 'PUT') {
        scale = parsed as JsonObject;
        if (isObject(parsed as JsonValue)) checkBodyDecodes(SCALE, scale);
      } else {
        const type = PATCH_CONTENT_TYPES[contentType];
        if (!type || type === 'apply') throw badRequest(`unsupported patch type for scale: ${contentType}`);
        scale = applyPatch(type, toScale(def, current), parsed, atomicSchemaInfo);
        checkPatchedDecodes(SCALE, type, parsed, scale);
      }
      const replicas = (scale.spec as JsonObject | undefined)?.replicas;
      if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
        throw badRequest('spec.replicas: Invalid value: must be a non-negative integer');
      }
      const rv = (scale.metadata as JsonObject | undefined)?.resourceVersion;
      if (rv !== undefined && rv !== (current.metadata as JsonObject).resourceVersion) throw conflict(refOf(def), name);
      const updated = await store.updateWith(def, ns, name, ctx, (obj) => {
        setPath(obj, scalePaths(def).spec, replicas);
        return obj;
      });
      if (!updated) throw notFound(refOf(def), name);
      return toScale(def, updated);
    },
  };
}
