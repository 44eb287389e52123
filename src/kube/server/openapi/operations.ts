// The REST operations a resource serves, independent of the OpenAPI version they are written in:
// paths, methods, the kube action, the GVK and the query parameters of each.
import type { ResourceDef } from '../../registry/resource.ts';
import { BINDING_MODEL, EVICTION_MODEL, SCALE_MODEL, type ModelSet } from './models.ts';
import { META, type Gvk } from '../../builtins/openapi/schema.ts';

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
const PATCH_QUERY = [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION, FORCE, PRETTY];
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

const STATUS = `${META}.Status`;
const DELETE_OPTIONS = `${META}.DeleteOptions`;
const PATCH = `${META}.Patch`;

/** The operations kube serves, by the verb discovery lists for them. */
interface Template {
  method: Method;
  action: string;
  /** First word of the operation id (kube's naming). */
  idVerb: string;
  what: string;
  body?: 'object' | typeof PATCH | typeof DELETE_OPTIONS;
  response: 'object' | 'list' | typeof STATUS;
  query: QueryParam[];
}

const T: Record<string, Template> = {
  list: {
    method: 'get',
    action: 'list',
    idVerb: 'list',
    what: 'list or watch objects of kind',
    response: 'list',
    query: LIST,
  },
  create: {
    method: 'post',
    action: 'post',
    idVerb: 'create',
    what: 'create a',
    body: 'object',
    response: 'object',
    query: WRITE,
  },
  deletecollection: {
    method: 'delete',
    action: 'deletecollection',
    idVerb: 'deletecollection',
    what: 'delete a collection of',
    response: STATUS,
    query: [...DELETE, ...LIST.filter((p) => !['watch', 'allowWatchBookmarks', 'sendInitialEvents'].includes(p.name))],
  },
  get: {
    method: 'get',
    action: 'get',
    idVerb: 'read',
    what: 'read the specified',
    response: 'object',
    query: [PRETTY],
  },
  update: {
    method: 'put',
    action: 'put',
    idVerb: 'replace',
    what: 'replace the specified',
    body: 'object',
    response: 'object',
    query: WRITE,
  },
  patch: {
    method: 'patch',
    action: 'patch',
    idVerb: 'patch',
    what: 'partially update the specified',
    body: PATCH,
    response: 'object',
    query: PATCH_QUERY,
  },
  delete: {
    method: 'delete',
    action: 'delete',
    idVerb: 'delete',
    what: 'delete a',
    body: DELETE_OPTIONS,
    response: STATUS,
    query: DELETE,
  },
};

interface Target {
  def: ResourceDef;
  gvk: Gvk;
  /** Model of the object the operation reads or writes (the kind, Scale, Binding). */
  model: string;
  list: string;
  namespaced: boolean;
  /** Subresource (operation id suffix), or the all-namespaces list. */
  suffix?: string;
}

function where(suffix: string | undefined): string {
  if (!suffix) return '';
  return suffix === 'ForAllNamespaces' ? ' in every namespace' : ` (${suffix.toLowerCase()} subresource)`;
}

function make(t: Template, x: Target): Operation {
  const group =
    x.def.group === ''
      ? 'core'
      : x.def.group
          .split('.')
          .map((p, i) => (i === 0 ? p : upperFirst(p)))
          .join('');
  const id = `${t.idVerb}${upperFirst(group)}${upperFirst(x.def.version)}${x.namespaced ? 'Namespaced' : ''}${x.def.kind}${x.suffix ?? ''}`;
  const resolve = (m: string): string => (m === 'object' ? x.model : m === 'list' ? x.list : m);
  const op: Operation = {
    method: t.method,
    action: t.action,
    gvk: x.gvk,
    operationId: id,
    description: `${t.what} ${x.def.kind}${where(x.suffix)}`,
    response: resolve(t.response),
    query: t.query,
  };
  if (t.body) op.body = resolve(t.body);
  return op;
}

export function resourceOperations(def: ResourceDef, models: ModelSet): PathEntry[] {
  const prefix = def.group ? `/apis/${def.group}/${def.version}` : `/api/${def.version}`;
  const ns = def.namespaced;
  const base: Target = {
    def,
    gvk: { group: def.group, version: def.version, kind: def.kind },
    model: models.kindModel(def),
    list: models.listModel(def),
    namespaced: ns,
  };
  const collection = ns ? `${prefix}/namespaces/{namespace}/${def.resource}` : `${prefix}/${def.resource}`;
  const item = `${collection}/{name}`;
  const nsParams: PathEntry['params'] = ns ? ['namespace'] : [];
  const itemParams: PathEntry['params'] = [...nsParams, 'name'];
  const served = (verbs: string[], x: Target): Operation[] =>
    verbs.filter((v) => def.verbs.includes(v)).map((v) => make(T[v], x));

  const entries: PathEntry[] = [
    { path: collection, params: nsParams, operations: served(['list', 'create', 'deletecollection'], base) },
    { path: item, params: itemParams, operations: served(['get', 'update', 'patch', 'delete'], base) },
  ];
  if (ns) {
    const all = { ...base, namespaced: false, suffix: 'ForAllNamespaces' };
    entries.push({ path: `${prefix}/${def.resource}`, params: [], operations: served(['list'], all) });
  }
  for (const sub of def.subresources) {
    const x: Target = { ...base, suffix: upperFirst(sub) };
    let operations: Operation[] = [];
    if (sub === 'status') operations = [T.get, T.update, T.patch].map((t) => make(t, x));
    if (sub === 'scale') {
      const scale = { ...x, gvk: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, model: SCALE_MODEL };
      operations = [T.get, T.update, T.patch].map((t) => make(t, scale));
    }
    if (sub === 'binding')
      operations = [make(T.create, { ...x, gvk: { group: '', version: 'v1', kind: 'Binding' }, model: BINDING_MODEL })];
    if (sub === 'eviction') {
      const eviction = { ...x, gvk: { group: 'policy', version: 'v1', kind: 'Eviction' }, model: EVICTION_MODEL };
      operations = [make(T.create, eviction)];
    }
    if (sub === 'finalize') operations = [make(T.update, x)];
    entries.push({ path: `${item}/${sub}`, params: itemParams, operations });
  }
  return entries.filter((e) => e.operations.length > 0);
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
