// Issues service-account JWTs with the claims kube-apiserver puts in them
// (pkg/serviceaccount/claims.go Claims): the private `kubernetes.io` claim names the account and
// the object the token is bound to; `warnafter` marks the extended-expiry tokens.
import { randomUUID } from 'node:crypto';
import type { PassiveClock } from '../../../apimachinery/backoff.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { signJwt } from './jwt.ts';
import type { SigningKey } from './keys.ts';

/** kube-apiserver's --service-account-issuer on kubeadm clusters. */
export const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** The admission-injected projection's expirationSeconds (WarnOnlyBoundTokenExpirationSeconds). */
export const EXTENDED_EXPIRATION_TRIGGER_SECONDS = 3607;
/** --service-account-extend-token-expiration: such tokens really live a year (ExpirationExtensionSeconds). */
const EXTENDED_EXPIRATION_SECONDS = 365 * 24 * 60 * 60;

export interface ObjectRefClaim {
  name: string;
  /** Absent for a pod's node when no Node object exists. */
  uid?: string;
}

export interface TokenSpec {
  namespace: string;
  serviceAccount: { name: string; uid: string };
  audiences: string[];
  expirationSeconds: number;
  pod?: ObjectRefClaim;
  secret?: ObjectRefClaim;
  node?: ObjectRefClaim;
}

export interface IssuedToken {
  token: string;
  /** Epoch ms. */
  issuedAt: number;
  /** What TokenRequest reports (status.expirationTimestamp), epoch ms; the JWT's `exp` may be later. */
  expiresAt: number;
}

export interface TokenIssuerOptions {
  key: SigningKey;
  clock: PassiveClock;
  issuer?: string;
  /** --api-audiences; default [issuer]. */
  apiAudiences?: string[];
}

export class TokenIssuer {
  readonly key: SigningKey;
  readonly clock: PassiveClock;
  readonly issuer: string;
  readonly apiAudiences: string[];

  constructor(options: TokenIssuerOptions) {
    this.key = options.key;
    this.clock = options.clock;
    this.issuer = options.issuer ?? SERVICE_ACCOUNT_ISSUER;
    this.apiAudiences = options.apiAudiences ?? [this.issuer];
  }

  issue(spec: TokenSpec): IssuedToken {
    const now = this.clock.now();
    const iat = Math.floor(now / 1000);
    // pkg/registry/core/serviceaccount/storage/token.go: the projection admission adds gets a
    // year-long token that only warns after 3607 s, so clients that never re-read keep working.
    const extended =
      spec.pod !== undefined &&
      spec.expirationSeconds === EXTENDED_EXPIRATION_TRIGGER_SECONDS &&
      spec.audiences.every((a) => this.apiAudiences.includes(a));
    const kubernetes: JsonObject = {
      namespace: spec.namespace,
      serviceaccount: { name: spec.serviceAccount.name, uid: spec.serviceAccount.uid },
    };
    if (spec.pod) kubernetes.pod = refClaim(spec.pod);
    if (spec.secret) kubernetes.secret = refClaim(spec.secret);
    if (spec.node) kubernetes.node = refClaim(spec.node);
    if (extended) kubernetes.warnafter = iat + spec.expirationSeconds;
    const claims: JsonObject = {
      aud: spec.audiences,
      exp: iat + (extended ? EXTENDED_EXPIRATION_SECONDS : spec.expirationSeconds),
      iat,
      iss: this.issuer,
      jti: randomUUID(),
      'kubernetes.io': kubernetes,
      nbf: iat,
      sub: serviceAccountUsername(spec.namespace, spec.serviceAccount.name),
    };
    return {
      token: signJwt(this.key.kid, claims, this.key.privateKey),
      issuedAt: now,
      expiresAt: (iat + spec.expirationSeconds) * 1000,
    };
  }
}

function refClaim(ref: ObjectRefClaim): JsonObject {
  return ref.uid ? { name: ref.name, uid: ref.uid } : { name: ref.name };
}

/** apiserver/pkg/authentication/serviceaccount: the user a service account's tokens act as. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

export const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';

export function serviceAccountGroups(namespace: string): string[] {
  return [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${namespace}`];
}

/** `system:serviceaccount:NS:NAME` split, or undefined for other users. */
export function parseServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  const m = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(username);
  return m ? { namespace: m[1], name: m[2] } : undefined;
}
