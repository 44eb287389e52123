// The two questions every request answers before it is served: who is asking (Authenticator)
// and may they (Authorizer). Both are synchronous: what they read is in memory.
import type { IncomingMessage } from 'node:http';
import type { UserInfo } from './user.ts';

export interface Authenticator {
  /**
   * The request's user: ANONYMOUS without credentials; throws the 401 Unauthorized StatusError
   * for credentials that do not verify (bad token, expired, wrong audience, bound pod gone).
   */
  authenticate(req: IncomingMessage): UserInfo;
}

/** kube's authorizer.Attributes, derived from the request as requestinfo.go does. */
export interface Attributes {
  user: UserInfo;
  /** get, list, watch, create, update, patch, delete, deletecollection, or a custom verb (impersonate, bind, escalate). */
  verb: string;
  resourceRequest: boolean;
  /** The URL path (non-resource requests are authorized by it). */
  path: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  /** '' for cluster-scoped requests and requests across all namespaces. */
  namespace: string;
  name: string;
}

export interface Decision {
  allowed: boolean;
  /** RBAC's allow reason, or the resolution errors that come with a denial (may be ''). */
  reason: string;
  evaluationError?: string;
}

export interface Authorizer {
  authorize(attributes: Attributes): Decision;
}
