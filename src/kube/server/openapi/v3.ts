// OpenAPI 3.0 documents, one per group/version, as /openapi/v3/<api/v1 | apis/g/v> serves them.
import type { ResourceDef } from '../../registry/resource.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { referencedModels, type ModelSet } from './models.ts';
import { PATCH_TYPES, resourceOperations, type Operation, type PathEntry } from './operations.ts';
import { GVK_EXTENSION, INT_OR_STRING, ref, type Schema } from '../../builtins/openapi/schema.ts';
import { KUBE_VERSION } from '../../version.ts';

const MEDIA = ['application/json', 'application/yaml'];
const PATH_PARAM_DOCS = {
  namespace: 'object name and auth scope, such as for teams and projects',
  name: 'name of the object',
};

/** `api/v1` or `apis/<group>/<version>`: the key of a group/version in the v3 discovery document. */
export function groupVersionPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

export function groupVersionDocument(defs: ResourceDef[], models: ModelSet): JsonObject {
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
  const schemas: JsonObject = {};
  for (const name of referencedModels(models.schemas, roots)) {
    schemas[name] = name === INT_OR_STRING ? intOrStringV3(models.schemas.get(name)!) : models.schemas.get(name);
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: `v${KUBE_VERSION.major}.${KUBE_VERSION.minor}.0` },
    paths,
    components: {
      schemas,
      securitySchemes: {
        BearerToken: {
          type: 'apiKey',
          description: 'Bearer Token authentication',
          name: 'authorization',
          in: 'header',
        },
      },
    },
    security: [{ BearerToken: [] }],
  };
}

/**
 * v3 gives IntOrString both of its types (kube-openapi's OpenAPIV3OneOfTypes) instead of v2's
 * `type: string`; kubectl explain then names the type `<IntOrString>`, as against kube-apiserver.
 */
function intOrStringV3(model: Schema): Schema {
  const { type: _type, ...rest } = model;
  return { ...rest, oneOf: [{ type: 'integer' }, { type: 'string' }] };
}

function pathItem(entry: PathEntry): JsonObject {
  const item: JsonObject = {
    parameters: entry.params.map((p) => ({
      name: p,
      in: 'path',
      description: PATH_PARAM_DOCS[p],
      required: true,
      schema: { type: 'string', uniqueItems: true },
    })),
  };
  for (const op of entry.operations) item[op.method] = operation(op);
  return item;
}

function content(model: string, types: string[]): JsonObject {
  return Object.fromEntries(types.map((t) => [t, { schema: ref(model) }]));
}

function operation(op: Operation): JsonObject {
  const out: JsonObject = {
    description: op.description,
    operationId: op.operationId,
    parameters: op.query.map((p) => ({
      name: p.name,
      in: 'query',
      description: p.description,
      schema: { type: p.type, uniqueItems: true },
    })),
  };
  if (op.body)
    out.requestBody = {
      content: content(op.body, op.method === 'patch' ? PATCH_TYPES : MEDIA),
      required: op.method !== 'delete',
    };
  const ok = { description: 'OK', content: content(op.response, MEDIA) };
  out.responses =
    op.method === 'post'
      ? {
          '200': ok,
          '201': { ...ok, description: 'Created' },
          '202': { ...ok, description: 'Accepted' },
          '401': { description: 'Unauthorized' },
        }
      : { '200': ok, '401': { description: 'Unauthorized' } };
  out['x-kubernetes-action'] = op.action;
  out[GVK_EXTENSION] = { group: op.gvk.group, kind: op.gvk.kind, version: op.gvk.version };
  return out;
}
