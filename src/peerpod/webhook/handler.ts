// The admission handler and the server that runs it: POST /mutate-v1-pod on :9443, as upstream.
// Like upstream it never denies a pod it cannot read as one of ours — only preserve mode denies,
// and only for what a peer-pod VM cannot provide.
import { AdmissionDenied, WebhookServer, allowed, denied, patched } from '../../runtime/index.ts';
import type { AdmissionHandler, Logger, WebhookServerOptions } from '../../runtime/index.ts';
import type { Registry } from 'prom-client';
import { Counter } from 'prom-client';
import { mutatePod } from './mutate.ts';
import type { MutatorOptions, Pod } from './mutate.ts';
import { cloneJson } from '../../apimachinery/json/index.ts';

export const MUTATE_POD_PATH = '/mutate-v1-pod';

function podMetrics(registry: Registry | undefined): Counter<'result'> | undefined {
  if (!registry) return undefined;
  const name = 'peerpods_webhook_pod_mutations_total';
  return (
    (registry.getSingleMetric(name) as Counter<'result'> | undefined) ??
    new Counter({
      name,
      help: 'Pods seen by the peer-pods webhook, by result (mutated, skipped, denied).',
      labelNames: ['result'] as const,
      registers: [registry],
    })
  );
}

export function podMutator(opts: MutatorOptions = {}, metricsRegistry?: Registry): AdmissionHandler<Pod> {
  const counter = podMetrics(metricsRegistry);
  return (req) => {
    if (!req.object || req.operation !== 'CREATE') return allowed();
    const pod = cloneJson(req.object);
    try {
      const { matched, warnings } = mutatePod(pod, opts);
      counter?.inc({ result: matched ? 'mutated' : 'skipped' });
      return patched(req.object, pod, warnings);
    } catch (err) {
      if (!(err instanceof AdmissionDenied)) throw err;
      counter?.inc({ result: 'denied' });
      return denied(err.message, err.code);
    }
  };
}

export interface PodWebhookServerOptions extends MutatorOptions {
  /** Default 9443. */
  port?: number;
  host?: string;
  /** Holds tls.crt and tls.key (reloaded when they change). Default /tmp/k8s-webhook-server/serving-certs. */
  certDir?: string;
  certPollIntervalMs?: number;
  logger?: Logger;
  metricsRegistry?: Registry;
}

/** A WebhookServer (a manager Runnable) serving the pod mutator. */
export function podWebhookServer(opts: PodWebhookServerOptions = {}): WebhookServer {
  const serverOpts: WebhookServerOptions = {
    port: opts.port ?? 9443,
    ...(opts.host ? { host: opts.host } : {}),
    ...(opts.certDir ? { certDir: opts.certDir } : {}),
    ...(opts.certPollIntervalMs !== undefined ? { certPollIntervalMs: opts.certPollIntervalMs } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
    ...(opts.metricsRegistry ? { metricsRegistry: opts.metricsRegistry } : {}),
  };
  const server = new WebhookServer(serverOpts);
  server.register(MUTATE_POD_PATH, podMutator(opts, opts.metricsRegistry));
  return server;
}
