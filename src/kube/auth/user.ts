// Who made a request, as kube's user.Info: the authenticators produce it, impersonation may
// replace it, and the authorizer, access reviews, TokenRequest and escalation checks read it.

export interface UserInfo {
  username: string;
  /** The ServiceAccount's uid for service-account tokens; empty for the static admin token. */
  uid?: string;
  groups: string[];
  /** e.g. `authentication.kubernetes.io/pod-name` for pod-bound tokens. */
  extra?: Record<string, string[]>;
}

export const SYSTEM_MASTERS = 'system:masters';
export const SYSTEM_AUTHENTICATED = 'system:authenticated';
export const SYSTEM_UNAUTHENTICATED = 'system:unauthenticated';

/** Requests without credentials, as with kube-apiserver's --anonymous-auth=true (its default). */
export const ANONYMOUS: UserInfo = Object.freeze({
  username: 'system:anonymous',
  groups: Object.freeze([SYSTEM_UNAUTHENTICATED]) as string[],
}) as UserInfo;

/** The kubeconfig's identity: kubeadm's admin user, in the group RBAC never restricts. */
export const CLUSTER_ADMIN: UserInfo = Object.freeze({
  username: 'kubernetes-admin',
  groups: Object.freeze([SYSTEM_MASTERS, SYSTEM_AUTHENTICATED]) as string[],
}) as UserInfo;

/** The in-process control-plane components (controllers, kubelets): privileged like kube's loopback client. */
export function systemUser(component: string): UserInfo {
  return { username: `system:${component}`, groups: [SYSTEM_MASTERS, SYSTEM_AUTHENTICATED] };
}

export function isPrivileged(user: UserInfo): boolean {
  return user.groups.includes(SYSTEM_MASTERS);
}
