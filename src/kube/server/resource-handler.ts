// Serves one resource request: GET/LIST/WATCH/POST/PUT/PATCH/DELETE on a resource path,
// including the status, scale, binding, eviction and finalize subresources.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, methodNotAllowed, notFound, StatusError, unsupportedMediaType } from '../errors.ts';
import type { JsonObject } from '../types.ts';
import type { RequestContext, FieldValidation } from '../registry/context.ts';
import { ObjectFilter } from '../registry/filter.ts';
import { listJson, listObjects } from '../registry/list.ts';
import { PATCH_CONTENT_TYPES } from '../registry/patching.ts';
import { apiVersionOf, hasSubresource, type ResourceDef } from '../registry/resource.ts';
import type { DeleteOptions, ObjectStore } from '../registry/store.ts';
import { startWatch, type WatchEventType } from '../registry/watch.ts';
import {
  decodeBody,
  mediaType,
  OBJECT_BODY_TYPES,
  queryBool,
  queryInt,
  readBody,
  checkDepth,
  parseYamlBounded,
  type ResourceRoute,
} from './request.ts';
import type { WatchRegistry } from './watches.ts';
import type { Extensions } from './extensions.ts';

export interface HandlerDeps {
  store: ObjectStore;
  watches: WatchRegistry;
  extensions: Extensions;
  bookmarkIntervalMs: number;
}

export function sendJson(res: ServerResponse, code: number, body: string, warnings: string[] = []): void {
  const headers: Record<string, string | string[]> = {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(body)),
  };
  if (warnings.length > 0) headers.Warning = warnings.map((w) => `299 - ${JSON.stringify(w)}`);
  res.writeHead(code, headers);
  res.end(body);
}

function fieldManagerFrom(q: URLSearchParams, req: IncomingMessage): string {
  const explicit = q.get('fieldManager');
  if (explicit !== null) return explicit;
  // kube-apiserver falls back to the User-Agent's product name.
  const ua = String(req.headers['user-agent'] ?? 'unknown');
  return ua.split('/')[0] || 'unknown';
}

function contextFor(req: IncomingMessage, q: URLSearchParams, user: string, forApply = false): RequestContext {
  const dryRuns = q.getAll('dryRun');
  for (const d of dryRuns)
    if (d !== 'All') throw badRequest(`dryRun: Unsupported value: "${d}": supported values: "All"`);
  const fv = q.get('fieldValidation') ?? 'Warn';
  if (!['Strict', 'Warn', 'Ignore'].includes(fv)) {
    throw badRequest(`fieldValidation: Unsupported value: "${fv}": supported values: "Ignore", "Strict", "Warn"`);
  }
  const fieldManager = forApply ? (q.get('fieldManager') ?? '') : fieldManagerFrom(q, req);
  if (fieldManager.length > 128) throw badRequest('fieldManager: Too long: must have at most 128 bytes');
  return { user, dryRun: dryRuns.length > 0, fieldManager, fieldValidation: fv as FieldValidation, warnings: [] };
}

