// The typed client: CRUD, patch (all four types), status, delete options and streaming watches for
// any kind described by a ResourceType, over a keep-alive connection pool.
import { isObject } from '../../apimachinery/json/index.ts';
import type { Registry } from 'prom-client';
import type { Logger } from 'pino';
import { realClock } from '../util/clock.ts';
import type { Clock } from '../util/clock.ts';
import { createLogger } from '../util/logger.ts';
import { configFromKubeconfigString, loadConnectionConfig } from './config.ts';
import type { ConfigLoadOptions, ConnectionConfig } from './config.ts';
import { ApiError, isStatus } from './errors.ts';
import { clientMetrics, defaultMetricsRegistry } from './metrics.ts';
import { resourcePath, withQuery } from './paths.ts';
import { TokenBucket } from './rate-limit.ts';
import type { RateLimit } from './rate-limit.ts';
import { apiVersionOf } from './resources.ts';
import { Transport, readBody, retryAfterSeconds } from './transport.ts';
import type { HttpResponse } from './transport.ts';
import type {
  DeleteOptions,
  KubeObject,
  ListOptions,
  ListResult,
  PatchOptions,
  PatchType,
  ResourceType,
  Status,
  WatchEvent,
  WatchOptions,
  WriteOptions,
} from './types.ts';
import { decodeWatchStream } from './watch-stream.ts';
import type { IncomingHttpHeaders } from 'node:http';

export interface ClientOptions {
  /** Client-side token bucket. Off by default (API Priority and Fairness protects the server). */
  rateLimit?: RateLimit;
  /** Default `fieldManager` for writes; required by server-side apply. Default "peerpods". */
  fieldManager?: string;
  /** Timeout for a non-watch request, and for a watch to get its response headers. Default 60 s. */
  requestTimeoutMs?: number;
  /** Retries of 429 and 5xx responses that carry Retry-After (as client-go). Default 3. */
  maxThrottleRetries?: number;
  /** Default "peerpods-runtime". */
  userAgent?: string;
  logger?: Logger;
  /** Registry for `peerpods_rest_client_*`; default {@link defaultMetricsRegistry}; `null` disables. */
  metricsRegistry?: Registry | null;
  clock?: Clock;
}

export type LoadOptions = ConfigLoadOptions & ClientOptions;

export interface RawResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** Parsed JSON when the response is JSON, else the text. */
  body: unknown;
}

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

export class KubeClient {
  /** Base URL of the API server. */
  readonly server: string;
  /** The kubeconfig context's (or service account's) namespace, for callers that want a default. */
  readonly namespace: string;
  readonly fieldManager: string;
  readonly connection: ConnectionConfig;
  private readonly transport: Transport;
  private readonly logger: Logger;

  constructor(connection: ConnectionConfig, opts: ClientOptions = {}) {
    this.connection = connection;
    this.server = connection.server;
    this.namespace = connection.namespace;
    this.fieldManager = opts.fieldManager ?? 'peerpods';
    const clock = opts.clock ?? realClock;
    this.logger = opts.logger ?? createLogger('kube-client');
    const registry = opts.metricsRegistry === undefined ? defaultMetricsRegistry : opts.metricsRegistry;
    this.transport = new Transport({
      server: connection.server,
      tls: connection.tls,
      auth: connection.auth,
      clock,
      logger: this.logger,
      userAgent: opts.userAgent ?? 'peerpods-runtime',
      requestTimeoutMs: opts.requestTimeoutMs ?? 60_000,
      maxThrottleRetries: opts.maxThrottleRetries ?? 3,
      ...(opts.rateLimit ? { rateLimiter: new TokenBucket(opts.rateLimit, clock) } : {}),
      ...(registry ? { metrics: clientMetrics(registry) } : {}),
    });
  }

  /** Connects using: `kubeconfigPath` > `KUBECONFIG` > `~/.kube/config` > in-cluster service account. */
  static async load(opts: LoadOptions = {}): Promise<KubeClient> {
    const conn = loadConnectionConfig(opts);
    const client = new KubeClient(conn, opts);
    client.logger.debug(
      { server: conn.server, source: conn.source, context: conn.context, auth: conn.auth.description },
      'kubernetes client configured',
    );
    return client;
  }

