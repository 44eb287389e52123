// DeleteOptions of a DELETE or deletecollection, read as kube-apiserver reads them
// (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/delete.go, DeleteResource and
// DeleteCollection): a non-empty body is decoded as the whole DeleteOptions (JSON, YAML or
// protobuf; kind DeleteOptions of v1, meta.k8s.io/v1 or v1beta1, or of the resource's own group
// version) and the query is then not read at all; without a body they come from the query.
// Either way ValidateDeleteOptions follows, and `dryRun` decides whether anything is persisted.
import { badRequest } from '../../../apimachinery/errors/index.ts';
import { isObject } from '../../../apimachinery/json/index.ts';
import { UndecodableBody } from '../../registry/body-errors.ts';
import {
  checkDeleteOptions,
  rawDeleteOptions,
  type RawDeleteOptions,
  type RequestDeleteOptions,
} from '../../registry/delete-options.ts';
import { apiVersionOf, type ResourceDef } from '../../registry/resource.ts';
import { decodeBody, OBJECT_BODY_TYPES, parseBool, queryInt } from '../request.ts';

export type { RequestDeleteOptions } from '../../registry/delete-options.ts';

const META_VERSIONS = ['v1', 'meta.k8s.io/v1', 'meta.k8s.io/v1beta1'];

export function deleteOptions(
  def: ResourceDef,
  raw: Buffer,
  contentType: string | undefined,
  query: URLSearchParams,
): RequestDeleteOptions {
  const options = raw.length > 0 ? fromBody(def, raw, contentType) : fromQuery(query);
  return checkDeleteOptions(options);
}

function fromBody(def: ResourceDef, raw: Buffer, contentType: string | undefined): RawDeleteOptions {
  let body: unknown;
  try {
    body = decodeBody(raw, contentType, OBJECT_BODY_TYPES);
  } catch (e) {
    // The delete handlers pass the decoder's error on without transformDecodeError's wrapping.
    if (e instanceof UndecodableBody) throw badRequest(e.message);
    throw e;
  }
  if (!isObject(body)) throw badRequest('decoded object cannot be converted to DeleteOptions');
  const apiVersion = typeof body.apiVersion === 'string' ? body.apiVersion : '';
  const kind = typeof body.kind === 'string' ? body.kind : '';
  const versionKnown = apiVersion === '' || META_VERSIONS.includes(apiVersion) || apiVersion === apiVersionOf(def);
  if (!versionKnown || (kind !== '' && kind !== 'DeleteOptions')) {
    const version = apiVersion || 'meta.k8s.io/v1';
    throw badRequest(
      `no kind "${kind || 'DeleteOptions'}" is registered for version "${version}" in scheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme/register.go:28"`,
    );
  }
  return rawDeleteOptions(body);
}

/** The query form (metav1's parameter codec): no preconditions, one value per field. */
function fromQuery(query: URLSearchParams): RawDeleteOptions {
  const raw: RawDeleteOptions = {};
  const grace = queryInt(query, 'gracePeriodSeconds');
  if (grace !== undefined) raw.gracePeriodSeconds = grace;
  const policy = query.get('propagationPolicy');
  if (policy !== null && policy !== '') raw.propagationPolicy = policy;
  const orphan = query.get('orphanDependents');
  if (orphan !== null && orphan !== '') raw.orphanDependents = parseBool(orphan, 'orphanDependents');
  const dryRun = query.getAll('dryRun');
  if (dryRun.length > 0) raw.dryRun = dryRun;
  return raw;
}
