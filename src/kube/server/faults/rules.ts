// What a fault rule says: which requests it matches, what it does to them, how often. Rules are
// data, so tests (and `peerpods cluster start --fault`) can state them as plain objects.
import type { Attributes } from '../../auth/types.ts';

/**
 * Which requests a rule applies to. Every field left out matches anything; a rule matches
 * resource requests only (never discovery, health, OpenAPI or exec/attach/port-forward upgrades).
 */
export interface FaultMatch {
  /** kube's verbs: get, list, watch, create, update, patch, delete, deletecollection. Default: any. */
  verb?: string | readonly string[];
  /** API group; '' is the core group. Default: any. */
  group?: string;
  /** Plural resource name, e.g. `configmaps`. Default: any. */
  resource?: string;
  /** Subresource, e.g. `status`; '' matches the main resource only. Default: any. */
  subresource?: string;
  /** Namespace; '' matches cluster-scoped and all-namespace requests only. Default: any. */
  namespace?: string;
  /** Object name; '' matches collection requests only. Default: any. */
  name?: string;
  /** The username the request acts as (after impersonation), e.g. `system:serviceaccount:ns:sa`. Default: any. */
  user?: string;
}

/** What happens to a matched request. */
export type FaultAction =
  /** The request waits `ms` milliseconds, then is served as usual. */
  | { type: 'delay'; ms: number }
  /**
   * The request is answered with a Status of this code and is not served. Each code gets kube's
   * reason and message (429 TooManyRequests, 500 InternalError, 503 ServiceUnavailable,
   * 504 Timeout, ...) unless `message` is given. 410 is kube's `Expired` for a list or watch that
   * names a resourceVersion: it applies to those requests only, and a watch receives it as an
   * ERROR event on an open stream, as from kube's watch cache.
   */
  | {
      type: 'status';
      code: number;
      message?: string;
      /** Sent as `Retry-After` and `details.retryAfterSeconds`. Default: 1 for 429, none otherwise. */
      retryAfterSeconds?: number;
    }
  /**
   * A watch request's stream opens (200) and ends cleanly after `afterEvents` events (BOOKMARKs
   * and initial events count); 0, the default, ends it at once. Applies to watch requests only.
   */
  | { type: 'dropWatch'; afterEvents?: number }
  /** The connection is destroyed before any answer, as a crashed server or a broken network would. */
  | { type: 'reset' };

export interface FaultRule {
  /** Default: every resource request. */
  match?: FaultMatch;
  action: FaultAction;
  /** How many requests the rule acts on before it retires. Default: no limit. */
  times?: number;
  /** Chance that a matching request is acted on, drawn from the rule's seeded sequence. Default 1. */
  probability?: number;
  /** Seed of the rule's random sequence: the same seed and requests give the same faults. Default 0. */
  seed?: number;
}

function matchesField(want: string | readonly string[] | undefined, got: string): boolean {
  if (want === undefined) return true;
  return typeof want === 'string' ? want === got : want.includes(got);
}

export function matchesRequest(match: FaultMatch | undefined, a: Attributes): boolean {
  if (!a.resourceRequest) return false;
  if (!match) return true;
  return (
    matchesField(match.verb, a.verb) &&
    matchesField(match.group, a.apiGroup) &&
    matchesField(match.resource, a.resource) &&
    matchesField(match.subresource, a.subresource) &&
    matchesField(match.namespace, a.namespace) &&
    matchesField(match.name, a.name) &&
    matchesField(match.user, a.user.username)
  );
}

/** Whether the action can act on this request at all (a rule that cannot is not consumed by it). */
export function appliesTo(action: FaultAction, a: Attributes, query: URLSearchParams): boolean {
  if (action.type === 'dropWatch') return a.verb === 'watch';
  if (action.type === 'status' && action.code === 410) {
    // kube answers 410 only for a list or watch from a resourceVersion (or continue token) it no longer holds.
    const rv = query.get('resourceVersion');
    const fromVersion = (rv !== null && rv !== '' && rv !== '0') || !!query.get('continue');
    return (a.verb === 'list' || a.verb === 'watch') && fromVersion;
  }
  return true;
}

/** Refuses rules that cannot be what the caller meant (a typo must not silently inject nothing). */
export function validateRule(rule: FaultRule): void {
  const { action } = rule;
  const bad = (why: string): never => {
    throw new TypeError(`invalid fault rule: ${why}`);
  };
  if (rule.times !== undefined && !(Number.isInteger(rule.times) && rule.times >= 0))
    bad('times must be an integer ≥ 0');
  if (rule.probability !== undefined && !(rule.probability >= 0 && rule.probability <= 1))
    bad('probability must be within [0, 1]');
  switch (action.type) {
    case 'delay':
      if (!(action.ms >= 0 && Number.isFinite(action.ms))) bad('delay ms must be a finite number ≥ 0');
      return;
    case 'status':
      if (!(Number.isInteger(action.code) && action.code >= 400 && action.code <= 599))
        bad('status code must be an HTTP error code (400-599)');
      if (
        action.retryAfterSeconds !== undefined &&
        !(Number.isInteger(action.retryAfterSeconds) && action.retryAfterSeconds >= 0)
      )
        bad('retryAfterSeconds must be an integer ≥ 0');
      return;
    case 'dropWatch':
      if (action.afterEvents !== undefined && !(Number.isInteger(action.afterEvents) && action.afterEvents >= 0))
        bad('afterEvents must be an integer ≥ 0');
      return;
    case 'reset':
      return;
    default:
      bad(`unknown action type ${JSON.stringify((action as { type: unknown }).type)}`);
  }
}