  static fromKubeconfigString(yaml: string, opts: LoadOptions = {}): KubeClient {
    return new KubeClient(configFromKubeconfigString(yaml, opts), opts);
  }

  /** Releases idle sockets. Call when the client is no longer used (tests, CLIs). */
  close(): void {
    this.transport.close();
  }

  async get<T extends KubeObject>(
    type: ResourceType,
    name: string,
    namespace?: string,
    opts: { signal?: AbortSignal; subresource?: string } = {},
  ): Promise<T> {
    const path = resourcePath(type, this.ns(type, namespace), name, opts.subresource);
    return this.fill(type, await this.json<T>('GET', path, { signal: opts.signal }));
  }

  /** One page (or the whole collection when `limit` is unset). See {@link listAll} to follow `continue`. */
  async list<T extends KubeObject>(type: ResourceType, opts: ListOptions = {}): Promise<ListResult<T>> {
    const path = withQuery(resourcePath(type, type.namespaced ? opts.namespace : undefined), {
      labelSelector: opts.labelSelector,
      fieldSelector: opts.fieldSelector,
      limit: opts.limit,
      continue: opts.continue,
      resourceVersion: opts.resourceVersion,
      resourceVersionMatch: opts.resourceVersionMatch,
      timeoutSeconds: opts.timeoutSeconds,
    });
    const body = await this.json<{
      items?: T[] | null;
      metadata?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
    }>('GET', path, { signal: opts.signal });
    const items = (body.items ?? []).map((o) => this.fill(type, o));
    const result: ListResult<T> = { items, resourceVersion: body.metadata?.resourceVersion ?? '' };
    if (body.metadata?.continue) result.continue = body.metadata.continue;
    if (body.metadata?.remainingItemCount !== undefined) result.remainingItemCount = body.metadata.remainingItemCount;
    return result;
  }

  /** Follows `continue` tokens (page size `limit`, default 500) and returns every item at one resourceVersion. */
  async listAll<T extends KubeObject>(type: ResourceType, opts: ListOptions = {}): Promise<ListResult<T>> {
    const items: T[] = [];
    let page = await this.list<T>(type, { limit: 500, ...opts });
    const resourceVersion = page.resourceVersion;
    items.push(...page.items);
    while (page.continue) {
      page = await this.list<T>(type, { limit: 500, ...opts, continue: page.continue });
      items.push(...page.items);
    }
    return { items, resourceVersion };
  }

  async create<T extends KubeObject>(type: ResourceType, obj: T, opts: WriteOptions = {}): Promise<T> {
    const ns = this.ns(type, obj.metadata?.namespace);
    const path = withQuery(resourcePath(type, ns), this.writeQuery(opts));
    return this.fill(
      type,
      await this.json<T>('POST', path, { body: this.withTypeMeta(type, obj), signal: opts.signal }),
    );
  }

  /** PUT. Carries `metadata.resourceVersion` when set, so a stale object fails with a Conflict. */
  async update<T extends KubeObject>(type: ResourceType, obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.put(type, obj, undefined, opts);
  }

  /** PUT to the status subresource: only `.status` changes. */
  async updateStatus<T extends KubeObject>(type: ResourceType, obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.put(type, obj, 'status', opts);
  }

  /**
   * `json`: RFC 6902 operations; `merge`: RFC 7386; `strategic`: built-ins only; `apply`: server-side apply
   * (the body is the full intent, `fieldManager` is required and defaults to the client's, `force` takes
   * over conflicting fields).
   */
  async patch<T extends KubeObject>(
    type: ResourceType,
    name: string,
    namespace: string | undefined,
    patch: unknown,
    patchType: PatchType,
    opts: PatchOptions = {},
  ): Promise<T> {
    const ns = this.ns(type, namespace);
    const query: Record<string, string | boolean | undefined> = this.writeQuery(opts);
    let body = patch;
    if (patchType === 'apply') {
      query.fieldManager = opts.fieldManager ?? this.fieldManager;
      if (opts.force) query.force = true;
      if (isObject(body)) body = this.withTypeMeta(type, body as KubeObject);
    }
    const path = withQuery(resourcePath(type, ns, name, opts.subresource), query);
    const headers = { 'content-type': PATCH_CONTENT_TYPES[patchType] };
    return this.fill(type, await this.json<T>('PATCH', path, { body, headers, signal: opts.signal }));
  }

