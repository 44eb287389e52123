// The webhook HTTPS server: AdmissionReview v1 in and out for admission handlers, ConversionReview
// v1 in and out for a conversion webhook, one of them per path. It runs on every replica (not
// leader-elected): the API server may call any of them.
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';
import type { KubeObject } from '../client/types.ts';
import type { Checker } from '../manager/health.ts';
import type { Runnable } from '../manager/runnable.ts';
import { silentLogger } from '../util/logger.ts';
import type { Logger } from '../util/logger.ts';
import { getOrCreate } from '../util/metrics.ts';
import { isObject } from '../../apimachinery/json/index.ts';
import { errored } from './admission.ts';
import type { AdmissionHandler, AdmissionResult } from './admission.ts';
import { CertWatcher } from './cert-watcher.ts';
import type { ConversionWebhook } from './conversion.ts';
import { HttpError } from './http-error.ts';
import type { AdmissionReview, ConversionReview } from './types.ts';

export interface WebhookServerOptions {
  /** Default "127.0.0.1" (loopback unless asked); in a pod, pass "0.0.0.0". */
  host?: string;
  /** Default 9443 (controller-runtime's). 0 picks a free port. */
  port?: number;
  /** Directory holding `tls.crt` and `tls.key`. Default "/tmp/k8s-webhook-server/serving-certs" (controller-runtime's). */
  certDir?: string;
  /** Overrides `<certDir>/tls.crt`. */
  certFile?: string;
  /** Overrides `<certDir>/tls.key`. */
  keyFile?: string;
  /** Poll the certificate files this often in addition to fs.watch. Default 10 000 ms. */
  certPollIntervalMs?: number;
  /**
   * Larger request bodies are refused with 413. Default 8 MiB: an UPDATE's review carries the
   * object and the old object, each at most kube-apiserver's 3 MiB request limit.
   */
  maxBodyBytes?: number;
  logger?: Logger;
  /** Registers controller-runtime's `controller_runtime_webhook_*` metrics here. */
  metricsRegistry?: Registry;
}

interface WebhookMetrics {
  total: Counter<'webhook' | 'code'>;
  latency: Histogram<'webhook'>;
  inFlight: Gauge<'webhook'>;
}

function webhookMetrics(registry: Registry): WebhookMetrics {
  return getOrCreate(registry, 'peerpods:webhook', () => ({
    total: new Counter({
      name: 'controller_runtime_webhook_requests_total',
      help: 'Total number of admission requests by HTTP status code.',
      labelNames: ['webhook', 'code'] as const,
      registers: [registry],
    }),
    latency: new Histogram({
      name: 'controller_runtime_webhook_latency_seconds',
      help: 'Histogram of the latency of processing admission requests',
      labelNames: ['webhook'] as const,
      registers: [registry],
    }),
    inFlight: new Gauge({
      name: 'controller_runtime_webhook_requests_in_flight',
      help: 'Current number of admission requests being served.',
      labelNames: ['webhook'] as const,
      registers: [registry],
    }),
  }));
}

/** Turns a request body into the review to answer; throws HttpError for a body it cannot take. */
type Endpoint = (body: Buffer, ctx: { signal: AbortSignal; path: string }) => Promise<object>;

export class WebhookServer implements Runnable {
  readonly needLeaderElection = false;
  readonly name = 'webhook-server';
  private readonly endpoints = new Map<string, Endpoint>();
  private readonly opts: WebhookServerOptions;
  private readonly log: Logger;
  private readonly certs: CertWatcher;
  private readonly metrics: WebhookMetrics | undefined;
  private server: Server | undefined;
  private listening: Promise<AddressInfo>;
  private resolveListening!: (a: AddressInfo) => void;

  constructor(opts: WebhookServerOptions = {}) {
    this.opts = opts;
    this.log = (opts.logger ?? silentLogger()).child({ component: 'webhook' });
    const dir = opts.certDir ?? '/tmp/k8s-webhook-server/serving-certs';
    this.certs = new CertWatcher({
      certFile: opts.certFile ?? join(dir, 'tls.crt'),
      keyFile: opts.keyFile ?? join(dir, 'tls.key'),
      logger: this.log,
      ...(opts.certPollIntervalMs !== undefined ? { pollIntervalMs: opts.certPollIntervalMs } : {}),
    });
    this.metrics = opts.metricsRegistry ? webhookMetrics(opts.metricsRegistry) : undefined;
    this.listening = new Promise((r) => (this.resolveListening = r));
  }

  /**
   * Serves `handler` at `path`: an admission handler (e.g. at "/mutate-v1-pod") or a conversion
   * webhook (at "/convert", controller-runtime's path). Paths may be added before or after start.
   */
  register<T extends KubeObject>(path: string, handler: AdmissionHandler<T> | ConversionWebhook): void {
    if (!path.startsWith('/')) throw new Error(`webhook path must start with "/": ${path}`);
    if (this.endpoints.has(path)) throw new Error(`a webhook is already registered at ${path}`);
    this.endpoints.set(
      path,
      // Told apart by shape, not instanceof: a project may hold two copies of this package.
      typeof handler === 'function'
        ? admissionEndpoint(handler as unknown as AdmissionHandler, this.log)
        : conversionEndpoint(handler),
    );
  }

  /** Resolves with the bound address once listening. */
  address(): Promise<AddressInfo> {
    return this.listening;
  }

  /** Re-reads the certificate files now (they are also watched and polled). */
  reloadCertificates(): Promise<boolean> {
    return this.certs.reload();
  }

  /** A readiness check: passes once the server is listening. */
  startedChecker(): Checker {
    return () => (this.server?.listening ? true : new Error('webhook server not started'));
  }

