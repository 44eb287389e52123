// controller-runtime dashboards read `rest_client_requests_total{code,method,host}`. The client
// records `peerpods_rest_client_requests_total{method,code}`; this mirrors it under the upstream
// name at scrape time, adding the API server's host.
import { Counter } from 'prom-client';
import type { Registry } from 'prom-client';
import { getOrCreate } from '../util/metrics.ts';

const SOURCE = 'peerpods_rest_client_requests_total';

export function registerRestClientMetrics(registry: Registry, host: string): void {
  getOrCreate(registry, 'rest_client_requests_total', () => {
    return new Counter({
      name: 'rest_client_requests_total',
      help: 'Number of HTTP requests, partitioned by status code, method, and host.',
      labelNames: ['code', 'method', 'host'] as const,
      registers: [registry],
      async collect() {
        const source = registry.getSingleMetric(SOURCE);
        this.reset();
        if (!source) return;
        const data = await source.get();
        for (const v of data.values) {
          this.inc({ code: String(v.labels.code ?? ''), method: String(v.labels.method ?? ''), host }, v.value);
        }
      },
    });
  });
}
