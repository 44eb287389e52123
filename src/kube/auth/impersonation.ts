// Impersonation (Impersonate-User, -Group, -Uid, -Extra-*): owned by the authentication work.
// Until it lands, any impersonation header is refused rather than ignored.
import type { IncomingMessage } from 'node:http';
import { StatusError } from '../../apimachinery/errors/index.ts';
import type { Authorizer } from './types.ts';
import type { UserInfo } from './user.ts';

export function impersonate(req: IncomingMessage, _url: URL, user: UserInfo, _authorizer: Authorizer): UserInfo {
  const asked = Object.keys(req.headers).some((h) => h.startsWith('impersonate-'));
  if (asked) throw new StatusError(403, 'Forbidden', 'impersonation is not served yet');
  return user;
}