  /** Returns the object when deletion is pending (finalizers), else the server's Status (or the final object). */
  async delete<T extends KubeObject>(
    type: ResourceType,
    name: string,
    namespace?: string,
    opts: DeleteOptions = {},
  ): Promise<T | Status> {
    // dryRun goes in the query as well as the body: servers differ in which one they read.
    const path = withQuery(resourcePath(type, this.ns(type, namespace), name), {
      dryRun: opts.dryRun ? 'All' : undefined,
    });
    const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
    if (opts.propagationPolicy) body.propagationPolicy = opts.propagationPolicy;
    if (opts.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
    if (opts.preconditions) body.preconditions = opts.preconditions;
    if (opts.dryRun) body.dryRun = ['All'];
    const res = await this.json<T | Status>('DELETE', path, { body, signal: opts.signal });
    return isStatus(res) ? res : this.fill(type, res as T);
  }

  /**
   * Streams watch events (newline-delimited JSON over one long HTTP response). The iterable ends when
   * the server closes the stream or `signal` aborts; it throws an {@link ApiError} when the server
   * refuses the watch, and a network error when the connection breaks. Malformed lines are skipped.
   * `ERROR` events are yielded as they come (their object is a Status); callers decide what they mean.
   */
  watch<T extends KubeObject>(type: ResourceType, opts: WatchOptions = {}): AsyncIterable<WatchEvent<T>> {
    return { [Symbol.asyncIterator]: () => this.watchEvents<T>(type, opts) };
  }

  /** Raw escape hatch: any method and path (with query). Object bodies go as JSON. Throws ApiError on >= 400. */
  async request(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    opts: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<RawResponse> {
    const res = await this.send(method, path, body, headers, opts);
    const parsed = parseBody(res);
    if (res.statusCode >= 400) throw this.apiError(method, path, res.statusCode, res.headers, parsed);
    return { statusCode: res.statusCode, headers: res.headers, body: parsed };
  }

  private async *watchEvents<T extends KubeObject>(
    type: ResourceType,
    opts: WatchOptions,
  ): AsyncGenerator<WatchEvent<T>> {
    const path = withQuery(resourcePath(type, type.namespaced ? opts.namespace : undefined), {
      watch: 'true',
      resourceVersion: opts.resourceVersion,
      resourceVersionMatch: opts.resourceVersionMatch,
      allowWatchBookmarks: opts.allowWatchBookmarks ? 'true' : undefined,
      sendInitialEvents: opts.sendInitialEvents === undefined ? undefined : String(opts.sendInitialEvents),
      timeoutSeconds: opts.timeoutSeconds,
      labelSelector: opts.labelSelector,
      fieldSelector: opts.fieldSelector,
    });
    let res;
    try {
      res = await this.transport.stream({ method: 'GET', path, ...(opts.signal ? { signal: opts.signal } : {}) });
    } catch (e) {
      if (opts.signal?.aborted) return;
      throw e;
    }
    try {
      const code = res.statusCode ?? 0;
      if (code >= 300) {
        const body = await readBody(res);
        const parsed = parseBody({ statusCode: code, headers: res.headers, body });
        throw this.apiError('GET', path, code, res.headers, parsed);
      }
      opts.onOpen?.();
      const onMalformed =
        opts.onMalformed ??
        ((line: string, err: Error): void => {
          this.logger.warn(
            { kind: type.kind, error: err.message, line: line.slice(0, 200) },
            'skipping malformed watch line',
          );
        });
      try {
        for await (const ev of decodeWatchStream<T>(res, onMalformed)) {
          if (ev.type !== 'ERROR' && ev.type !== 'BOOKMARK') this.fill(type, ev.object);
          yield ev;
        }
      } catch (e) {
        if (opts.signal?.aborted) return;
        throw new WatchStreamError(type, e as Error);
      }
    } finally {
      // Ends the response when the consumer stops early (break, throw, abort).
      res.destroy();
    }
  }

  private async put<T extends KubeObject>(
    type: ResourceType,
    obj: T,
    subresource: string | undefined,
    opts: WriteOptions,
  ): Promise<T> {
    const name = obj.metadata?.name;
    if (!name) throw new TypeError(`${type.kind}: update needs metadata.name`);
    const path = withQuery(
      resourcePath(type, this.ns(type, obj.metadata.namespace), name, subresource),
      this.writeQuery(opts),
    );
    return this.fill(
      type,
      await this.json<T>('PUT', path, { body: this.withTypeMeta(type, obj), signal: opts.signal }),
    );
  }

  private writeQuery(opts: WriteOptions): Record<string, string | undefined> {
    return {
      dryRun: opts.dryRun ? 'All' : undefined,
      fieldManager: opts.fieldManager ?? this.fieldManager,
      fieldValidation: opts.fieldValidation,
    };
  }

  private ns(type: ResourceType, namespace: string | undefined): string | undefined {
    if (!type.namespaced) return undefined;
    if (!namespace) throw new TypeError(`${type.kind} is namespaced: a namespace is required`);
    return namespace;
  }

  /** Lists and watch events omit apiVersion/kind per item; typed callers expect them. */
  private fill<T>(type: ResourceType, obj: T): T {
    if (isObject(obj)) {
      const o = obj as Record<string, unknown>;
      if (o.kind === undefined) o.kind = type.kind;
      if (o.apiVersion === undefined) o.apiVersion = apiVersionOf(type);
    }
    return obj;
  }

  private withTypeMeta(type: ResourceType, obj: KubeObject): KubeObject {
    if (obj.apiVersion && obj.kind) return obj;
    return { apiVersion: apiVersionOf(type), kind: type.kind, ...obj };
  }

  private async json<T>(
    method: string,
    path: string,
    init: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal | undefined },
  ): Promise<T> {
    const res = await this.send(method, path, init.body, init.headers ?? {}, { signal: init.signal });
    const parsed = parseBody(res);
    if (res.statusCode >= 400) throw this.apiError(method, path, res.statusCode, res.headers, parsed);
    if (typeof parsed !== 'object' || parsed === null) {
      throw new ApiError(500, 'InternalError', `${method} ${path}: expected a JSON object from the server`);
    }
    return parsed as T;
  }

  private send(
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string>,
    opts: { signal?: AbortSignal | undefined; timeoutMs?: number },
  ): Promise<HttpResponse> {
    const h = { ...headers };
    let payload: string | Buffer | undefined;
    if (body !== undefined) {
      if (typeof body === 'string' || Buffer.isBuffer(body)) payload = body;
      else payload = JSON.stringify(body);
      if (!Object.keys(h).some((k) => k.toLowerCase() === 'content-type')) h['content-type'] = 'application/json';
    }
    return this.transport.request({
      method,
      path,
      headers: h,
      ...(payload !== undefined ? { body: payload } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
    });
  }

  private apiError(method: string, path: string, code: number, headers: IncomingHttpHeaders, body: unknown): ApiError {
    const retryAfter = retryAfterSeconds(headers);
    return ApiError.fromResponse(code, body, {
      request: { method, path },
      ...(retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {}),
    });
  }
}

/** The connection of a running watch broke (reset, truncated chunk); resuming from the last RV is safe. */
export class WatchStreamError extends Error {
  constructor(type: ResourceType, cause: Error) {
    super(`watch of ${type.plural} broke: ${cause.message}`, { cause });
    this.name = 'WatchStreamError';
  }
}

function parseBody(res: HttpResponse): unknown {
  if (res.body.length === 0) return undefined;
  const text = res.body.toString('utf8');
  const ct = String(res.headers['content-type'] ?? '');
  if (ct.includes('json') || /^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}
