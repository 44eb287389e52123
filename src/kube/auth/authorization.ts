// kube-apiserver's authorizer chain: system:masters is allowed everything ahead of the rest (the
// privileged-group authorizer), then each authorizer is asked until one allows.
import type { Attributes, Authorizer, Decision } from './types.ts';
import { SYSTEM_MASTERS } from './user.ts';

export const privilegedGroupAuthorizer: Authorizer = {
  authorize: (a) => ({ allowed: a.user.groups.includes(SYSTEM_MASTERS), reason: '' }),
};

export function unionAuthorizer(authorizers: Authorizer[]): Authorizer {
  return {
    authorize(a: Attributes): Decision {
      const reasons: string[] = [];
      for (const authorizer of authorizers) {
        const d = authorizer.authorize(a);
        if (d.allowed) return d;
        if (d.reason) reasons.push(d.reason);
      }
      return { allowed: false, reason: reasons.join('; ') };
    },
  };
}
