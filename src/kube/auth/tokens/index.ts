// Service-account tokens end to end, as one piece the control plane wires: the issuer with its
// signing key, the bearer-token verifier, the create-only endpoints (TokenRequest, TokenReview,
// SelfSubjectReview) and the kubelet's source of pod-bound tokens.
import type { PassiveClock } from '../../../apimachinery/backoff.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { ResourceCatalog } from '../../registry/catalog.ts';
import type { ObjectStore } from '../../registry/store/index.ts';
import { createOnlyKey, type CreateOnly } from '../../server/extensions.ts';
import type { TokenVerifier } from '../authentication.ts';
import { issuerDiscoveryRoute } from '../oidc-discovery.ts';
import { selfSubjectReviewHandler, tokenReviewHandler } from '../reviews/token-reviews.ts';
import { podBinding, serviceAccountClaim, tokenRequestHandler } from './token-request.ts';
import { TokenIssuer, type IssuedToken } from './issuer.ts';
import { generateSigningKey } from './keys.ts';
import { storeLookup } from './lookup.ts';
import { ServiceAccountTokenAuthenticator } from './verifier.ts';

/** What the kubelet asks for its serviceAccountToken projections (it is in-process: no HTTP). */
export interface PodTokenSource {
  /** The clock tokens are issued and checked by (epoch ms). */
  now(): number;
  /** A token of the pod's service account bound to the pod; kube's 404 when the account is missing. */
  podToken(pod: JsonObject, audiences: string[] | undefined, expirationSeconds: number): IssuedToken;
}

export interface TokenAuthentication {
  issuer: TokenIssuer;
  verifier: TokenVerifier;
  createOnly: Map<string, CreateOnly>;
  podTokens: PodTokenSource;
  /** `/.well-known/openid-configuration` and `/openid/v1/jwks`. */
  discoveryRoute: ReturnType<typeof issuerDiscoveryRoute>;
}

const realClock: PassiveClock = { now: () => Date.now() };

export async function createTokenAuthentication(deps: {
  store: ObjectStore;
  catalog: ResourceCatalog;
  clock?: PassiveClock;
  /** The other bearer tokens (the kubeconfig's), which TokenReview answers for too. */
  staticTokens: TokenVerifier;
}): Promise<TokenAuthentication> {
  const issuer = new TokenIssuer({ key: await generateSigningKey(), clock: deps.clock ?? realClock });
  const lookup = storeLookup(deps.store, deps.catalog);
  const serviceAccounts = new ServiceAccountTokenAuthenticator(issuer, lookup);
  const selfSubjectReviews = selfSubjectReviewHandler(issuer.clock);
  const createOnly = new Map<string, CreateOnly>([
    [createOnlyKey('', 'serviceaccounts', 'token'), tokenRequestHandler(issuer, lookup)],
    [
      createOnlyKey('authentication.k8s.io', 'tokenreviews'),
      tokenReviewHandler({ serviceAccounts, staticTokens: deps.staticTokens, apiAudiences: issuer.apiAudiences }),
    ],
    [createOnlyKey('authentication.k8s.io', 'selfsubjectreviews'), selfSubjectReviews],
  ]);
  const podTokens: PodTokenSource = {
    now: () => issuer.clock.now(),
    podToken(pod, audiences, expirationSeconds) {
      const namespace = String((pod.metadata as JsonObject | undefined)?.namespace ?? '');
      const saName = String((pod.spec as JsonObject | undefined)?.serviceAccountName || 'default');
      return issuer.issue({
        namespace,
        serviceAccount: serviceAccountClaim(lookup, namespace, saName),
        audiences: audiences && audiences.length > 0 ? audiences : issuer.apiAudiences,
        expirationSeconds,
        ...podBinding(lookup, pod),
      });
    },
  };
  return {
    issuer,
    verifier: serviceAccounts.verifier(),
    createOnly,
    podTokens,
    discoveryRoute: issuerDiscoveryRoute(issuer),
  };
}
