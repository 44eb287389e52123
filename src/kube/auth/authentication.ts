// Bearer-token authentication as kube-apiserver's union authenticator: each verifier is asked in
// turn; the first that recognises the token names the user. A token none recognises is a 401.
import type { IncomingMessage } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { StatusError } from '../../apimachinery/errors/index.ts';
import type { Authenticator } from './types.ts';
import { ANONYMOUS, CLUSTER_ADMIN, SYSTEM_AUTHENTICATED, type UserInfo } from './user.ts';

/**
 * One kind of token. Returns undefined when the token is not of its kind (the next verifier is
 * asked), the user when it verifies, and throws `unauthorized()` when it is of its kind but
 * invalid (expired, wrong audience, bound object gone).
 */
export type TokenVerifier = (token: string) => UserInfo | undefined;

export function unauthorized(): StatusError {
  return new StatusError(401, 'Unauthorized', 'Unauthorized');
}

/** The kubeconfig's static token: the cluster admin (kube's --token-auth-file entry). */
export function staticTokenVerifier(token: string, user: UserInfo = CLUSTER_ADMIN): TokenVerifier {
  const expected = Buffer.from(token);
  return (given) => {
    const g = Buffer.from(given);
    return g.length === expected.length && timingSafeEqual(g, expected) ? user : undefined;
  };
}

export class BearerAuthenticator implements Authenticator {
  constructor(private readonly verifiers: TokenVerifier[]) {}

  authenticate(req: IncomingMessage): UserInfo {
    const token = bearerToken(req.headers.authorization);
    // No bearer token (no header, another scheme, an empty token): the anonymous user, whom RBAC
    // lets do next to nothing; kube's union authenticator falls through to anonymous the same way.
    if (token === undefined) return ANONYMOUS;
    for (const verify of this.verifiers) {
      const user = verify(token);
      if (user) return withAuthenticatedGroup(user);
    }
    throw unauthorized();
  }
}

/**
 * The token of an `Authorization: Bearer <token>` header, read as kube's bearertoken
 * authenticator does (apiserver/pkg/authentication/request/bearertoken/bearertoken.go): the
 * scheme in any case, split on single spaces, the second field is the token.
 */
export function bearerToken(header: string | undefined): string | undefined {
  const parts = (header ?? '').trim().split(' ');
  if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer' || parts[1] === '') return undefined;
  return parts[1];
}

/** kube's AuthenticatedGroupAdder: every non-anonymous user is in system:authenticated. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.includes(SYSTEM_AUTHENTICATED)) return user;
  return { ...user, groups: [...user.groups, SYSTEM_AUTHENTICATED] };
}
