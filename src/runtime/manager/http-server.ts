// The manager's plain-HTTP endpoint: Prometheus /metrics plus /healthz and /readyz probes, as
// controller-runtime serves them (there on two ports; one is enough here, and each can be disabled).
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { Logger } from '../util/logger.ts';
import type { HealthChecks } from './health.ts';
import type { Runnable } from './runnable.ts';

export interface ProbeServerOptions {
  host: string;
  port: number;
  registry: Registry;
  health: HealthChecks;
  ready: HealthChecks;
  logger: Logger;
}

/** Serves until its signal aborts; then stops accepting and closes idle connections. Not leader-elected. */
export class ProbeServer implements Runnable {
  readonly needLeaderElection = false;
  readonly name = 'probe-server';
  private server: Server | undefined;
  private listening: Promise<AddressInfo> | undefined;
  private resolveListening: ((a: AddressInfo) => void) | undefined;

  constructor(private readonly opts: ProbeServerOptions) {
    this.listening = new Promise((r) => (this.resolveListening = r));
  }

  /** The bound address (port 0 picks a free one); resolves once listening. */
  address(): Promise<AddressInfo> {
    return this.listening as Promise<AddressInfo>;
  }

  async start(signal: AbortSignal): Promise<void> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        this.opts.logger.error({ err }, 'probe server request failed');
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port, this.opts.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const addr = server.address() as AddressInfo;
    this.opts.logger.info({ address: `${addr.address}:${addr.port}` }, 'serving /metrics, /healthz and /readyz');
    this.resolveListening?.(addr);
    if (!signal.aborted) await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (url.pathname === '/metrics') {
      const body = await this.opts.registry.metrics();
      res.writeHead(200, { 'content-type': this.opts.registry.contentType }).end(body);
      return;
    }
    const m = /^\/(healthz|readyz)(?:\/([^/]+))?\/?$/.exec(url.pathname);
    if (!m) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found\n');
      return;
    }
    const checks = m[1] === 'healthz' ? this.opts.health : this.opts.ready;
    const result = await checks.run({
      ...(m[2] ? { only: m[2] } : {}),
      exclude: url.searchParams.getAll('exclude'),
      verbose: url.searchParams.has('verbose'),
    });
    res
      .writeHead(result.ok ? 200 : m[2] && result.body.startsWith('no such') ? 404 : 500, {
        'content-type': 'text/plain; charset=utf-8',
        'x-content-type-options': 'nosniff',
      })
      .end(result.body);
  }
}
