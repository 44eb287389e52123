// The probes of one container instance, as the kubelet's prober workers run them
// (pkg/kubelet/prober/worker.go): the startup probe gates the others (`started` false until it
// passes); readiness starts failed and flips after successThreshold / failureThreshold results in a
// row; liveness and startup failing failureThreshold times in a row ask for a restart and stop
// probing that instance. Every failed attempt is reported (the kubelet's `Unhealthy` event).
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { probeTiming, runProbe, type ProbeTarget } from './probe.ts';

export type ProbeKind = 'Liveness' | 'Readiness' | 'Startup';

export interface ProbeHandlers {
  started(): void;
  ready(ready: boolean): void;
  /** A liveness or startup probe failed failureThreshold times: the container must be restarted. */
  failed(kind: 'Liveness' | 'Startup'): void;
  unhealthy(kind: ProbeKind, output: string): void;
}

export class ContainerProber {
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;
  private isReady = false;

  constructor(
    private readonly container: JsonObject,
    private readonly target: ProbeTarget,
    private readonly handlers: ProbeHandlers,
  ) {}

  start(): void {
    const startup = this.container.startupProbe as JsonObject | undefined;
    if (startup) this.loop('Startup', startup);
    else this.afterStartup();
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private afterStartup(): void {
    this.handlers.started();
    const readiness = this.container.readinessProbe as JsonObject | undefined;
    const liveness = this.container.livenessProbe as JsonObject | undefined;
    if (readiness) this.loop('Readiness', readiness);
    else this.setReady(true);
    if (liveness) this.loop('Liveness', liveness);
  }

  private setReady(ready: boolean): void {
    if (this.isReady === ready) return;
    this.isReady = ready;
    this.handlers.ready(ready);
  }

  private loop(kind: ProbeKind, probe: JsonObject): void {
    const timing = probeTiming(probe);
    let successes = 0;
    let failures = 0;
    const attempt = async (): Promise<void> => {
      const result = await runProbe(probe, this.target).catch((e: unknown) => ({
        success: false,
        output: (e as Error).message,
      }));
      if (this.stopped) return;
      if (result.success) {
        failures = 0;
        successes++;
      } else {
        successes = 0;
        failures++;
        this.handlers.unhealthy(kind, result.output);
      }
      if (kind === 'Startup' && result.success) return this.afterStartup();
      if (kind === 'Readiness') {
        if (successes >= timing.successThreshold) this.setReady(true);
        else if (failures >= timing.failureThreshold && this.isReady) this.setReady(false);
      } else if (failures >= timing.failureThreshold) {
        this.stop();
        return this.handlers.failed(kind);
      }
      this.schedule(attempt, timing.periodMs);
    };
    this.schedule(attempt, timing.initialDelayMs);
  }

  private schedule(fn: () => Promise<void>, ms: number): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void fn();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }
}
