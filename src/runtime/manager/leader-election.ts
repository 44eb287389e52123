// Leader election on a coordination.k8s.io/v1 Lease, following client-go's tools/leaderelection:
// a candidate takes the Lease when its holder has not renewed it for `leaseDuration` as measured on
// the candidate's own clock (from when it last saw the record change, so clocks need not agree);
// the leader renews every `retryPeriod` and gives up when no renewal succeeded for `renewDeadline`.
// Since renewDeadline < leaseDuration, the old leader stops before anyone else may start.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { isAlreadyExists, isConflict, isNotFound } from '../client/errors.ts';
import { Leases } from '../client/resources.ts';
import type { KubeObject, ResourceType } from '../client/types.ts';
import { realClock } from '../util/clock.ts';
import type { Clock } from '../util/clock.ts';
import { silentLogger } from '../util/logger.ts';
import type { Logger } from '../util/logger.ts';
import { formatMicroTime } from '../../apimachinery/time/index.ts';

export interface LeaseSpec {
  holderIdentity?: string | null;
  leaseDurationSeconds?: number;
  acquireTime?: string | null;
  renewTime?: string | null;
  leaseTransitions?: number;
  [key: string]: unknown;
}

export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

/** The part of the client leader election uses (so tests can interpose failures). */
export interface LeaseClient {
  get<T extends KubeObject>(
    type: ResourceType,
    name: string,
    namespace?: string,
    opts?: { signal?: AbortSignal },
  ): Promise<T>;
  create<T extends KubeObject>(type: ResourceType, obj: T, opts?: { signal?: AbortSignal }): Promise<T>;
  update<T extends KubeObject>(type: ResourceType, obj: T, opts?: { signal?: AbortSignal }): Promise<T>;
}

export interface LeaderElectionOptions {
  /** Lease name; one per operator (all replicas use the same). Required. */
  leaseName: string;
  /** Lease namespace. Default: the client's namespace, else "default". */
  namespace?: string;
  /** This replica's identity. Default `<hostname>_<uuid>`, unique per process. */
  identity?: string;
  /** How long a Lease is valid after its last renewal, for the other candidates. Default 15 000 ms. */
  leaseDurationMs?: number;
  /** The leader gives up when it could not renew for this long. Default 10 000 ms. Must be < leaseDuration. */
  renewDeadlineMs?: number;
  /** Between attempts to acquire or renew. Default 2000 ms. */
  retryPeriodMs?: number;
  /** On a clean stop, hand the Lease over at once instead of letting it expire. Default true. */
  releaseOnCancel?: boolean;
}

export interface LeaderCallbacks {
  /** Leadership acquired; `leading` aborts when it is lost or the election stops. */
  onStartedLeading(leading: AbortSignal): void;
  /** Leadership lost or given up. Awaited before campaigning again. */
  onStoppedLeading(reason: 'lost' | 'stopped'): void | Promise<void>;
  onNewLeader?(identity: string): void;
}

interface Observed {
  holder: string;
  renewTime: string;
  acquireTime: string;
  transitions: number;
  durationS: number;
}

export class LeaderElector {
  readonly identity: string;
  readonly leaseName: string;
  readonly namespace: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  private readonly releaseOnCancel: boolean;
  private observed: Observed | undefined;
  private observedAt = 0;
  private lease: Lease | undefined;
  private lastRenewAt: number | undefined;
  private leading = false;
  private lastReportedLeader: string | undefined;
  private callbacks: LeaderCallbacks | undefined;

