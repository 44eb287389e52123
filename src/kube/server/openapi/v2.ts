// The Swagger 2.0 document of /openapi/v2 (every group/version in one), in JSON form; v2-proto.ts
// encodes it for kubectl.
//
// Models are converted from their v3 form the way kubectl's v2 parser (kube-openapi
// pkg/util/proto) needs them: references become bare `$ref` + description, and open objects lose
// their properties. That parser treats an object with properties as closed and reports every other
// field as unknown in client-side validation, so an open object must be a plain map.
import type { ResourceDef } from '../../registry/resource.ts';
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';
import { KUBE_VERSION } from '../../version.ts';
import { referencedModels, type ModelSet } from './models.ts';
import { PATCH_TYPES, resourceOperations, type Operation, type PathEntry } from './operations.ts';
import { GVK_EXTENSION, asSchema, isOpen, refName, type Schema } from '../../builtins/openapi/schema.ts';

const V2_REF = '#/definitions/';
const MEDIA = ['application/json', 'application/yaml'];

export function swaggerDocument(defs: ResourceDef[], models: ModelSet): JsonObject {
  const paths: JsonObject = {};
  const roots = new Set<string>();
  for (const def of defs) {
    for (const entry of resourceOperations(def, models)) {
      paths[entry.path] = pathItem(entry);
      for (const op of entry.operations) {
        roots.add(op.response);
        if (op.body) roots.add(op.body);
      }
    }
  }
  const definitions: JsonObject = {};
  for (const name of referencedModels(models.schemas, roots)) definitions[name] = toV2(models.schemas.get(name)!);
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: `v${KUBE_VERSION.major}.${KUBE_VERSION.minor}.0` },
    paths,
    definitions,
  };
}

function pathItem(entry: PathEntry): JsonObject {
  const item: JsonObject = {
    parameters: entry.params.map((p) => ({
      name: p,
      in: 'path',
      required: true,
      type: 'string',
      uniqueItems: true,
      description: p === 'name' ? 'name of the object' : 'object name and auth scope, such as for teams and projects',
    })),
  };
  for (const op of entry.operations) item[op.method] = operation(op);
  return item;
}

function operation(op: Operation): JsonObject {
  const parameters: JsonValue[] = [];
  if (op.body)
    parameters.push({
      name: 'body',
      in: 'body',
      required: op.method !== 'delete',
      schema: { $ref: `${V2_REF}${op.body}` },
    });
  for (const p of op.query)
    parameters.push({ name: p.name, in: 'query', type: p.type, uniqueItems: true, description: p.description });
  const ok = { description: 'OK', schema: { $ref: `${V2_REF}${op.response}` } };
  return {
    description: op.description,
    operationId: op.operationId,
    consumes: op.method === 'patch' ? PATCH_TYPES : ['*/*'],
    produces: MEDIA,
    schemes: ['https'],
    parameters,
    responses:
      op.method === 'post'
        ? { '200': ok, '201': { ...ok, description: 'Created' }, '401': { description: 'Unauthorized' } }
        : { '200': ok, '401': { description: 'Unauthorized' } },
    'x-kubernetes-action': op.action,
    [GVK_EXTENSION]: { group: op.gvk.group, kind: op.gvk.kind, version: op.gvk.version },
  };
}

/** Keywords Swagger 2.0 schemas share with OpenAPI 3.0 and that are carried over as they are. */
const KEPT = new Set([
  'description',
  'format',
  'enum',
  'default',
  'required',
  'title',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
]);

export function toV2(s: Schema): Schema {
  const target = refName(s);
  if (target !== undefined) {
    const r: Schema = { $ref: `${V2_REF}${target}` };
    if (typeof s.description === 'string') r.description = s.description;
    return r;
  }
  const out: Schema = {};
  const open = isOpen(s);
  // int-or-string nodes have no single type in v2; untyped, they accept either.
  if (typeof s.type === 'string' && s['x-kubernetes-int-or-string'] !== true) out.type = s.type;
  for (const [k, v] of Object.entries(s)) {
    if (KEPT.has(k) || k.startsWith('x-')) {
      if (!(open && k === 'required')) out[k] = v;
    }
  }
  const props = asSchema(s.properties);
  if (props && !open) {
    out.properties = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, toV2(asSchema(v) ?? {})]));
  }
  if (s.type === 'array' || s.items !== undefined) {
    const items = Array.isArray(s.items) ? s.items[0] : s.items;
    out.items = toV2(asSchema(items) ?? {});
  }
  const ap = s.additionalProperties;
  if (typeof ap === 'boolean') out.additionalProperties = ap;
  else if (asSchema(ap)) out.additionalProperties = toV2(asSchema(ap)!);
  return out;
}
