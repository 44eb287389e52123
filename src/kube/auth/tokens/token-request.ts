// POST /api/v1/namespaces/{ns}/serviceaccounts/{sa}/token: TokenRequest, as
// pkg/registry/core/serviceaccount/storage/token.go serves it, with the defaults of
// pkg/apis/authentication/v1/defaults.go and the checks of pkg/apis/authentication/validation.
import { badRequest, conflict, invalid, notFound } from '../../../apimachinery/errors/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { formatTime } from '../../../apimachinery/time/index.ts';
import { fieldInvalid, toCauses, type FieldError } from '../../../apimachinery/validation/index.ts';
import type { CreateOnly } from '../../server/extensions.ts';
import type { ObjectRefClaim, TokenIssuer, TokenSpec } from './issuer.ts';
import { metaOf, type ObjectLookup } from './lookup.ts';

const GROUP = 'authentication.k8s.io';
const KIND = 'TokenRequest';
const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 10 * 60;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

function validateTokenRequest(expirationSeconds: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const n = Number(expirationSeconds);
  if (n < MIN_EXPIRATION_SECONDS)
    errs.push(
      fieldInvalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration less than 10 minutes'),
    );
  if (n > MAX_EXPIRATION_SECONDS)
    errs.push(
      fieldInvalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration larger than 2^32 seconds'),
    );
  return errs;
}

/** A pod's token claims: the pod, and its node (by name alone when no Node object exists). */
export function podBinding(lookup: ObjectLookup, pod: JsonObject): Pick<TokenSpec, 'pod' | 'node'> {
  const meta = metaOf(pod);
  const nodeName = String((pod.spec as JsonObject | undefined)?.nodeName ?? '');
  let node: ObjectRefClaim | undefined;
  if (nodeName) {
    const n = lookup('nodes', undefined, nodeName);
    node = n ? { name: nodeName, uid: metaOf(n).uid } : { name: nodeName };
  }
  return { pod: { name: meta.name, uid: meta.uid }, ...(node ? { node } : {}) };
}

/** The service account's claim, or kube's 404 when it does not exist. */
export function serviceAccountClaim(
  lookup: ObjectLookup,
  namespace: string,
  name: string,
): TokenSpec['serviceAccount'] {
  const sa = lookup('serviceaccounts', namespace, name);
  if (!sa) throw notFound({ group: '', resource: 'serviceaccounts' }, name);
  return { name, uid: metaOf(sa).uid };
}

/** What the bound object reference adds to the claims, with token.go's errors. */
function boundClaims(lookup: ObjectLookup, namespace: string, saName: string, ref: JsonObject): Partial<TokenSpec> {
  const apiVersion = String(ref.apiVersion ?? '');
  const kind = String(ref.kind ?? '');
  const name = String(ref.name ?? '');
  const slash = apiVersion.indexOf('/');
  const group = slash >= 0 ? apiVersion.slice(0, slash) : '';
  const version = slash >= 0 ? apiVersion.slice(slash + 1) : apiVersion;
  let claims: Partial<TokenSpec>;
  let uid: string;
  if (group === '' && kind === 'Pod') {
    const pod = lookup('pods', namespace, name);
    if (!pod) throw notFound({ group: '', resource: 'pods' }, name);
    if (String((pod.spec as JsonObject | undefined)?.serviceAccountName ?? '') !== saName)
      throw badRequest(
        `cannot bind token for serviceaccount "${saName}" to pod running with different serviceaccount name.`,
      );
    uid = metaOf(pod).uid;
    claims = podBinding(lookup, pod);
  } else if (group === '' && kind === 'Node') {
    const node = lookup('nodes', undefined, name);
    if (!node) throw notFound({ group: '', resource: 'nodes' }, name);
    uid = metaOf(node).uid;
    claims = { node: { name, uid } };
  } else if (group === '' && kind === 'Secret') {
    const secret = lookup('secrets', namespace, name);
    if (!secret) throw notFound({ group: '', resource: 'secrets' }, name);
    uid = metaOf(secret).uid;
    claims = { secret: { name, uid } };
  } else {
    // schema.GroupVersionKind.String()
    throw badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${kind}`);
  }
  if (ref.uid && ref.uid !== uid) {
    throw conflict(
      { group, resource: kind },
      name,
      `the UID in the bound object reference (${String(ref.uid)}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  return claims;
}

export function tokenRequestHandler(issuer: TokenIssuer, lookup: ObjectLookup): CreateOnly {
  return {
    async create({ namespace = '', name = '', body }) {
      const meta = (body.metadata ?? {}) as JsonObject;
      const spec = { ...((body.spec ?? {}) as JsonObject) };
      if (meta.name && meta.name !== name) {
        const err = fieldInvalid('metadata.name', meta.name, 'must match the service account name if specified');
        throw invalid(GROUP, KIND, name, toCauses([err]));
      }
      if (meta.namespace && meta.namespace !== namespace) {
        const err = fieldInvalid(
          'metadata.namespace',
          meta.namespace,
          'must match the service account namespace if specified',
        );
        throw invalid(GROUP, KIND, name, toCauses([err]));
      }
      const serviceAccount = serviceAccountClaim(lookup, namespace, name);
      if (!Array.isArray(spec.audiences) || spec.audiences.length === 0) spec.audiences = [...issuer.apiAudiences];
      spec.expirationSeconds ??= DEFAULT_EXPIRATION_SECONDS;
      const now = issuer.clock.now();
      const errs = validateTokenRequest(spec.expirationSeconds);
      if (errs.length > 0) throw invalid(GROUP, KIND, '', toCauses(errs));
      const ref = spec.boundObjectRef as JsonObject | undefined;
      const bound = ref ? boundClaims(lookup, namespace, name, ref) : {};
      const issued = issuer.issue({
        namespace,
        serviceAccount,
        audiences: (spec.audiences as unknown[]).map(String),
        expirationSeconds: Number(spec.expirationSeconds),
        ...bound,
      });
      const object: JsonObject = {
        kind: KIND,
        apiVersion: `${GROUP}/v1`,
        metadata: { name, namespace, creationTimestamp: formatTime(now) },
        spec,
        status: { token: issued.token, expirationTimestamp: formatTime(issued.expiresAt) },
      };
      return { code: 201, object };
    },
  };
}