export async function handleResource(
  deps: HandlerDeps,
  def: ResourceDef,
  route: ResourceRoute,
  req: IncomingMessage,
  res: ServerResponse,
  q: URLSearchParams,
  user: string,
): Promise<void> {
  const { store } = deps;
  const method = req.method ?? 'GET';
  const ns = def.namespaced ? route.namespace : undefined;
  if (!def.namespaced && route.namespace !== undefined)
    throw notFound({ group: def.group, resource: def.resource }, route.resource);
  const sub = route.subresource;
  if (sub !== undefined && !hasSubresource(def, sub)) {
    throw new StatusError(404, 'NotFound', `the server could not find the requested resource`, {});
  }
  const present = (json: string) => store.presentJson(def, json);

  // Collection requests.
  if (route.name === undefined) {
    if (def.namespaced && route.namespace === undefined && method !== 'GET') {
      throw methodNotAllowed(`the server does not allow this method on the requested resource`);
    }
    if (method === 'GET') {
      const watch = route.legacyWatch || queryBool(q, 'watch') === true;
      const filter = ObjectFilter.parse(def, q.get('labelSelector') ?? undefined, q.get('fieldSelector') ?? undefined);
      if (watch) return serveWatch(deps, def, ns, req, res, q, filter);
      const result = listObjects(store.storage, def, ns, {
        filter,
        limit: queryInt(q, 'limit'),
        continueToken: q.get('continue') ?? undefined,
        resourceVersion: q.get('resourceVersion') ?? undefined,
        resourceVersionMatch: q.get('resourceVersionMatch') ?? undefined,
      });
      const table = deps.extensions.table?.list(
        def,
        result.items.map((i) => present(i.json)),
        req,
        result,
      );
      if (table) return sendJson(res, 200, table.body, []);
      return sendJson(res, 200, listJson(def, result, present));
    }
    if (method === 'POST') {
      const ctx = contextFor(req, q, user);
      const body = decodeBody(await readBody(req), req.headers['content-type'], OBJECT_BODY_TYPES, ctx);
      const created = await store.create(def, ns, body, ctx);
      return sendJson(res, 201, JSON.stringify(created), ctx.warnings);
    }
    if (method === 'DELETE') {
      const ctx = contextFor(req, q, user);
      const opts = await deleteOptions(req, q);
      const filter = ObjectFilter.parse(def, q.get('labelSelector') ?? undefined, q.get('fieldSelector') ?? undefined);
      const result = listObjects(store.storage, def, ns, { filter });
      const deleted: string[] = [];
      for (const item of result.items) {
        const obj = JSON.parse(item.json) as JsonObject;
        const m = obj.metadata as { name: string; namespace?: string };
        try {
          const r = await store.delete(def, m.namespace, m.name, opts, ctx);
          deleted.push(JSON.stringify(r.object));
        } catch (e) {
          if (!(e instanceof StatusError && e.code === 404)) throw e;
        }
      }
      return sendJson(
        res,
        200,
        `{"kind":${JSON.stringify(def.listKind)},"apiVersion":${JSON.stringify(apiVersionOf(def))},"metadata":{},"items":[${deleted.join(',')}]}`,
      );
    }
    throw methodNotAllowed(`the server does not allow this method on the requested resource`);
  }

  const name = route.name;
  if (sub === 'binding') {
    if (method !== 'POST') throw methodNotAllowed('the server does not allow this method on the requested resource');
    const ctx = contextFor(req, q, user);
    const body = decodeBody(await readBody(req), req.headers['content-type'], OBJECT_BODY_TYPES) as JsonObject;
    const result = await deps.extensions.bind(def, ns, name, body, ctx);
    return sendJson(res, 201, JSON.stringify(result));
  }
  if (sub === 'eviction') {
    if (method !== 'POST') throw methodNotAllowed('the server does not allow this method on the requested resource');
    const ctx = contextFor(req, q, user);
    const body = decodeBody(await readBody(req), req.headers['content-type'], OBJECT_BODY_TYPES, ctx);
    const result = await deps.extensions.evict(def, ns, name, body, ctx);
    return sendJson(res, 201, JSON.stringify(result), ctx.warnings);
  }
  if (sub === 'scale') return handleScale(deps, def, ns, name, req, res, q, user);

  switch (method) {
    case 'GET': {
      const obj = store.get(def, ns, name);
      const table = deps.extensions.table?.object(def, JSON.stringify(obj), req);
      if (table) return sendJson(res, 200, table.body);
      return sendJson(res, 200, JSON.stringify(obj));
    }
    case 'PUT': {
      const ctx = contextFor(req, q, user);
      const body = decodeBody(await readBody(req), req.headers['content-type'], OBJECT_BODY_TYPES, ctx);
      const r = await store.update(def, ns, name, body, ctx, sub);
      return sendJson(res, r.created ? 201 : 200, JSON.stringify(r.object), ctx.warnings);
    }
    case 'PATCH': {
      const type = PATCH_CONTENT_TYPES[mediaType(req.headers['content-type'])];
      if (!type) {
        throw unsupportedMediaType(
          'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json',
        );
      }
      const ctx = contextFor(req, q, user, type === 'apply');
      const raw = (await readBody(req)).toString('utf8');
      let patchBody: unknown;
      try {
        patchBody = type === 'apply' ? parseYamlBounded(raw) : JSON.parse(raw);
      } catch (e) {
        throw badRequest(`error decoding patch: ${(e as Error).message.split('\n')[0]}`);
      }
      checkDepth(patchBody);
      const force = queryBool(q, 'force');
      if (force !== undefined && type !== 'apply')
        throw badRequest('force: Invalid value: true: may not be specified for non-apply patch');
      const r = await store.patch(def, ns, name, type, patchBody, ctx, { subresource: sub, force });
      return sendJson(res, r.created ? 201 : 200, JSON.stringify(r.object), ctx.warnings);
    }
    case 'DELETE': {
      if (sub !== undefined) throw methodNotAllowed('the server does not allow this method on the requested resource');
      const ctx = contextFor(req, q, user);
      const opts = await deleteOptions(req, q);
      const r = await store.delete(def, ns, name, opts, ctx);
      return sendJson(res, 200, JSON.stringify(r.object));
    }
    default:
      throw methodNotAllowed('the server does not allow this method on the requested resource');
  }
}

