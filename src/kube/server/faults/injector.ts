// Fault injection on the API server's request paths, for tests that must see an operator survive
// what a real cluster does to it now and then: slow answers, throttling, errors, expired
// resourceVersions, watches that end, connections that break. Faults act after authentication
// and authorization (on what a client sees), on HTTP requests only: the server's in-process
// controllers call storage directly and never see them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { seededRandom } from '../../../apimachinery/random.ts';
import type { Attributes } from '../../auth/types.ts';
import type { WatchStream } from '../resource/watch-stream.ts';
import { faultStatus, sendStatus, sendWatchError } from './respond.ts';
import { appliesTo, matchesRequest, validateRule, type FaultAction, type FaultRule } from './rules.ts';

/** An injected rule; `remove()` takes it out (requests already delayed or dropped keep their fault). */
export interface FaultHandle {
  /** Requests the rule has acted on so far. */
  readonly hits: number;
  remove(): void;
}

/** The control plane's fault switchboard (ControlPlane.faults). */
export interface Faults {
  /**
   * Adds a rule. Rules are tried in the order they were added and a request gets at most one
   * fault: the first rule that matches it, can act on it, has `times` left and wins its draw.
   */
  inject(rule: FaultRule): FaultHandle;
  /** Removes every rule. */
  clear(): void;
}

interface ActiveRule {
  rule: FaultRule;
  random: () => number;
  hits: number;
}

export class FaultInjector implements Faults {
  private rules: ActiveRule[] = [];
  /** Watches a dropWatch fault was chosen for, and how many events they may still carry. */
  private readonly watchBudgets = new WeakMap<IncomingMessage, number>();

  /** The store's revision, for an injected 410's "too old resource version" message. */
  constructor(private readonly currentRevision: () => number) {}

  inject(rule: FaultRule): FaultHandle {
    validateRule(rule);
    const active: ActiveRule = { rule: structuredClone(rule), random: seededRandom(rule.seed ?? 0), hits: 0 };
    this.rules.push(active);
    return {
      get hits() {
        return active.hits;
      },
      remove: () => {
        this.rules = this.rules.filter((r) => r !== active);
      },
    };
  }

  clear(): void {
    this.rules = [];
  }

  /**
   * Acts on an admitted request. Returns true when the fault answered it (or broke its
   * connection) and the server must not serve it; after a delay, or for a watch to drop later,
   * false.
   */
  async intercept(req: IncomingMessage, res: ServerResponse, url: URL, attributes: Attributes): Promise<boolean> {
    if (this.rules.length === 0) return false;
    const action = this.choose(attributes, url.searchParams);
    if (!action) return false;
    switch (action.type) {
      case 'delay':
        await new Promise((resolve) => setTimeout(resolve, action.ms));
        return false;
      case 'reset':
        req.socket.destroy();
        return true;
      case 'dropWatch':
        this.watchBudgets.set(req, action.afterEvents ?? 0);
        return false;
      case 'status': {
        const err = faultStatus(action, () => ({
          requested: url.searchParams.get('resourceVersion') ?? '',
          oldest: this.currentRevision() + 1,
        }));
        // The body is never read; unread bytes would stall a keep-alive connection.
        req.resume();
        if (attributes.verb === 'watch' && action.code === 410) sendWatchError(res, err);
        else sendStatus(res, err);
        return true;
      }
    }
  }

  /**
   * The watch path's hook: for a watch a dropWatch fault was chosen for, returns what to call
   * after each event sent, and ends the stream once its events are spent (at once for 0).
   */
  watchEvents(req: IncomingMessage, stream: WatchStream): (() => void) | undefined {
    const budget = this.watchBudgets.get(req);
    if (budget === undefined) return undefined;
    const end = (): void => {
      stream.begin();
      stream.close();
    };
    if (budget === 0) {
      end();
      return undefined;
    }
    let remaining = budget;
    return () => {
      if (--remaining === 0) end();
    };
  }

  private choose(attributes: Attributes, query: URLSearchParams): FaultAction | undefined {
    for (const active of this.rules) {
      const { rule } = active;
      if (!matchesRequest(rule.match, attributes) || !appliesTo(rule.action, attributes, query)) continue;
      if (rule.times !== undefined && active.hits >= rule.times) continue;
      // Every eligible request draws, so one request's outcome does not shift the next ones'.
      if (active.random() >= (rule.probability ?? 1)) continue;
      active.hits++;
      return rule.action;
    }
    return undefined;
  }
}
