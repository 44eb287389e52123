// The REST operations a resource serves, independent of the OpenAPI version they are written in:
// paths, methods, the kube action, the GVK and the query parameters of each.
import type { ResourceDef } from '../../registry/resource.ts';
import { BINDING_MODEL, SCALE_MODEL, type ModelSet } from './models.ts';
import type { Gvk } from './schema.ts';

export type Method = 'get' | 'put' | 'post' | 'patch' | 'delete';

export interface QueryParam {
  name: string;
  type: 'string' | 'boolean' | 'integer';
  description: string;
}

export interface Operation {
  method: Method;
  /** x-kubernetes-action: get, list, post, put, patch, delete, deletecollection. */
  action: string;
  gvk: Gvk;
  operationId: string;
  description: string;
  /** Model of the request body (post, put, patch), if any. */
  body?: string;
  /** Model of the 200/201 response. */
  response: string;
  query: QueryParam[];
}

export interface PathEntry {
  path: string;
  /** Path parameters, in order. */
  params: Array<'namespace' | 'name'>;
  operations: Operation[];
}

const q = (name: string, type: QueryParam['type'], description: string): QueryParam => ({ name, type, description });

const PRETTY = q('pretty', 'string', "If 'true', the output is pretty printed.");
const DRY_RUN = q(
  'dryRun',
  'string',
  'When present, the request is processed without persisting anything. The only valid value is All.',
);
const FIELD_MANAGER = q(
  'fieldManager',
  'string',
  'Name of the actor making the change, recorded in managedFields. Required for apply patches.',
);
const FIELD_VALIDATION = q(
  'fieldValidation',
  'string',
  'How unknown and duplicate fields in the body are handled: Ignore (dropped silently), Warn (dropped, with a warning; the default) or Strict (the request fails).',
);
const FORCE = q(
  'force',
  'boolean',
  'Apply patches only: take ownership of fields other managers own instead of failing with a conflict.',
);
const WRITE = [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION, PRETTY];
const LIST = [
  q('allowWatchBookmarks', 'boolean', 'Send BOOKMARK events on watches.'),
  q('continue', 'string', 'Token from a previous page of a limited list.'),
  q('fieldSelector', 'string', 'Restrict the objects returned by their fields.'),
  q('labelSelector', 'string', 'Restrict the objects returned by their labels.'),
  q('limit', 'integer', 'Maximum number of objects in one page.'),
  q('resourceVersion', 'string', 'Which revision to read: unset for the latest, "0" for any.'),
  q('resourceVersionMatch', 'string', 'How resourceVersion applies: NotOlderThan or Exact.'),
  q('sendInitialEvents', 'boolean', 'Start a watch with the current objects, ended by a bookmark.'),
  q('timeoutSeconds', 'integer', 'Timeout of the list or watch call.'),
  q('watch', 'boolean', 'Watch for changes instead of listing.'),
  PRETTY,
];
const DELETE = [
  DRY_RUN,
  q('gracePeriodSeconds', 'integer', 'Seconds before the object is deleted; 0 deletes at once.'),
  q('orphanDependents', 'boolean', 'Deprecated: use propagationPolicy.'),
  q(
    'propagationPolicy',
    'string',
    'Whether and how dependents are garbage collected: Orphan, Background or Foreground.',
  ),
  PRETTY,
];