async function deleteOptions(req: IncomingMessage, q: URLSearchParams): Promise<DeleteOptions> {
  const raw = await readBody(req);
  let body: JsonObject = {};
  if (raw.length > 0 && raw.toString('utf8').trim() !== '') {
    body = decodeBody(raw, req.headers['content-type'], OBJECT_BODY_TYPES) as JsonObject;
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw badRequest('the body of the request was not DeleteOptions');
  }
  const policy = (q.get('propagationPolicy') ?? body.propagationPolicy) as string | undefined;
  if (policy !== undefined && !['Background', 'Foreground', 'Orphan'].includes(policy)) {
    throw badRequest(
      `propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`,
    );
  }
  const orphanDependents = q.get('orphanDependents') ?? body.orphanDependents;
  const opts: DeleteOptions = { propagationPolicy: policy as DeleteOptions['propagationPolicy'] };
  if (policy === undefined && (orphanDependents === true || orphanDependents === 'true'))
    opts.propagationPolicy = 'Orphan';
  const grace = queryInt(q, 'gracePeriodSeconds') ?? (body.gracePeriodSeconds as number | undefined);
  if (grace !== undefined) opts.gracePeriodSeconds = grace;
  if (body.preconditions && typeof body.preconditions === 'object') {
    opts.preconditions = body.preconditions as DeleteOptions['preconditions'];
  }
  if (Array.isArray(body.dryRun) && body.dryRun.length > 0) q.append('dryRun', 'All');
  return opts;
}

function serveWatch(
  deps: HandlerDeps,
  def: ResourceDef,
  ns: string | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  q: URLSearchParams,
  filter: ObjectFilter,
): void {
  const timeoutSeconds = queryInt(q, 'timeoutSeconds');
  const sendInitial = queryBool(q, 'sendInitialEvents');
  const tableWatch = deps.extensions.table?.watch(def, req);
  let closed = false;
  let active: { stop(): void; bookmark(): void } | undefined;
  let bookmarkTimer: NodeJS.Timeout | undefined;
  let timeout: NodeJS.Timeout | undefined;
  let unregister: (() => void) | undefined;
  const begin = () => {
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Transfer-Encoding': 'chunked',
      'Cache-Control': 'no-cache, private',
    });
    res.flushHeaders();
  };
  const close = () => {
    if (closed) return;
    closed = true;
    active?.stop();
    if (bookmarkTimer) clearInterval(bookmarkTimer);
    if (timeout) clearTimeout(timeout);
    unregister?.();
    if (!res.writableEnded) res.end();
  };
  const write = (line: string) => {
    if (closed) return;
    res.write(line);
    // A watcher that stops reading must not make the server buffer without bound.
    if (res.writableLength > 16 * 1024 * 1024) close();
  };
  active = startWatch(
    deps.store.storage,
    def,
    ns,
    {
      filter,
      resourceVersion: q.get('resourceVersion') ?? undefined,
      resourceVersionMatch: q.get('resourceVersionMatch') ?? undefined,
      sendInitialEvents: sendInitial,
      allowBookmarks: queryBool(q, 'allowWatchBookmarks') === true,
    },
    (json) => deps.store.presentJson(def, json),
    {
      event(type: WatchEventType, json: string) {
        if (!res.headersSent) begin();
        const payload = tableWatch && type !== 'BOOKMARK' ? tableWatch(json) : json;
        write(`{"type":"${type}","object":${payload}}\n`);
      },
      expired(status) {
        if (!res.headersSent) begin();
        write(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
        close();
      },
    },
  );
  if (closed) {
    // The watch ended while starting (410 for an expired resourceVersion).
    active.stop();
    return;
  }
  if (!res.headersSent) begin();
  bookmarkTimer = setInterval(() => active?.bookmark(), deps.bookmarkIntervalMs);
  bookmarkTimer.unref();
  if (timeoutSeconds !== undefined && timeoutSeconds > 0) {
    timeout = setTimeout(close, timeoutSeconds * 1000);
    timeout.unref();
  }
  unregister = deps.watches.add(res, close);
  req.on('close', close);
  res.on('close', close);
}

async function handleScale(
  deps: HandlerDeps,
  def: ResourceDef,
  ns: string | undefined,
  name: string,
  req: IncomingMessage,
  res: ServerResponse,
  q: URLSearchParams,
  user: string,
): Promise<void> {
  const method = req.method ?? 'GET';
  const scale = deps.extensions.scale;
  if (method === 'GET') return sendJson(res, 200, JSON.stringify(scale.get(def, ns, name)));
  if (method === 'PUT' || method === 'PATCH') {
    const ctx = contextFor(req, q, user);
    const raw = await readBody(req);
    const updated = await scale.update(def, ns, name, method, raw, mediaType(req.headers['content-type']), ctx);
    return sendJson(res, 200, JSON.stringify(updated));
  }
  throw methodNotAllowed('the server does not allow this method on the requested resource');
}
