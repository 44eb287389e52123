// Work queue metrics under client-go/controller-runtime's names, so existing dashboards and alerts
// (e.g. on workqueue_depth or workqueue_unfinished_work_seconds) work unchanged.
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';
import { exponentialBuckets, getOrCreate } from '../util/metrics.ts';

/** What a queue reports; the no-op default keeps queues usable without a registry. */
export interface QueueMetrics {
  added(): void;
  /** An item left the ready lanes for a worker after waiting `queuedSeconds`. */
  taken(queuedSeconds: number): void;
  /** A worker finished an item after `workSeconds`. */
  finished(workSeconds: number): void;
  /** Ready items were discarded (shutdown). */
  discarded(count: number): void;
  retried(): void;
  /** Stops reporting the processing-time gauges for this queue. */
  close(): void;
}

export const noopQueueMetrics: QueueMetrics = {
  added() {},
  taken() {},
  finished() {},
  discarded() {},
  retried() {},
  close() {},
};

/** Read on every scrape: start times (ms) of the items being processed, and the clock's now. */
export interface ProcessingSnapshot {
  startTimes(): Iterable<number>;
  now(): number;
}

interface Shared {
  depth: Gauge<'name'>;
  adds: Counter<'name'>;
  queueDuration: Histogram<'name'>;
  workDuration: Histogram<'name'>;
  retries: Counter<'name'>;
  longest: Gauge<'name'>;
  unfinished: Gauge<'name'>;
  sources: Map<ProcessingSnapshot, string>;
}

// client-go's buckets: 10 ns … 1000 s.
const DURATION_BUCKETS = exponentialBuckets(10e-9, 10, 12);

function shared(registry: Registry): Shared {
  return getOrCreate(registry, 'peerpods:workqueue', () => {
    const sources = new Map<ProcessingSnapshot, string>();
    const registers = [registry];
    const processingGauge = (metricName: string, help: string, pick: (ages: number[]) => number): Gauge<'name'> =>
      new Gauge({
        name: metricName,
        help,
        labelNames: ['name'],
        registers,
        collect() {
          this.reset();
          const byName = new Map<string, number[]>();
          for (const [src, name] of sources) {
            const now = src.now();
            const ages = byName.get(name) ?? [];
            for (const t of src.startTimes()) ages.push((now - t) / 1000);
            byName.set(name, ages);
          }
          for (const [name, ages] of byName) this.set({ name }, pick(ages));
        },
      });
    return {
      sources,
      depth: new Gauge({
        name: 'workqueue_depth',
        help: 'Current depth of workqueue',
        labelNames: ['name'],
        registers,
      }),
      adds: new Counter({
        name: 'workqueue_adds_total',
        help: 'Total number of adds handled by workqueue',
        labelNames: ['name'],
        registers,
      }),
      queueDuration: new Histogram({
        name: 'workqueue_queue_duration_seconds',
        help: 'How long in seconds an item stays in workqueue before being requested',
        labelNames: ['name'],
        buckets: DURATION_BUCKETS,
        registers,
      }),
      workDuration: new Histogram({
        name: 'workqueue_work_duration_seconds',
        help: 'How long in seconds processing an item from workqueue takes',
        labelNames: ['name'],
        buckets: DURATION_BUCKETS,
        registers,
      }),
      retries: new Counter({
        name: 'workqueue_retries_total',
        help: 'Total number of retries handled by workqueue',
        labelNames: ['name'],
        registers,
      }),
      longest: processingGauge(
        'workqueue_longest_running_processor_seconds',
        'How many seconds has the longest running processor for workqueue been running',
        (ages) => ages.reduce((m, a) => Math.max(m, a), 0),
      ),
      unfinished: processingGauge(
        'workqueue_unfinished_work_seconds',
        "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
        (ages) => ages.reduce((s, a) => s + a, 0),
      ),
    };
  });
}

/** Metrics of the queue called `name`, registered in `registry` (shared by queues of the same name). */
export function prometheusQueueMetrics(registry: Registry, name: string, processing: ProcessingSnapshot): QueueMetrics {
  const m = shared(registry);
  m.sources.set(processing, name);
  const labels = { name };
  // Touch every series so a fresh queue shows zeros rather than nothing.
  m.depth.inc(labels, 0);
  m.adds.inc(labels, 0);
  m.retries.inc(labels, 0);
  return {
    added() {
      m.adds.inc(labels);
      m.depth.inc(labels);
    },
    taken(queuedSeconds) {
      m.depth.dec(labels);
      m.queueDuration.observe(labels, queuedSeconds);
    },
    finished(workSeconds) {
      m.workDuration.observe(labels, workSeconds);
    },
    discarded(count) {
      if (count > 0) m.depth.dec(labels, count);
    },
    retried() {
      m.retries.inc(labels);
    },
    close() {
      m.sources.delete(processing);
    },
  };
}
