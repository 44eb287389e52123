// An in-memory stand-in for an API server's list and watch of one kind: RVs, paging, watch history
// with compaction (410), open streams that can be cut, and injectable failures.
import type { KubeObject, WatchEvent } from '../../../src/runtime/client/types.ts';
import { ApiError } from '../../../src/runtime/client/errors.ts';
import type { ListCall, ListerWatcher, ListPage, WatchCall } from '../../../src/runtime/cache/list-watch.ts';

type Ev = WatchEvent<KubeObject> & { rv: number };

class Channel {
  private queue: Array<WatchEvent<KubeObject>> = [];
  private waiting: (() => void) | undefined;
  ended = false;
  error: Error | undefined;

  push(ev: WatchEvent<KubeObject>): void {
    if (this.ended) return;
    this.queue.push(ev);
    this.wake();
  }
  end(error?: Error): void {
    this.ended = true;
    this.error = error;
    this.wake();
  }
  private wake(): void {
    const w = this.waiting;
    this.waiting = undefined;
    w?.();
  }
  async *iterate(signal: AbortSignal): AsyncGenerator<WatchEvent<KubeObject>> {
    const onAbort = (): void => this.wake();
    signal.addEventListener('abort', onAbort);
    try {
      for (;;) {
        if (signal.aborted) return;
        const next = this.queue.shift();
        if (next) {
          yield next;
          continue;
        }
        if (this.ended) {
          if (this.error) throw this.error;
          return;
        }
        await new Promise<void>((r) => (this.waiting = r));
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }
}

export function obj(
  name: string,
  namespace: string | undefined = 'default',
  extra: Partial<KubeObject> = {},
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    ...extra,
    metadata: { name, ...(namespace ? { namespace } : {}), uid: `uid-${namespace}-${name}`, ...extra.metadata },
  };
}

export class FakeListerWatcher implements ListerWatcher<KubeObject> {
  rv = 100;
  readonly objects = new Map<string, KubeObject>();
  private history: Ev[] = [];
  private compactedAt = 0;
  private readonly open = new Set<Channel>();
  readonly listCalls: ListCall[] = [];
  readonly watchCalls: WatchCall[] = [];
  /** Errors thrown by the next list calls, in order. */
  listErrors: Error[] = [];
  /** Errors thrown by the next watch opens, in order. */
  watchErrors: Error[] = [];
  /** Expire continue tokens (410) on the next paged call. */
  expireContinue = false;

  key(o: KubeObject): string {
    return `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
  }

  private bump(o: KubeObject): KubeObject {
    this.rv++;
    return { ...o, metadata: { ...o.metadata, resourceVersion: String(this.rv) } };
  }

  private emit(type: 'ADDED' | 'MODIFIED' | 'DELETED', o: KubeObject): void {
    this.history.push({ type, object: o, rv: this.rv });
    for (const ch of this.open) ch.push({ type, object: structuredClone(o) });
  }

  /** Creates or updates (server side) and notifies open watches. */
  put(o: KubeObject): KubeObject {
    const stored = this.bump(o);
    const existed = this.objects.has(this.key(o));
    this.objects.set(this.key(o), stored);
    this.emit(existed ? 'MODIFIED' : 'ADDED', stored);
    return stored;
  }

  /** Changes the server state without telling watches (as if the change happened while disconnected and history was lost). */
  putSilently(o: KubeObject): KubeObject {
    const stored = this.bump(o);
    this.objects.set(this.key(o), stored);
    return stored;
  }

  remove(name: string, namespace: string | undefined = 'default', silently = false): void {
    const k = `${namespace ?? ''}/${name}`;
    const o = this.objects.get(k);
    if (!o) throw new Error(`no ${k}`);
    this.objects.delete(k);
    const stored = this.bump(o);
    if (!silently) this.emit('DELETED', stored);
  }

  bookmark(): void {
    this.rv++;
    for (const ch of this.open)
      ch.push({ type: 'BOOKMARK', object: { metadata: { resourceVersion: String(this.rv) } } });
  }

  /** Sends an arbitrary event on open watches (malformed ones included). */
  raw(ev: WatchEvent<KubeObject>): void {
    for (const ch of this.open) ch.push(ev);
  }

  /** Forget history: watches from older RVs get 410. */
  compact(): void {
    this.history = [];
    this.compactedAt = this.rv;
  }

  /** Ends every open watch: normally, or with a connection error. */
  cutWatches(error?: Error): void {
    for (const ch of this.open) ch.end(error);
    this.open.clear();
  }

  openWatches(): number {
    return this.open.size;
  }

  async list(call: ListCall): Promise<ListPage<KubeObject>> {
    this.listCalls.push(call);
    const err = this.listErrors.shift();
    if (err) throw err;
    if (call.continue && this.expireContinue) {
      this.expireContinue = false;
      throw new ApiError(410, 'Expired', 'continue token expired');
    }
    const all = [...this.objects.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, o]) => o);
    let start = 0;
    let rv = String(this.rv);
    if (call.continue) {
      const c = JSON.parse(call.continue) as { start: number; rv: string };
      start = c.start;
      rv = c.rv;
    }
    const end = call.limit ? Math.min(all.length, start + call.limit) : all.length;
    const page: ListPage<KubeObject> = {
      items: all.slice(start, end).map((o) => structuredClone(o)),
      resourceVersion: rv,
    };
    if (end < all.length) page.continue = JSON.stringify({ start: end, rv });
    return page;
  }

  watch(call: WatchCall): AsyncIterable<WatchEvent<KubeObject>> {
    this.watchCalls.push(call);
    return this.stream(call);
  }

  private async *stream(call: WatchCall): AsyncGenerator<WatchEvent<KubeObject>> {
    const err = this.watchErrors.shift();
    if (err) throw err;
    const ch = new Channel();
    this.open.add(ch);
    try {
      call.onOpen();
      const from = Number(call.resourceVersion);
      if (from < this.compactedAt) {
        yield {
          type: 'ERROR',
          object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' } as never,
        };
        return;
      }
      for (const ev of this.history) if (ev.rv > from) ch.push({ type: ev.type, object: structuredClone(ev.object) });
      yield* ch.iterate(call.signal);
    } finally {
      this.open.delete(ch);
    }
  }
}
