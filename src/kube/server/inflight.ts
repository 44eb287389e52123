// kube-apiserver's max-in-flight filter (--max-requests-inflight, --max-mutating-requests-inflight;
// staging/src/k8s.io/apiserver/pkg/server/filters/maxinflight.go): at most N reads and M writes
// are served at once, the rest answered 429 with Retry-After: 1 so clients back off and retry.
// Long-running requests hold no slot (server.Config's BasicLongRunningRequestCheck with the verbs
// watch and proxy and the subresources attach, exec, proxy, log and portforward), and members of
// system:masters are served even over the limit ("a system:master is so powerful that they should
// always get an answer").
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Attributes } from '../auth/types.ts';
import { SYSTEM_MASTERS } from '../auth/user.ts';

export interface InFlightLimits {
  /** Reads (get, list) served at once; 0 = unlimited. Default 400, as kube's --max-requests-inflight. */
  maxRequestsInFlight?: number;
  /** Writes served at once; 0 = unlimited. Default 200, as kube's --max-mutating-requests-inflight. */
  maxMutatingRequestsInFlight?: number;
}

const NON_MUTATING_VERBS = new Set(['get', 'list', 'watch']);
const LONG_RUNNING_VERBS = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);
/** http.Error's text in maxinflight.go's tooManyRequests: plain text, not a Status. */
const TOO_MANY_REQUESTS = 'Too many requests, please try again later.\n';

function isLongRunning(a: Attributes): boolean {
  return LONG_RUNNING_VERBS.has(a.verb) || (a.resourceRequest && LONG_RUNNING_SUBRESOURCES.has(a.subresource));
}

export class InFlightLimiter {
  private readonly limits: { readOnly: number; mutating: number };
  private readonly served = { readOnly: 0, mutating: 0 };

  constructor(limits: InFlightLimits = {}) {
    this.limits = {
      readOnly: Math.max(0, limits.maxRequestsInFlight ?? 400),
      mutating: Math.max(0, limits.maxMutatingRequestsInFlight ?? 200),
    };
  }

  /** Requests holding a slot now. */
  get inFlight(): { readOnly: number; mutating: number } {
    return { ...this.served };
  }

  /**
   * Takes a slot for the request until its response closes, or answers 429 and returns false.
   */
  admit(a: Attributes, req: IncomingMessage, res: ServerResponse): boolean {
    if (isLongRunning(a)) return true;
    const kind = NON_MUTATING_VERBS.has(a.verb) ? 'readOnly' : 'mutating';
    const limit = this.limits[kind];
    if (limit === 0) return true;
    if (this.served[kind] >= limit) {
      if (a.user.groups.includes(SYSTEM_MASTERS)) return true;
      req.resume();
      res.writeHead(429, {
        'Retry-After': '1',
        'Content-Type': 'text/plain; charset=utf-8',
        'X-Content-Type-Options': 'nosniff',
        'Content-Length': Buffer.byteLength(TOO_MANY_REQUESTS),
      });
      res.end(TOO_MANY_REQUESTS);
      return false;
    }
    this.served[kind]++;
    res.once('close', () => this.served[kind]--);
    return true;
  }
}
