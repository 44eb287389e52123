// The AdmissionReview v1 exchange: the request kube-apiserver builds from the admission
// attributes, and the checks it runs on the answer (webhook/request/admissionreview.go).
import type { UserInfo } from '../auth/user.ts';
import { isObject } from '../../apimachinery/json/index.ts';
import { randomUUID } from 'node:crypto';
import type { JsonObject, JsonValue } from '../../apimachinery/meta/index.ts';
import type { AdmissionAttributes } from '../registry/context.ts';
import { unexpectedResponse } from './client.ts';
import type { ReviewStatus } from './errors.ts';

export interface ReviewResponse {
  allowed: boolean;
  status?: ReviewStatus;
  /** Decoded JSON Patch bytes, when the webhook sent one. */
  patch?: Buffer;
  warnings: string[];
}

/** kube's authentication/v1 UserInfo: only the fields that are set. */
function userInfo(user: UserInfo): JsonObject {
  return {
    username: user.username,
    ...(user.uid ? { uid: user.uid } : {}),
    groups: [...user.groups],
    ...(user.extra && Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
  };
}

function requestOptions(attrs: AdmissionAttributes): JsonObject {
  const kind = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions' }[attrs.operation];
  const opts: JsonObject = { kind, apiVersion: 'meta.k8s.io/v1', ...(attrs.options ?? {}) };
  if (attrs.ctx.dryRun) opts.dryRun = ['All'];
  if (attrs.operation !== 'DELETE' && attrs.ctx.fieldManager) opts.fieldManager = attrs.ctx.fieldManager;
  return opts;
}

/** The request's namespace as kube-apiserver's RequestInfo has it: a Namespace's own name past CREATE. */
function requestNamespace(attrs: AdmissionAttributes): string | undefined {
  if (attrs.def.group === '' && attrs.def.resource === 'namespaces') {
    return attrs.operation === 'CREATE' ? undefined : attrs.name;
  }
  return attrs.def.namespaced ? attrs.namespace : undefined;
}

export function buildReview(
  attrs: AdmissionAttributes,
  obj: JsonObject | undefined,
  old: JsonObject | undefined,
): { uid: string; review: JsonObject } {
  const uid = randomUUID();
  const { def } = attrs;
  const kind = { group: def.group, version: def.version, kind: def.kind };
  const resource = { group: def.group, version: def.version, resource: def.resource };
  const namespace = requestNamespace(attrs);
  const request: JsonObject = {
    uid,
    kind,
    resource,
    ...(attrs.subresource ? { subResource: attrs.subresource } : {}),
    requestKind: kind,
    requestResource: resource,
    ...(attrs.subresource ? { requestSubResource: attrs.subresource } : {}),
    ...(attrs.name ? { name: attrs.name } : {}),
    ...(namespace ? { namespace } : {}),
    operation: attrs.operation,
    userInfo: userInfo(attrs.ctx.userInfo),
    object: obj ?? null,
    oldObject: old ?? null,
    dryRun: attrs.ctx.dryRun,
    options: requestOptions(attrs),
  };
  return { uid, review: { kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1', request } };
}

/** Go's StdEncoding: padded, no whitespace, nothing outside the alphabet (Buffer would skip it). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Decodes and checks a webhook's answer. Throws an Error whose message is the reason kube gives
 * (the caller turns it into a failure subject to failurePolicy).
 */
export function parseResponse(status: number, text: string, uid: string, mutating: boolean): ReviewResponse {
  const unexpected = unexpectedResponse(status, text);
  if (unexpected !== undefined) throw new Error(`failed to call webhook: ${unexpected}`);
  let doc: JsonValue;
  try {
    doc = JSON.parse(text) as JsonValue;
  } catch (e) {
    throw new Error(`failed to call webhook: couldn't get version/kind; json parse error: ${(e as Error).message}`);
  }
  if (!isObject(doc))
    throw new Error("failed to call webhook: couldn't get version/kind; json parse error: not an object");
  const r = doc.response;
  if (r !== undefined && r !== null && !isObject(r)) {
    throw new Error(
      'failed to call webhook: json: cannot unmarshal response into Go struct field AdmissionReview.response',
    );
  }
  let patch: Buffer | undefined;
  if (isObject(r) && r.patch !== undefined && r.patch !== null) {
    if (typeof r.patch !== 'string' || !BASE64.test(r.patch)) {
      throw new Error('failed to call webhook: illegal base64 data in response.patch');
    }
    if (r.patch !== '') patch = Buffer.from(r.patch, 'base64');
  }
  const invalid = (why: string) => new Error(`received invalid webhook response: ${why}`);
  if (!isObject(r)) throw invalid('webhook response was absent');
  if (r.uid !== uid) throw invalid(`expected response.uid="${uid}", got "${typeof r.uid === 'string' ? r.uid : ''}"`);
  if (doc.apiVersion !== 'admission.k8s.io/v1' || doc.kind !== 'AdmissionReview') {
    throw invalid(
      `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${String(doc.apiVersion ?? '')}, Kind=${String(doc.kind ?? '')}`,
    );
  }
  const patchType = typeof r.patchType === 'string' ? r.patchType : '';
  if (mutating) {
    if (patch && !patchType) throw invalid('webhook returned response.patch but not response.patchType');
    if (patchType && patchType !== 'JSONPatch')
      throw invalid(`webhook returned invalid response.patchType of "${patchType}"`);
  } else {
    if (patch) throw invalid('validating webhooks may not return response.patch');
    if (patchType) throw invalid('validating webhooks may not return response.patchType');
  }
  return {
    allowed: r.allowed === true,
    ...(isObject(r.status) ? { status: r.status as ReviewStatus } : {}),
    ...(patch ? { patch } : {}),
    warnings: Array.isArray(r.warnings) ? r.warnings.filter((w): w is string => typeof w === 'string') : [],
  };
}
