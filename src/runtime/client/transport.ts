// HTTP(S) to the API server over one keep-alive agent per client. Handles the cross-cutting parts of
// every request: the optional rate limiter, auth headers (with one retry after a 401 when the
// credentials changed), Retry-After on 429 and 5xx, stale keep-alive sockets, timeouts and metrics.
import http from 'node:http';
import https from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { Clock } from '../util/clock.ts';
import type { AuthProvider } from './auth.ts';
import type { TlsConfig } from './config.ts';
import type { ClientMetrics } from './metrics.ts';
import type { TokenBucket } from './rate-limit.ts';

export interface TransportOptions {
  server: string;
  tls: TlsConfig;
  auth: AuthProvider;
  clock: Clock;
  logger: Logger;
  userAgent: string;
  /** Default timeout until a response has been read in full (buffered) or its headers arrived (streams). */
  requestTimeoutMs: number;
  rateLimiter?: TokenBucket;
  metrics?: ClientMetrics;
  /** Retries of a 429 or 5xx that carries Retry-After: the server asked to be asked again (client-go's checkWait). */
  maxThrottleRetries: number;
}

export interface HttpRequest {
  method: string;
  /** Path plus query, starting with "/". */
  path: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Overrides the default; 0 disables. */
  timeoutMs?: number;
}

export interface HttpResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** No response was received (refused, reset, DNS, TLS, timeout). */
export class NetworkError extends Error {
  readonly code: string | undefined;
  constructor(method: string, path: string, cause: Error & { code?: string }) {
    super(`${method} ${path}: ${cause.message}`, { cause });
    this.name = 'NetworkError';
    this.code = cause.code;
  }
}

export class RequestTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(ms: number) {
    super(`no response within ${ms} ms`);
    this.name = 'RequestTimeoutError';
  }
}

export class Transport {
  private readonly agent: http.Agent;
  private readonly base: URL;
  private readonly prefix: string;
  private readonly secure: boolean;

  constructor(private readonly opts: TransportOptions) {
    this.base = new URL(opts.server);
    this.secure = this.base.protocol === 'https:';
    this.prefix = this.base.pathname.replace(/\/+$/, '');
    const agentOptions: https.AgentOptions = {
      keepAlive: true,
      keepAliveMsecs: 30_000,
      // Every watch pins a socket for minutes; a finite pool would starve other requests behind them.
      maxSockets: Infinity,
      maxFreeSockets: 32,
      scheduling: 'lifo',
    };
    if (this.secure) {
      const { ca, cert, key, rejectUnauthorized, servername } = opts.tls;
      Object.assign(agentOptions, { rejectUnauthorized }, ca && { ca }, cert && { cert }, key && { key });
      if (servername) agentOptions.servername = servername;
      this.agent = new https.Agent(agentOptions);
    } else {
      this.agent = new http.Agent(agentOptions);
    }
  }

  get server(): string {
    return this.opts.server;
  }

  /** Sends a request and reads the whole body. */
  async request(req: HttpRequest): Promise<HttpResponse> {
    const res = await this.send(req, false);
    return { statusCode: res.res.statusCode ?? 0, headers: res.res.headers, body: res.body ?? Buffer.alloc(0) };
  }

  /** Sends a request and resolves once headers arrive; the caller consumes (or destroys) the body. */
  async stream(req: HttpRequest): Promise<IncomingMessage> {
    return (await this.send(req, true)).res;
  }

  /** Closes idle keep-alive sockets. Open streams end when their own signal aborts. */
  close(): void {
    this.agent.destroy();
  }