  async start(signal: AbortSignal): Promise<void> {
    const pair = await this.certs.load();
    const server = createServer({ cert: pair.cert, key: pair.key, minVersion: 'TLSv1.2' }, (req, res) => {
      void this.serve(req, res);
    });
    this.server = server;
    this.certs.start((p) => server.setSecureContext({ cert: p.cert, key: p.key }));
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(this.opts.port ?? 9443, this.opts.host ?? '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
      const addr = server.address() as AddressInfo;
      this.log.info({ address: `${addr.address}:${addr.port}`, paths: [...this.endpoints.keys()] }, 'serving webhooks');
      this.resolveListening(addr);
      if (!signal.aborted) await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
    } finally {
      this.certs.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
    }
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'https://localhost').pathname;
    const endpoint = this.endpoints.get(path);
    const started = process.hrtime.bigint();
    this.metrics?.inFlight.inc({ webhook: path });
    let code = 200;
    try {
      if (!endpoint) throw new HttpError(404, `no webhook registered at ${path}`);
      if (req.method !== 'POST') throw new HttpError(405, 'only POST is allowed');
      const ct = String(req.headers['content-type'] ?? '');
      if (!ct.startsWith('application/json'))
        throw new HttpError(400, `content-type must be application/json, got ${ct || 'none'}`);
      const input = await readBody(req, this.opts.maxBodyBytes ?? 8 << 20);
      const ac = new AbortController();
      res.once('close', () => ac.abort(new Error('client closed the connection')));
      const body = JSON.stringify(await endpoint(input, { signal: ac.signal, path }));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    } catch (err) {
      code = err instanceof HttpError ? err.code : 500;
      if (code >= 500) this.log.error({ err, path }, 'webhook request failed');
      if (!res.headersSent) res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`${err instanceof Error ? err.message : String(err)}\n`);
    } finally {
      this.metrics?.inFlight.dec({ webhook: path });
      this.metrics?.total.inc({ webhook: path, code: String(code) });
      this.metrics?.latency.observe({ webhook: path }, Number(process.hrtime.bigint() - started) / 1e9);
    }
  }
}

function admissionEndpoint(handler: AdmissionHandler, log: Logger): Endpoint {
  return async (body, { signal, path }) => {
    const review = parseAdmissionReview(body);
    const request = review.request!;
    let result: AdmissionResult;
    try {
      result = await handler(request, { signal });
    } catch (err) {
      log.error({ err, path, uid: request.uid }, 'webhook handler failed');
      result = errored(500, err);
    }
    const out: AdmissionReview = {
      apiVersion: review.apiVersion,
      kind: 'AdmissionReview',
      response: { ...result, uid: request.uid },
    };
    return out;
  };
}

/** A conversion failure is an answer (result.status Failure), so only a malformed body is an HTTP error. */
function conversionEndpoint(webhook: ConversionWebhook): Endpoint {
  return async (body) => {
    const review = parseConversionReview(body);
    const out: ConversionReview = {
      apiVersion: review.apiVersion,
      kind: 'ConversionReview',
      response: await webhook.scheme.review(review.request!),
    };
    return out;
  };
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new HttpError(400, `invalid JSON: ${(err as Error).message}`);
  }
}

function parseConversionReview(body: Buffer): ConversionReview {
  const r = parseJson(body) as Partial<ConversionReview> | null;
  if (
    !isObject(r) ||
    r.kind !== 'ConversionReview' ||
    (r.apiVersion !== 'apiextensions.k8s.io/v1' && r.apiVersion !== 'apiextensions.k8s.io/v1beta1')
  ) {
    throw new HttpError(400, 'expected an apiextensions.k8s.io/v1 ConversionReview');
  }
  const req = r.request;
  if (!isObject(req) || typeof req.uid !== 'string' || !req.uid) {
    throw new HttpError(400, 'ConversionReview has no request.uid');
  }
  if (typeof req.desiredAPIVersion !== 'string' || !req.desiredAPIVersion) {
    throw new HttpError(400, 'ConversionReview has no request.desiredAPIVersion');
  }
  if (!Array.isArray(req.objects) || !req.objects.every(isObject)) {
    throw new HttpError(400, 'ConversionReview request.objects must be a list of objects');
  }
  return r as unknown as ConversionReview;
}

function parseAdmissionReview(body: Buffer): AdmissionReview {
  const r = parseJson(body) as (Partial<AdmissionReview> & { apiVersion?: string }) | null;
  if (
    r?.kind !== 'AdmissionReview' ||
    (r.apiVersion !== 'admission.k8s.io/v1' && r.apiVersion !== 'admission.k8s.io/v1beta1')
  ) {
    throw new HttpError(400, 'expected an admission.k8s.io/v1 AdmissionReview');
  }
  if (!r.request || typeof r.request.uid !== 'string' || !r.request.uid) {
    throw new HttpError(400, 'AdmissionReview has no request.uid');
  }
  return r as AdmissionReview;
}

/**
 * Past `max` the body is read on but not kept, so the client finishes sending and reads the 413:
 * answering mid-upload and closing would reset the connection under it. A body beyond
 * DISCARD_FACTOR × `max` is not worth reading at all; that connection is reset.
 */
const DISCARD_FACTOR = 4;

function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const tooLarge = () => new HttpError(413, `request body larger than ${max} bytes`);
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max * DISCARD_FACTOR) {
        reject(tooLarge());
        req.destroy();
      } else if (size > max) {
        chunks.length = 0;
      } else {
        chunks.push(c);
      }
    });
    req.on('end', () => (size > max ? reject(tooLarge()) : resolve(Buffer.concat(chunks))));
    req.on('error', reject);
  });
}