function upperFirst(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** kube-style operation ids: readCoreV1NamespacedPod, patchAppsV1NamespacedDeploymentStatus. */
function opId(verb: string, def: ResourceDef, namespaced: boolean, suffix = ''): string {
  const group =
    def.group === ''
      ? 'core'
      : def.group
          .split('.')
          .map((p, i) => (i === 0 ? p : upperFirst(p)))
          .join('');
  return `${verb}${upperFirst(group)}${upperFirst(def.version)}${namespaced ? 'Namespaced' : ''}${def.kind}${suffix}`;
}

export function resourceOperations(def: ResourceDef, models: ModelSet): PathEntry[] {
  const prefix = def.group ? `/apis/${def.group}/${def.version}` : `/api/${def.version}`;
  const gvk: Gvk = { group: def.group, version: def.version, kind: def.kind };
  const kind = models.kindModel(def);
  const listKind = models.listModel(def);
  const ns = def.namespaced;
  const collection = ns ? `${prefix}/namespaces/{namespace}/${def.resource}` : `${prefix}/${def.resource}`;
  const nsParams: PathEntry['params'] = ns ? ['namespace'] : [];
  const has = (verb: string): boolean => def.verbs.includes(verb);
  const entries: PathEntry[] = [];

  const collectionOps: Operation[] = [];
  if (has('list')) {
    const id = opId('list', def, ns);
    collectionOps.push({
      method: 'get',
      action: 'list',
      gvk,
      operationId: id,
      description: `list or watch objects of kind ${def.kind}`,
      response: listKind,
      query: LIST,
    });
  }
  if (has('create')) {
    collectionOps.push({
      method: 'post',
      action: 'post',
      gvk,
      operationId: opId('create', def, ns),
      description: `create a ${def.kind}`,
      body: kind,
      response: kind,
      query: WRITE,
    });
  }
  if (has('deletecollection')) {
    collectionOps.push({
      method: 'delete',
      action: 'deletecollection',
      gvk,
      operationId: opId('deletecollection', def, ns),
      description: `delete collection of ${def.kind}`,
      response: 'io.k8s.apimachinery.pkg.apis.meta.v1.Status',
      query: [
        ...DELETE,
        ...LIST.filter((p) => p.name !== 'watch' && p.name !== 'allowWatchBookmarks' && p.name !== 'sendInitialEvents'),
      ],
    });
  }
  if (collectionOps.length > 0) entries.push({ path: collection, params: nsParams, operations: collectionOps });
  if (ns && has('list')) {
    entries.push({
      path: `${prefix}/${def.resource}`,
      params: [],
      operations: [
        {
          method: 'get',
          action: 'list',
          gvk,
          operationId: `${opId('list', def, false)}ForAllNamespaces`,
          description: `list or watch objects of kind ${def.kind} in every namespace`,
          response: listKind,
          query: LIST,
        },
      ],
    });
  }

  const itemParams: PathEntry['params'] = [...nsParams, 'name'];
  const itemOps: Operation[] = [];
  if (has('get'))
    itemOps.push({
      method: 'get',
      action: 'get',
      gvk,
      operationId: opId('read', def, ns),
      description: `read the specified ${def.kind}`,
      response: kind,
      query: [PRETTY],
    });
  if (has('update'))
    itemOps.push({
      method: 'put',
      action: 'put',
      gvk,
      operationId: opId('replace', def, ns),
      description: `replace the specified ${def.kind}`,
      body: kind,
      response: kind,
      query: WRITE,
    });
  if (has('patch'))
    itemOps.push(patchOp(gvk, opId('patch', def, ns), `partially update the specified ${def.kind}`, kind));
  if (has('delete')) {
    itemOps.push({
      method: 'delete',
      action: 'delete',
      gvk,
      operationId: opId('delete', def, ns),
      description: `delete a ${def.kind}`,
      body: 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
      response: 'io.k8s.apimachinery.pkg.apis.meta.v1.Status',
      query: DELETE,
    });
  }
  const item = `${collection}/{name}`;
  if (itemOps.length > 0) entries.push({ path: item, params: itemParams, operations: itemOps });

  for (const sub of def.subresources) {
    const suffix = upperFirst(sub);
    if (sub === 'status' || sub === 'scale') {
      const subGvk = sub === 'scale' ? { group: 'autoscaling', version: 'v1', kind: 'Scale' } : gvk;
      const model = sub === 'scale' ? SCALE_MODEL : kind;
      entries.push({
        path: `${item}/${sub}`,
        params: itemParams,
        operations: [
          {
            method: 'get',
            action: 'get',
            gvk: subGvk,
            operationId: opId('read', def, ns, suffix),
            description: `read ${sub} of the specified ${def.kind}`,
            response: model,
            query: [PRETTY],
          },
          {
            method: 'put',
            action: 'put',
            gvk: subGvk,
            operationId: opId('replace', def, ns, suffix),
            description: `replace ${sub} of the specified ${def.kind}`,
            body: model,
            response: model,
            query: WRITE,
          },
          patchOp(
            subGvk,
            opId('patch', def, ns, suffix),
            `partially update ${sub} of the specified ${def.kind}`,
            model,
          ),
        ],
      });
    } else if (sub === 'binding') {
      entries.push({
        path: `${item}/binding`,
        params: itemParams,
        operations: [
          {
            method: 'post',
            action: 'post',
            gvk: { group: '', version: 'v1', kind: 'Binding' },
            operationId: opId('create', def, ns, 'Binding'),
            description: `create binding of a ${def.kind}`,
            body: BINDING_MODEL,
            response: BINDING_MODEL,
            query: WRITE,
          },
        ],
      });
    } else if (sub === 'finalize') {
      entries.push({
        path: `${item}/finalize`,
        params: itemParams,
        operations: [
          {
            method: 'put',
            action: 'put',
            gvk,
            operationId: opId('replace', def, ns, 'Finalize'),
            description: `replace finalize of the specified ${def.kind}`,
            body: kind,
            response: kind,
            query: WRITE,
          },
        ],
      });
    }
  }
  return entries;
}

function patchOp(gvk: Gvk, operationId: string, description: string, model: string): Operation {
  return {
    method: 'patch',
    action: 'patch',
    gvk,
    operationId,
    description,
    body: 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
    response: model,
    query: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION, FORCE, PRETTY],
  };
}

/**
 * Patch media types advertised. Strategic merge patch is served but deliberately not advertised:
 * kubectl computes strategic patches from the OpenAPI model when the PATCH operation lists it,
 * and from its compiled-in k8s.io/api types otherwise. Those types carry the exact merge keys of
 * every field, which the hand-written models here only partly describe.
 */
export const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/apply-patch+yaml',
];