  private async send(req: HttpRequest, stream: boolean): Promise<{ res: IncomingMessage; body?: Buffer }> {
    let authRefreshed = false;
    let resetRetried = false;
    let throttled = 0;
    for (;;) {
      await this.waitForRateLimiter(req.signal);
      const started = this.opts.clock.now();
      let result: { res: IncomingMessage; body?: Buffer };
      try {
        result = await this.once(req, stream);
      } catch (e) {
        if (req.signal?.aborted) throw req.signal.reason ?? e;
        this.opts.metrics?.requests.inc({ method: req.method, code: '<error>' });
        const err = e as Error & { code?: string; reusedSocket?: boolean };
        // The server may close an idle keep-alive socket just as we reuse it; it never saw the request.
        if (err.reusedSocket && err.code === 'ECONNRESET' && !resetRetried) {
          resetRetried = true;
          continue;
        }
        throw new NetworkError(req.method, req.path, err);
      }
      const code = result.res.statusCode ?? 0;
      this.opts.metrics?.requests.inc({ method: req.method, code: String(code) });
      this.opts.metrics?.duration.observe({ method: req.method }, (this.opts.clock.now() - started) / 1000);

      if (code === 401 && !authRefreshed && this.opts.auth.refresh) {
        authRefreshed = true;
        if (await this.opts.auth.refresh()) {
          this.opts.logger.info({ auth: this.opts.auth.description }, 'credentials changed after 401; retrying');
          discard(result.res);
          continue;
        }
      }
      if ((code === 429 || code >= 500) && throttled < this.opts.maxThrottleRetries) {
        const after = retryAfterSeconds(result.res.headers);
        if (after !== undefined) {
          throttled++;
          discard(result.res);
          this.opts.logger.debug({ path: req.path, retryAfter: after }, 'throttled by the API server');
          await this.opts.clock.sleep(Math.min(after, 30) * 1000, req.signal);
          continue;
        }
      }
      return result;
    }
  }

  private async waitForRateLimiter(signal?: AbortSignal): Promise<void> {
    const limiter = this.opts.rateLimiter;
    if (!limiter) return;
    const t0 = this.opts.clock.now();
    await limiter.take(signal);
    this.opts.metrics?.rateLimiterWait.observe((this.opts.clock.now() - t0) / 1000);
  }

  private async once(req: HttpRequest, stream: boolean): Promise<{ res: IncomingMessage; body?: Buffer }> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.opts.userAgent,
      ...(await this.opts.auth.headers()),
      ...lowerKeys(req.headers),
    };
    if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
    const timeoutMs = req.timeoutMs ?? this.opts.requestTimeoutMs;
    const mod = this.secure ? https : http;

    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const clear = (): void => {
        if (timer) clearTimeout(timer);
        timer = undefined;
      };
      const r = mod.request({
        protocol: this.base.protocol,
        hostname: this.base.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: this.base.port || (this.secure ? 443 : 80),
        path: this.prefix + req.path,
        method: req.method,
        headers,
        agent: this.agent,
        ...(req.signal ? { signal: req.signal } : {}),
      });
      if (timeoutMs > 0) {
        // Wall-clock on purpose: a hung socket must fail even when tests drive a fake clock.
        timer = setTimeout(() => r.destroy(new RequestTimeoutError(timeoutMs)), timeoutMs);
        timer.unref?.();
      }
      r.on('error', (e: Error & { reusedSocket?: boolean }) => {
        clear();
        e.reusedSocket = r.reusedSocket;
        reject(e);
      });
      r.on('response', (res) => {
        if (stream) {
          clear();
          resolve({ res });
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clear();
          resolve({ res, body: Buffer.concat(chunks) });
        });
        res.on('error', (e) => {
          clear();
          reject(e);
        });
      });
      r.end(req.body);
    });
  }
}

function lowerKeys(h: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h ?? {})) out[k.toLowerCase()] = v;
  return out;
}

function discard(res: IncomingMessage): void {
  res.resume();
}

export function retryAfterSeconds(headers: IncomingHttpHeaders): number | undefined {
  const v = headers['retry-after'];
  if (typeof v !== 'string') return undefined;
  const n = Number(v);
  if (Number.isFinite(n) && n >= 0) return n;
  const date = Date.parse(v);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

/** Reads a streamed response in full (used for the error body of a failed watch). */
export async function readBody(res: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
