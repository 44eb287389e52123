// Reconcile metrics under controller-runtime's names (pkg/internal/controller/metrics).
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';
import { getOrCreate } from '../util/metrics.ts';

export type ReconcileOutcome = 'success' | 'error' | 'requeue' | 'requeue_after';

export interface ControllerMetrics {
  reconciled(outcome: ReconcileOutcome, seconds: number): void;
  /** An error (terminal or not); `terminal` adds to the terminal counter too. */
  failed(terminal: boolean): void;
  workerStarted(): void;
  workerFinished(): void;
  setMaxConcurrent(n: number): void;
}

export const noopControllerMetrics: ControllerMetrics = {
  reconciled() {},
  failed() {},
  workerStarted() {},
  workerFinished() {},
  setMaxConcurrent() {},
};

// controller-runtime's buckets for reconcile_time_seconds.
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75,
  2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

function shared(registry: Registry) {
  return getOrCreate(registry, 'peerpods:controller', () => {
    const registers = [registry];
    return {
      total: new Counter({
        name: 'controller_runtime_reconcile_total',
        help: 'Total number of reconciliations per controller',
        labelNames: ['controller', 'result'] as const,
        registers,
      }),
      errors: new Counter({
        name: 'controller_runtime_reconcile_errors_total',
        help: 'Total number of reconciliation errors per controller',
        labelNames: ['controller'] as const,
        registers,
      }),
      terminal: new Counter({
        name: 'controller_runtime_terminal_reconcile_errors_total',
        help: 'Total number of terminal reconciliation errors per controller',
        labelNames: ['controller'] as const,
        registers,
      }),
      time: new Histogram({
        name: 'controller_runtime_reconcile_time_seconds',
        help: 'Length of time per reconciliation per controller',
        labelNames: ['controller'] as const,
        buckets: RECONCILE_BUCKETS,
        registers,
      }),
      maxConcurrent: new Gauge({
        name: 'controller_runtime_max_concurrent_reconciles',
        help: 'Maximum number of concurrent reconciles per controller',
        labelNames: ['controller'] as const,
        registers,
      }),
      active: new Gauge({
        name: 'controller_runtime_active_workers',
        help: 'Number of currently used workers per controller',
        labelNames: ['controller'] as const,
        registers,
      }),
    };
  });
}

export function prometheusControllerMetrics(registry: Registry, controller: string): ControllerMetrics {
  const m = shared(registry);
  const labels = { controller };
  // Initialise every series at zero, as controller-runtime does, so rates work from the first scrape.
  for (const result of ['success', 'error', 'requeue', 'requeue_after']) m.total.inc({ controller, result }, 0);
  m.errors.inc(labels, 0);
  m.terminal.inc(labels, 0);
  m.active.set(labels, 0);
  return {
    reconciled(outcome, seconds) {
      m.total.inc({ controller, result: outcome });
      m.time.observe(labels, seconds);
    },
    failed(terminal) {
      m.errors.inc(labels);
      if (terminal) m.terminal.inc(labels);
    },
    workerStarted() {
      m.active.inc(labels);
    },
    workerFinished() {
      m.active.dec(labels);
    },
    setMaxConcurrent(n) {
      m.maxConcurrent.set(labels, n);
    },
  };
}
