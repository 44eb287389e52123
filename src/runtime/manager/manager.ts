// The manager owns the shared pieces (client, informer cache, metrics registry, logger) and runs
// every Runnable: servers and caches on every replica, controllers only on the elected leader.
// Shutdown order, as controller-runtime: leader-only runnables drain first, then the Lease is
// released (so the next leader never overlaps with our in-flight reconciles), then the rest.
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { CacheReader } from '../cache/reader.ts';
import { InformerFactory } from '../cache/factory.ts';
import type { SharedInformer } from '../cache/informer.ts';
import type { Scope } from '../cache/scope.ts';
import { KubeClient } from '../client/client.ts';
import type { KubeObject, ResourceType } from '../client/types.ts';
import type { ControllerHost } from '../controller/builder.ts';
import type { ControllerOptions } from '../controller/controller.ts';
import { EventRecorder } from '../events/recorder.ts';
import type { Clock } from '../util/clock.ts';
import type { Logger } from '../util/logger.ts';
import { HealthChecks } from './health.ts';
import type { Checker } from './health.ts';
import { ProbeServer } from './http-server.ts';
import { LeaderElector } from './leader-election.ts';
import { resolveManagerOptions } from './options.ts';
import type { ManagerOptions, ResolvedManagerOptions } from './options.ts';
import { registerRestClientMetrics } from './rest-client-metrics.ts';
import { StopRequest } from './runnable.ts';
import type { Runnable } from './runnable.ts';

export interface ManagerInit extends ManagerOptions {
  client: KubeClient;
}

type State = 'new' | 'running' | 'stopping' | 'stopped';

interface LeaderRun {
  abort: AbortController;
  running: Promise<void>[];
}

export class Manager implements ControllerHost {
  readonly client: KubeClient;
  /** Shared informers: one per kind and scope, started with the manager on every replica. */
  readonly informers: InformerFactory;
  /** Reads from the informers (fails loudly for kinds without one). */
  readonly cache: CacheReader;
  readonly options: ResolvedManagerOptions;
  readonly logger: Logger;
  readonly metricsRegistry: Registry;
  readonly clock: Clock;
  readonly controllerDefaults: Partial<ControllerOptions>;
  private readonly health = new HealthChecks();
  private readonly ready = new HealthChecks();
  private readonly leaderRunnables: Runnable[] = [];
  private readonly otherRunnables: Runnable[] = [];
  private readonly recorders = new Map<string, EventRecorder>();
  private readonly stopSignal = new AbortController();
  private readonly probe: ProbeServer | undefined;
  private readonly elector: LeaderElector | undefined;
  private readonly ownsClient: boolean;
  private state: State = 'new';
  private othersAbort = new AbortController();
  private othersRunning: Promise<void>[] = [];
  private leaderRun: LeaderRun | undefined;
  private leading = false;
  private electedWaiters: Array<() => void> = [];
  private fatal: unknown;
  private done: Promise<void> | undefined;
  private shutdownDeadline = 0;
  private removeSignalHandlers: (() => void) | undefined;

  /** Loads the default client (kubeconfig, then in-cluster) when none is given. */
  static async create(opts: ManagerOptions = {}): Promise<Manager> {
    if (opts.client) return new Manager({ ...opts, client: opts.client });
    const client = await KubeClient.load({
      ...(opts.metricsRegistry ? { metricsRegistry: opts.metricsRegistry } : {}),
      ...(opts.logger ? { logger: opts.logger.child({ component: 'kube-client' }) } : {}),
    });
    return new Manager({ ...opts, client }, true);
  }

  constructor(init: ManagerInit, ownsClient = false) {
    this.client = init.client;
    this.ownsClient = ownsClient;
    this.options = resolveManagerOptions(init, init.client.namespace);
    const o = this.options;
    this.logger = o.logger;
    this.metricsRegistry = o.metricsRegistry;
    this.clock = o.clock;
    this.controllerDefaults = {
      ...o.controller,
      cacheSyncTimeoutMs: o.cacheSyncTimeoutMs,
      shutdownTimeoutMs: o.gracefulShutdownTimeoutMs,
    };
    this.informers = new InformerFactory(this.client, {
      ...o.cache,
      logger: this.logger.child({ component: 'cache' }),
      metricsRegistry: this.metricsRegistry,
      clock: this.clock,
    });
    this.cache = new CacheReader(this.informers);
    registerRestClientMetrics(this.metricsRegistry, hostOf(this.client.server));

    this.health.add('ping', () => true);
    this.ready.add('informers', () => {
      const bad = this.informers.status().filter((s) => !s.synced || !s.healthy);
      if (bad.length === 0) return true;
      return new Error(
        bad
          .map(
            (s) =>
              `${s.kind}${s.scope ? ` (${s.scope})` : ''}: ${s.synced ? 'unhealthy' : 'not synced'}${s.lastError ? `: ${s.lastError}` : ''}`,
          )
          .join('; '),
      );
    });

    const le = o.leaderElection;
    if (le) {
      this.elector = new LeaderElector(
        le.client ?? this.client,
        le,
        this.clock,
        this.logger.child({ component: 'leader-election' }),
      );
      this.health.add('leader-election', () => this.leaderHealth());
    }
    if (o.server) {
      this.probe = new ProbeServer({
        host: o.server.host,
        port: o.server.port,
        registry: this.metricsRegistry,
        health: this.health,
        ready: this.ready,
        logger: this.logger,
      });
      this.otherRunnables.push(this.probe);
    }
  }

