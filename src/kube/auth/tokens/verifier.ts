// Authenticates service-account JWTs as kube-apiserver's service-account token authenticator
// (pkg/serviceaccount/jwt.go, claims.go Validate): signature, issuer, audiences, times with 60 s
// leeway, then the account and the bound object must still exist with the uid in the token.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { unauthorized, type TokenVerifier } from '../authentication.ts';
import type { UserInfo } from '../user.ts';
import { parseJwt, verifySignature, type ParsedJwt } from './jwt.ts';
import { serviceAccountGroups, serviceAccountUsername, type TokenIssuer } from './issuer.ts';
import { metaOf, type BoundResource, type ObjectLookup } from './lookup.ts';

/** go-jose's DefaultLeeway, and the grace a deleted bound object's tokens keep. */
const LEEWAY_SECONDS = 60;
const INVALIDATED = 'service account token has been invalidated';
/**
 * Tokens whose signature was checked, kept so that a pod's next request skips the decode and the
 * RSA verify: its times, audiences and bound objects are still checked on every request.
 */
const VERIFIED_TOKENS_KEPT = 4096;

export const EXTRA_POD_NAME = 'authentication.kubernetes.io/pod-name';
export const EXTRA_POD_UID = 'authentication.kubernetes.io/pod-uid';
export const EXTRA_NODE_NAME = 'authentication.kubernetes.io/node-name';
export const EXTRA_NODE_UID = 'authentication.kubernetes.io/node-uid';
export const EXTRA_CREDENTIAL_ID = 'authentication.kubernetes.io/credential-id';

/** A token of this issuer that does not authenticate; the message is TokenReview's status.error. */
export class InvalidTokenError extends Error {}

export interface Authenticated {
  user: UserInfo;
  /** The token's audiences that were asked for. */
  audiences: string[];
}

export class ServiceAccountTokenAuthenticator {
  /** Signature-checked tokens of this issuer, oldest first. */
  private readonly verified = new Map<string, ParsedJwt>();

  constructor(
    private readonly issuer: TokenIssuer,
    private readonly lookup: ObjectLookup,
  ) {}

  /**
   * The token's user, undefined when it is not a token of this issuer, InvalidTokenError when it
   * is but does not verify. `audiences` default to the API audiences.
   */
  authenticate(token: string, audiences: string[] = this.issuer.apiAudiences): Authenticated | undefined {
    const jwt = this.verifiedJwt(token);
    if (!jwt) return undefined;
    const c = jwt.claims;
    const aud = typeof c.aud === 'string' ? [c.aud] : Array.isArray(c.aud) ? c.aud.map(String) : [];
    const matched = audiences.filter((a) => aud.includes(a));
    if (matched.length === 0) {
      throw new InvalidTokenError(
        `token audiences ${JSON.stringify(aud)} is invalid for the target audiences ${JSON.stringify(audiences)}`,
      );
    }
    const now = this.issuer.clock.now() / 1000;
    if (typeof c.exp === 'number' && now > c.exp + LEEWAY_SECONDS)
      throw new InvalidTokenError('service account token has expired');
    if (typeof c.nbf === 'number' && now < c.nbf - LEEWAY_SECONDS)
      throw new InvalidTokenError('service account token is not valid yet');
    if (typeof c.iat === 'number' && now < c.iat - LEEWAY_SECONDS)
      throw new InvalidTokenError('service account token is issued in the future');

    const k = (c['kubernetes.io'] ?? {}) as JsonObject;
    const namespace = String(k.namespace ?? '');
    const sa = (k.serviceaccount ?? {}) as JsonObject;
    const pod = k.pod as JsonObject | undefined;
    const secret = k.secret as JsonObject | undefined;
    const node = k.node as JsonObject | undefined;
    const nowMs = this.issuer.clock.now();
    this.requireLive('serviceaccounts', namespace, sa, nowMs);
    if (pod) this.requireLive('pods', namespace, pod, nowMs);
    else if (secret) this.requireLive('secrets', namespace, secret, nowMs);
    else if (node) this.requireLive('nodes', undefined, node, nowMs);

    const extra: Record<string, string[]> = {};
    if (pod) {
      extra[EXTRA_POD_NAME] = [String(pod.name)];
      extra[EXTRA_POD_UID] = [String(pod.uid)];
    }
    if (node) {
      extra[EXTRA_NODE_NAME] = [String(node.name)];
      if (node.uid) extra[EXTRA_NODE_UID] = [String(node.uid)];
    }
    if (typeof c.jti === 'string' && c.jti) extra[EXTRA_CREDENTIAL_ID] = [`JTI=${c.jti}`];
    const user: UserInfo = {
      username: serviceAccountUsername(namespace, String(sa.name ?? '')),
      uid: String(sa.uid ?? ''),
      groups: serviceAccountGroups(namespace),
      ...(Object.keys(extra).length > 0 ? { extra } : {}),
    };
    return { user, audiences: matched };
  }

  /** The token decoded, undefined when another issuer's; throws when its signature does not verify. */
  private verifiedJwt(token: string): ParsedJwt | undefined {
    const known = this.verified.get(token);
    if (known) return known;
    const jwt = parseJwt(token);
    if (!jwt || jwt.claims.iss !== this.issuer.issuer) return undefined;
    if (!verifySignature(jwt, this.issuer.key.publicKey)) throw new InvalidTokenError('invalid bearer token');
    if (this.verified.size >= VERIFIED_TOKENS_KEPT) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(token, jwt);
    return jwt;
  }

  /** The object must exist with the token's uid and not have been deleted more than the leeway ago. */
  private requireLive(resource: BoundResource, namespace: string | undefined, ref: JsonObject, nowMs: number): void {
    const obj = this.lookup(resource, namespace, String(ref.name ?? ''));
    if (!obj) throw new InvalidTokenError(INVALIDATED);
    const meta = metaOf(obj);
    if (ref.uid !== undefined && meta.uid !== ref.uid) throw new InvalidTokenError(INVALIDATED);
    if (meta.deletionTimestamp && Date.parse(meta.deletionTimestamp) < nowMs - LEEWAY_SECONDS * 1000)
      throw new InvalidTokenError(INVALIDATED);
  }

  /** The bearer-token verifier the API server's authenticator chain asks. */
  verifier(): TokenVerifier {
    return (token) => {
      try {
        return this.authenticate(token)?.user;
      } catch (e) {
        if (e instanceof InvalidTokenError) throw unauthorized();
        throw e;
      }
    };
  }
}
