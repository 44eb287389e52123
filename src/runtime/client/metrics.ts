// Prometheus metrics of the client and the cache. Everything registers on the registry given to the
// client / informer factory, or on prom-client's global registry (exported as `defaultMetricsRegistry`)
// so a manager's /metrics endpoint can expose all of it from one place.
import { Counter, Gauge, Histogram, register } from 'prom-client';
import type { CounterConfiguration, GaugeConfiguration, HistogramConfiguration, Registry } from 'prom-client';

/** The registry used when none is passed: prom-client's global one. */
export const defaultMetricsRegistry: Registry = register;

/** Returns the metric named `config.name` from `registry`, creating it on first use (safe across many clients). */
export function counterIn<L extends string>(registry: Registry, config: CounterConfiguration<L>): Counter<L> {
  const existing = registry.getSingleMetric(config.name);
  if (existing) return existing as Counter<L>;
  return new Counter({ ...config, registers: [registry] });
}

export function gaugeIn<L extends string>(registry: Registry, config: GaugeConfiguration<L>): Gauge<L> {
  const existing = registry.getSingleMetric(config.name);
  if (existing) return existing as Gauge<L>;
  return new Gauge({ ...config, registers: [registry] });
}

export function histogramIn<L extends string>(registry: Registry, config: HistogramConfiguration<L>): Histogram<L> {
  const existing = registry.getSingleMetric(config.name);
  if (existing) return existing as Histogram<L>;
  return new Histogram({ ...config, registers: [registry] });
}

/**
 * Client metrics (names follow controller-runtime's `rest_client_*`):
 * - `peerpods_rest_client_requests_total{method,code}`: responses by HTTP code; `code="<error>"` for
 *   requests that got no response (connection refused, reset, timeout).
 * - `peerpods_rest_client_request_duration_seconds{method}`: time to response headers.
 * - `peerpods_rest_client_rate_limiter_wait_seconds`: time spent waiting for the client-side limiter.
 */
export interface ClientMetrics {
  requests: Counter<'method' | 'code'>;
  duration: Histogram<'method'>;
  rateLimiterWait: Histogram<string>;
}

export function clientMetrics(registry: Registry): ClientMetrics {
  return {
    requests: counterIn(registry, {
      name: 'peerpods_rest_client_requests_total',
      help: 'HTTP requests to the API server by method and status code',
      labelNames: ['method', 'code'] as const,
    }),
    duration: histogramIn(registry, {
      name: 'peerpods_rest_client_request_duration_seconds',
      help: 'Time from sending a request to receiving response headers',
      labelNames: ['method'] as const,
      buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60],
    }),
    rateLimiterWait: histogramIn(registry, {
      name: 'peerpods_rest_client_rate_limiter_wait_seconds',
      help: 'Time requests waited for the client-side rate limiter',
      buckets: [0.001, 0.01, 0.1, 0.5, 1, 5, 10, 30],
    }),
  };
}