  constructor(
    private readonly client: LeaseClient,
    opts: LeaderElectionOptions & { namespace: string },
    private readonly clock: Clock = realClock,
    private readonly log: Logger = silentLogger(),
  ) {
    this.leaseName = opts.leaseName;
    this.namespace = opts.namespace;
    this.identity = opts.identity ?? `${hostname()}_${randomUUID()}`;
    this.leaseDurationMs = opts.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = opts.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = opts.retryPeriodMs ?? 2_000;
    this.releaseOnCancel = opts.releaseOnCancel ?? true;
    if (!(this.renewDeadlineMs < this.leaseDurationMs)) {
      throw new RangeError('leader election: renewDeadline must be shorter than leaseDuration');
    }
    if (!(this.retryPeriodMs * 1.2 < this.renewDeadlineMs)) {
      throw new RangeError('leader election: retryPeriod × 1.2 must be shorter than renewDeadline');
    }
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** Time of the last successful acquire/renew while leading (for health checks). */
  lastRenewTime(): number | undefined {
    return this.lastRenewAt;
  }

  /** The holder most recently seen in the Lease ("" when released or unknown). */
  observedLeader(): string {
    return this.observed?.holder ?? '';
  }

  /**
   * Campaigns until `signal` aborts: acquire, lead (renewing) until lost, then campaign again.
   * On abort while leading, releases the Lease (if `releaseOnCancel`) after `onStoppedLeading` ran.
   */
  async run(signal: AbortSignal, cb: LeaderCallbacks): Promise<void> {
    this.callbacks = cb;
    while (!signal.aborted) {
      if (!(await this.acquire(signal))) break;
      const leading = new AbortController();
      this.leading = true;
      this.log.info({ lease: `${this.namespace}/${this.leaseName}`, identity: this.identity }, 'became leader');
      this.reportLeader(this.identity);
      cb.onStartedLeading(leading.signal);
      const outcome = await this.renewLoop(signal);
      this.leading = false;
      leading.abort(outcome === 'lost' ? new Error('leader election lost') : signal.reason);
      if (outcome === 'lost') this.log.warn({ identity: this.identity }, 'leader election lost');
      await cb.onStoppedLeading(outcome);
      if (outcome === 'stopped') {
        if (this.releaseOnCancel) await this.release();
        return;
      }
    }
  }

  /** Retries every retryPeriod (jittered) until the Lease is ours; false when aborted first. */
  private async acquire(signal: AbortSignal): Promise<boolean> {
    for (;;) {
      if (signal.aborted) return false;
      if (await this.tryAcquireOrRenew(signal)) return true;
      if (!(await this.sleep(jittered(this.retryPeriodMs), signal))) return false;
    }
  }

  /** Renews every retryPeriod; 'lost' when no renewal succeeded within renewDeadline or someone else holds it. */
  private async renewLoop(signal: AbortSignal): Promise<'lost' | 'stopped'> {
    for (;;) {
      if (!(await this.sleep(this.retryPeriodMs, signal))) return 'stopped';
      const ok = await this.tryAcquireOrRenew(signal);
      if (signal.aborted) return 'stopped';
      if (ok) continue;
      if (this.observed && this.observed.holder !== this.identity) return 'lost';
      if (this.clock.now() - (this.lastRenewAt ?? 0) >= this.renewDeadlineMs) return 'lost';
    }
  }

  /** Resolves true after `ms`, false if `signal` aborts first. */
  private async sleep(ms: number, signal: AbortSignal): Promise<boolean> {
    try {
      await this.clock.sleep(ms, signal);
      return true;
    } catch {
      return false;
    }
  }

  private requestSignal(signal: AbortSignal): AbortSignal {
    // One hung request must not eat the whole renew deadline.
    return AbortSignal.any([signal, AbortSignal.timeout(Math.max(this.retryPeriodMs, this.renewDeadlineMs / 2))]);
  }

  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const now = this.clock.now();
    const nowMicro = formatMicroTime(now);
    const reqSignal = this.requestSignal(signal);
    let current: Lease;
    try {
      current = await this.client.get<Lease>(Leases, this.leaseName, this.namespace, { signal: reqSignal });
    } catch (err) {
      if (!isNotFound(err)) {
        this.log.warn({ err: errMessage(err) }, 'error retrieving the lease');
        return false;
      }
      const fresh: Lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.leaseName, namespace: this.namespace },
        spec: this.spec(nowMicro, nowMicro, 0),
      };
      try {
        this.lease = await this.client.create<Lease>(Leases, fresh, { signal: reqSignal });
      } catch (e) {
        if (!isAlreadyExists(e)) this.log.warn({ err: errMessage(e) }, 'error creating the lease');
        return false;
      }
      this.observe(this.lease, this.clock.now());
      this.lastRenewAt = now;
      return true;
    }

    const rec = toObserved(current);
    if (!this.observed || !sameRecord(this.observed, rec)) {
      this.observed = rec;
      this.observedAt = now;
      this.reportLeader(rec.holder);
    }
    this.lease = current;
    const heldByOther = rec.holder !== '' && rec.holder !== this.identity;
    if (heldByOther && this.observedAt + rec.durationS * 1000 > now) return false;

    const ours = rec.holder === this.identity;
    const next: Lease = {
      ...current,
      spec: {
        ...current.spec,
        ...this.spec(
          ours ? rec.acquireTime || nowMicro : nowMicro,
          nowMicro,
          ours ? rec.transitions : rec.transitions + 1,
        ),
      },
    };
    try {
      this.lease = await this.client.update<Lease>(Leases, next, { signal: reqSignal });
    } catch (err) {
      if (!isConflict(err)) this.log.warn({ err: errMessage(err) }, 'error updating the lease');
      return false;
    }
    this.observe(this.lease, this.clock.now());
    this.lastRenewAt = now;
    return true;
  }

  private spec(acquireTime: string, renewTime: string, transitions: number): LeaseSpec {
    return {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
      acquireTime,
      renewTime,
      leaseTransitions: transitions,
    };
  }

  private observe(lease: Lease, at: number): void {
    this.observed = toObserved(lease);
    this.observedAt = at;
  }

  /** Hands the Lease over: clears the holder so a candidate takes it at its next retry. */
  private async release(): Promise<void> {
    const lease = this.lease;
    if (!lease || this.observed?.holder !== this.identity) return;
    const now = formatMicroTime(this.clock.now());
    const released: Lease = {
      ...lease,
      spec: {
        ...lease.spec,
        holderIdentity: '',
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: this.observed.transitions,
      },
    };
    try {
      this.lease = await this.client.update<Lease>(Leases, released, {
        signal: AbortSignal.timeout(this.renewDeadlineMs),
      });
      this.observe(this.lease, this.clock.now());
      this.log.info({ identity: this.identity }, 'released the lease');
    } catch (err) {
      // It expires on its own after leaseDuration; nothing else to do.
      this.log.warn({ err: errMessage(err) }, 'failed to release the lease');
    }
  }

  private reportLeader(identity: string): void {
    if (identity === this.lastReportedLeader) return;
    this.lastReportedLeader = identity;
    if (identity) this.log.info({ leader: identity }, 'new leader observed');
    this.callbacks?.onNewLeader?.(identity);
  }
}

function toObserved(l: Lease): Observed {
  return {
    holder: l.spec?.holderIdentity ?? '',
    renewTime: l.spec?.renewTime ?? '',
    acquireTime: l.spec?.acquireTime ?? '',
    transitions: l.spec?.leaseTransitions ?? 0,
    durationS: l.spec?.leaseDurationSeconds ?? 15,
  };
}

function sameRecord(a: Observed, b: Observed): boolean {
  return (
    a.holder === b.holder &&
    a.renewTime === b.renewTime &&
    a.acquireTime === b.acquireTime &&
    a.transitions === b.transitions &&
    a.durationS === b.durationS
  );
}

/** client-go's wait.Jitter(retryPeriod, 1.2): up to 2.2× the period. */
function jittered(ms: number): number {
  return Math.round(ms + Math.random() * 1.2 * ms);
}

function errMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
