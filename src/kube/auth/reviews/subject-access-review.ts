// SelfSubjectAccessReview, SubjectAccessReview and LocalSubjectAccessReview: "may this user do
// this?", answered by the same authorizer that guards every request
// (kubernetes/kubernetes:pkg/registry/authorization/{selfsubjectaccessreview,subjectaccessreview,
// localsubjectaccessreview}/rest.go, their validation in pkg/apis/authorization/validation/validation.go
// and the attribute conversion in pkg/registry/authorization/util/helpers.go).
import { badRequest, invalid } from '../../../apimachinery/errors/index.ts';
import { isObject } from '../../../apimachinery/json/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { fieldInvalid, GoValue, toCauses, type FieldError } from '../../../apimachinery/validation/index.ts';
import { goQuote } from '../../../apimachinery/strings/index.ts';
import type { CreateOnly } from '../../server/extensions.ts';
import type { Attributes, Authorizer } from '../types.ts';
import type { UserInfo } from '../user.ts';

export const AUTHORIZATION_GROUP = 'authorization.k8s.io';

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function specOf(body: JsonObject): JsonObject {
  return isObject(body.spec) ? body.spec : {};
}

/** A nil pointer in a field error prints as the string "null" (field.Error.ErrorBody). */
function attributeBlockErrors(spec: JsonObject): FieldError[] {
  const resource = isObject(spec.resourceAttributes);
  const nonResource = isObject(spec.nonResourceAttributes);
  if (resource && nonResource)
    return [
      fieldInvalid(
        'spec.nonResourceAttributes',
        nonResourceGoValue(spec.nonResourceAttributes as JsonObject),
        'cannot be specified in combination with resourceAttributes',
      ),
    ];
  if (!resource && !nonResource)
    return [
      fieldInvalid(
        'spec.resourceAttributes',
        'null',
        'exactly one of nonResourceAttributes or resourceAttributes must be specified',
      ),
    ];
  return [];
}

/** `%#v` of the internal authorization.NonResourceAttributes the Go validation prints. */
function nonResourceGoValue(a: JsonObject): GoValue {
  return new GoValue(`authorization.NonResourceAttributes{Path:${goQuote(str(a.path))}, Verb:${goQuote(str(a.verb))}}`);
}

function subjectErrors(spec: JsonObject): FieldError[] {
  if (str(spec.user) === '' && strings(spec.groups).length === 0)
    return [fieldInvalid('spec.user', str(spec.user), 'at least one of user or group must be specified')];
  return [];
}

function rejectInvalid(errors: FieldError[]): void {
  // The internal object's kind is empty by the time it is validated, hence `.authorization.k8s.io`.
  if (errors.length > 0) throw invalid(AUTHORIZATION_GROUP, '', '', toCauses(errors));
}

/** kube's ResourceAttributesFrom / NonResourceAttributesFrom. */
export function reviewAttributes(user: UserInfo, spec: JsonObject): Attributes {
  const base = { user, apiVersion: '', resource: '', subresource: '', namespace: '', name: '', apiGroup: '' };
  if (isObject(spec.resourceAttributes)) {
    const r = spec.resourceAttributes;
    return {
      ...base,
      verb: str(r.verb),
      resourceRequest: true,
      path: '',
      namespace: str(r.namespace),
      apiGroup: str(r.group),
      apiVersion: str(r.version) || '*',
      resource: str(r.resource),
      subresource: str(r.subresource),
      name: str(r.name),
    };
  }
  const n = isObject(spec.nonResourceAttributes) ? spec.nonResourceAttributes : {};
  return { ...base, verb: str(n.verb), resourceRequest: false, path: str(n.path) };
}

/** The user a (Local)SubjectAccessReview asks about, exactly as given (no groups are added). */
function specUser(spec: JsonObject): UserInfo {
  const user: UserInfo = { username: str(spec.user), groups: strings(spec.groups) };
  if (str(spec.uid)) user.uid = str(spec.uid);
  if (isObject(spec.extra)) {
    user.extra = Object.fromEntries(Object.entries(spec.extra).map(([k, v]) => [k, strings(v)]));
  }
  return user;
}

/** The review as sent, with kube's status: allowed, then denied, reason, evaluationError when set. */
function answer(authorizer: Authorizer, kind: string, body: JsonObject, attrs: Attributes, namespace?: string) {
  const d = authorizer.authorize(attrs);
  const status: JsonObject = { allowed: d.allowed };
  if (d.reason) status.reason = d.reason;
  if (d.evaluationError) status.evaluationError = d.evaluationError;
  const metadata: JsonObject = { creationTimestamp: null };
  if (namespace) metadata.namespace = namespace;
  return {
    code: 201,
    object: { kind, apiVersion: `${AUTHORIZATION_GROUP}/v1`, metadata, spec: specOf(body), status },
  };
}

export function selfSubjectAccessReviews(authorizer: Authorizer): CreateOnly {
  return {
    async create({ body }, ctx) {
      const spec = specOf(body);
      rejectInvalid(attributeBlockErrors(spec));
      return answer(authorizer, 'SelfSubjectAccessReview', body, reviewAttributes(ctx.userInfo, spec));
    },
  };
}

export function subjectAccessReviews(authorizer: Authorizer): CreateOnly {
  return {
    async create({ body }) {
      const spec = specOf(body);
      rejectInvalid([...attributeBlockErrors(spec), ...subjectErrors(spec)]);
      return answer(authorizer, 'SubjectAccessReview', body, reviewAttributes(specUser(spec), spec));
    },
  };
}

export function localSubjectAccessReviews(authorizer: Authorizer): CreateOnly {
  return {
    async create({ body, namespace = '' }) {
      const spec = specOf(body);
      const given = str((isObject(body.metadata) ? body.metadata : {}).namespace);
      // The create handler's EnsureObjectNamespaceMatchesRequestNamespace.
      if (given && given !== namespace)
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      const errors = [...attributeBlockErrors(spec), ...subjectErrors(spec)];
      if (isObject(spec.resourceAttributes) && str(spec.resourceAttributes.namespace) !== namespace)
        errors.push(
          fieldInvalid(
            'spec.resourceAttributes.namespace',
            str(spec.resourceAttributes.namespace),
            'must match metadata.namespace',
          ),
        );
      if (isObject(spec.nonResourceAttributes))
        errors.push(
          fieldInvalid(
            'spec.nonResourceAttributes',
            nonResourceGoValue(spec.nonResourceAttributes),
            'disallowed on this kind of request',
          ),
        );
      rejectInvalid(errors);
      return answer(authorizer, 'LocalSubjectAccessReview', body, reviewAttributes(specUser(spec), spec), namespace);
    },
  };
}