  /** For the controller builder: the shared informer of a kind and scope. */
  informerFor<T extends KubeObject = KubeObject>(type: ResourceType, scope?: Scope): SharedInformer<T> {
    return this.informers.informerFor<T>(type, scope);
  }

  /**
   * Adds a runnable. Leader-elected ones (the default) run only while this replica leads; others
   * run from start to shutdown. Runnables added after start are started at once.
   */
  add(runnable: Runnable): void {
    if (this.state === 'stopping' || this.state === 'stopped')
      throw new Error('manager is stopping; cannot add runnables');
    const leader = runnable.needLeaderElection ?? true;
    (leader ? this.leaderRunnables : this.otherRunnables).push(runnable);
    if (this.state !== 'running') return;
    if (!leader) this.othersRunning.push(this.runOne(runnable, this.othersAbort.signal));
    else if (this.leaderRun) this.leaderRun.running.push(this.runOne(runnable, this.leaderRun.abort.signal));
  }

  /** A liveness check served at /healthz (and /healthz/<name>). */
  addHealthCheck(name: string, check: Checker): void {
    this.health.add(name, check);
  }

  /** A readiness check served at /readyz (and /readyz/<name>). */
  addReadyCheck(name: string, check: Checker): void {
    this.ready.add(name, check);
  }

  /** One recorder per component, flushed on shutdown. */
  getEventRecorder(component: string): EventRecorder {
    let r = this.recorders.get(component);
    if (!r) {
      r = new EventRecorder(this.client, {
        component,
        clock: this.clock,
        logger: this.logger.child({ component: 'events' }),
        ...(this.elector ? { instance: this.elector.identity } : {}),
      });
      this.recorders.set(component, r);
    }
    return r;
  }

  /** Whether the leader-only runnables are running here (always true without leader election, once started). */
  isLeader(): boolean {
    return this.leading;
  }

  /** This replica's leader-election identity. */
  get identity(): string | undefined {
    return this.elector?.identity;
  }

  /** Resolves when this replica starts leading (at start, without leader election). */
  elected(): Promise<void> {
    if (this.leading) return Promise.resolve();
    return new Promise((r) => this.electedWaiters.push(r));
  }

  /** Address of the /metrics, /healthz, /readyz server once it listens. */
  serverAddress(): Promise<AddressInfo> {
    if (!this.probe) return Promise.reject(new Error('the manager HTTP server is disabled'));
    return this.probe.address();
  }

  /**
   * Runs until {@link stop}, a SIGTERM/SIGINT (with `handleSignals`), or a runnable failing; resolves
   * after the graceful shutdown, rejects with the failure that caused it if there was one.
   */
  start(): Promise<void> {
    if (this.state !== 'new') return Promise.reject(new Error('a manager can be started only once'));
    this.state = 'running';
    this.done = this.run();
    return this.done;
  }

  /** Starts the graceful shutdown; resolves when it is complete. */
  async stop(): Promise<void> {
    if (this.state === 'new') {
      this.state = 'stopped';
      await this.informers.stop();
      if (this.ownsClient) this.client.close();
      return;
    }
    this.stopSignal.abort();
    try {
      await this.done;
    } catch {
      // The failure is reported by start().
    }
  }

