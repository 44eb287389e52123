// Several controllers, queues and managers may share one prom-client Registry; prom-client throws
// when a name is registered twice, so every metric is created once per registry and reused.
import type { Metric, Registry } from 'prom-client';

const perRegistry = new WeakMap<Registry, Map<string, unknown>>();

/**
 * Returns the metric called `name` in `registry`, creating it with `create` (which must register it
 * in `registry`) on first use. The same cache also holds non-metric per-registry state keyed by name.
 */
export function getOrCreate<T>(registry: Registry, name: string, create: () => T): T {
  let byName = perRegistry.get(registry);
  if (!byName) {
    byName = new Map();
    perRegistry.set(registry, byName);
  }
  let value = byName.get(name) as T | undefined;
  if (value === undefined) {
    // A metric registered by someone else under the same name (e.g. a test helper) is reused as is.
    value = (registry.getSingleMetric(name) as Metric<string> | undefined as T | undefined) ?? create();
    byName.set(name, value);
  }
  return value;
}

/** prom-client's exponential buckets, as Go's prometheus.ExponentialBuckets. */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  const out: number[] = [];
  for (let i = 0, v = start; i < count; i++, v *= factor) out.push(v);
  return out;
}
