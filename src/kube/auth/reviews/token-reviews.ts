// The authentication.k8s.io reviews: TokenReview (pkg/registry/authentication/tokenreview) asks
// who a token belongs to; SelfSubjectReview (pkg/registry/authentication/selfsubjectreview,
// `kubectl auth whoami`) tells the caller who the server thinks they are.
import { badRequest } from '../../../apimachinery/errors/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { formatTime } from '../../../apimachinery/time/index.ts';
import type { PassiveClock } from '../../../apimachinery/backoff.ts';
import type { CreateOnly } from '../../server/extensions.ts';
import { InvalidTokenError, type ServiceAccountTokenAuthenticator } from '../tokens/verifier.ts';
import { withAuthenticatedGroup, type TokenVerifier } from '../authentication.ts';
import type { UserInfo } from '../user.ts';

/** authentication/v1 UserInfo: empty fields left out, as their omitempty tags do. */
export function userInfoJson(user: UserInfo): JsonObject {
  return {
    username: user.username,
    ...(user.uid ? { uid: user.uid } : {}),
    ...(user.groups.length > 0 ? { groups: [...user.groups] } : {}),
    ...(user.extra && Object.keys(user.extra).length > 0 ? { extra: { ...user.extra } } : {}),
  };
}

export function selfSubjectReviewHandler(clock: PassiveClock): CreateOnly {
  return {
    async create({ def }, ctx) {
      const object: JsonObject = {
        kind: 'SelfSubjectReview',
        apiVersion: `${def.group}/${def.version}`,
        metadata: { creationTimestamp: formatTime(clock.now()) },
        status: { userInfo: userInfoJson(ctx.userInfo) },
      };
      return { code: 201, object };
    },
  };
}

export interface TokenReviewAuthenticators {
  serviceAccounts: ServiceAccountTokenAuthenticator;
  /** The kubeconfig's static token (audience-agnostic, as kube wraps such authenticators). */
  staticTokens: TokenVerifier;
  apiAudiences: string[];
}

export function tokenReviewHandler(a: TokenReviewAuthenticators): CreateOnly {
  return {
    async create({ def, body }) {
      const spec = (body.spec ?? {}) as JsonObject;
      const token = typeof spec.token === 'string' ? spec.token : '';
      // kube's message names the internal version (authentication.SchemeGroupVersion).
      if (!token) throw badRequest('token is required for TokenReview in authentication.k8s.io/__internal');
      const asked = Array.isArray(spec.audiences) && spec.audiences.length > 0 ? spec.audiences.map(String) : undefined;
      const audiences = asked ?? a.apiAudiences;
      const status: JsonObject = { authenticated: false, user: {} };
      try {
        const result = authenticate(a, token, audiences);
        if (result) {
          status.authenticated = true;
          status.user = userInfoJson(withAuthenticatedGroup(result.user));
          status.audiences = result.audiences;
        } else status.error = 'invalid bearer token';
      } catch (e) {
        if (!(e instanceof InvalidTokenError)) throw e;
        status.error = e.message;
      }
      const object: JsonObject = {
        kind: 'TokenReview',
        apiVersion: `${def.group}/${def.version}`,
        metadata: { creationTimestamp: null },
        spec: { token, ...(asked ? { audiences: asked } : {}) },
        status,
      };
      return { code: 201, object };
    },
  };
}

function authenticate(
  a: TokenReviewAuthenticators,
  token: string,
  audiences: string[],
): { user: UserInfo; audiences: string[] } | undefined {
  const user = a.staticTokens(token);
  if (user) {
    // authenticator.WrapAudienceAgnosticToken: valid only for the API audiences.
    const matched = audiences.filter((x) => a.apiAudiences.includes(x));
    return matched.length > 0 ? { user, audiences: matched } : undefined;
  }
  return a.serviceAccounts.authenticate(token, audiences);
}