  private async run(): Promise<void> {
    const log = this.logger;
    if (this.options.handleSignals) this.installSignalHandlers();
    log.info({ leaderElection: !!this.elector }, 'starting manager');
    for (const r of this.otherRunnables) this.othersRunning.push(this.runOne(r, this.othersAbort.signal));
    this.informers.start();

    const electionAbort = new AbortController();
    let election: Promise<void> = Promise.resolve();
    if (this.elector) {
      election = this.elector
        .run(electionAbort.signal, {
          onStartedLeading: () => this.startLeading(),
          onStoppedLeading: (why) => this.stopLeading(why),
        })
        .catch((err: unknown) => this.fail(err));
    } else {
      this.startLeading();
    }

    if (!this.stopSignal.signal.aborted) {
      await new Promise((r) => this.stopSignal.signal.addEventListener('abort', r, { once: true }));
    }
    this.state = 'stopping';
    const graceMs = this.options.gracefulShutdownTimeoutMs;
    this.shutdownDeadline = this.clock.now() + graceMs;
    log.info({ graceMs }, 'shutting down: waiting for in-flight work');

    // Leader-only runnables first; the elector releases the Lease only after they stopped.
    electionAbort.abort();
    await election;
    if (!this.elector) await this.stopLeading('stopped');

    this.othersAbort.abort(new StopRequest('shutdown', this.remainingMs()));
    if (!(await this.settleWithin(this.othersRunning, this.remainingMs()))) {
      log.warn('some runnables did not stop within the graceful shutdown period');
    }
    await this.settleWithin(
      [...this.recorders.values()].map((r) => r.stop()),
      Math.max(1000, this.remainingMs()),
    );
    await this.informers.stop();
    if (this.ownsClient) this.client.close();
    this.removeSignalHandlers?.();
    this.state = 'stopped';
    log.info('manager stopped');
    if (this.fatal !== undefined) throw this.fatal;
  }

  private startLeading(): void {
    if (this.leaderRun || this.state !== 'running') return;
    const abort = new AbortController();
    this.leaderRun = { abort, running: [] };
    this.leading = true;
    for (const r of this.leaderRunnables) this.leaderRun.running.push(this.runOne(r, abort.signal));
    for (const w of this.electedWaiters.splice(0)) w();
  }

  private async stopLeading(why: 'lost' | 'stopped'): Promise<void> {
    const run = this.leaderRun;
    this.leaderRun = undefined;
    this.leading = false;
    if (!run) return;
    const le = this.options.leaderElection;
    if (why === 'lost' && le && le.exitOnLeaseLoss) {
      this.logger.fatal('leader election lost; exiting (exitOnLeaseLoss)');
      process.exit(1);
    }
    const graceMs =
      why === 'lost' && le
        ? (le.leaseLossGraceMs ?? ((le.leaseDurationMs ?? 15_000) - (le.renewDeadlineMs ?? 10_000)) / 2)
        : this.remainingMs();
    run.abort.abort(new StopRequest(why === 'lost' ? 'leadership-lost' : 'shutdown', graceMs));
    // A little past the grace period: runnables abort their work at graceMs and need a moment to return.
    if (!(await this.settleWithin(run.running, graceMs + 1000))) {
      this.logger.warn({ graceMs }, 'leader-only runnables did not stop in time');
    }
  }

  private async runOne(r: Runnable, signal: AbortSignal): Promise<void> {
    const name = r.name ?? r.constructor?.name ?? 'runnable';
    try {
      await r.start(signal);
      if (!signal.aborted) this.logger.info({ runnable: name }, 'runnable returned before shutdown');
    } catch (err) {
      if (signal.aborted) {
        this.logger.warn({ err, runnable: name }, 'runnable failed while stopping');
        return;
      }
      this.logger.error({ err, runnable: name }, 'runnable failed; shutting down the manager');
      this.fail(err);
    }
  }

  private fail(err: unknown): void {
    if (this.fatal === undefined) this.fatal = err;
    this.stopSignal.abort();
  }

  private remainingMs(): number {
    return Math.max(0, this.shutdownDeadline - this.clock.now());
  }

  /** Waits for all of `ps` to settle, at most `ms`; true when they did. */
  private async settleWithin(ps: Promise<unknown>[], ms: number): Promise<boolean> {
    let timer: ReturnType<Clock['setTimeout']> | undefined;
    const timeout = new Promise<boolean>((r) => (timer = this.clock.setTimeout(() => r(false), ms)));
    const settled = Promise.allSettled(ps).then(() => true);
    const ok = await Promise.race([settled, timeout]);
    this.clock.clearTimeout(timer);
    return ok;
  }

  private leaderHealth(): boolean | Error {
    const el = this.elector;
    if (!el || !el.isLeader()) return true;
    const last = el.lastRenewTime() ?? 0;
    // Leading but not renewed for longer than the Lease lasts: the renew loop is stuck.
    const overdue = this.clock.now() - last - el.leaseDurationMs;
    return overdue > 0 ? new Error(`lease not renewed for ${this.clock.now() - last} ms`) : true;
  }

  private installSignalHandlers(): void {
    let received = 0;
    const onSignal = (sig: NodeJS.Signals): void => {
      received++;
      if (received > 1) {
        this.logger.warn({ signal: sig }, 'second signal; exiting now');
        process.exit(1);
      }
      this.logger.info({ signal: sig }, 'signal received; shutting down gracefully');
      this.stopSignal.abort();
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    this.removeSignalHandlers = () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    };
  }
}

function hostOf(server: string): string {
  try {
    return new URL(server).host;
  } catch {
    return server;
  }
}
