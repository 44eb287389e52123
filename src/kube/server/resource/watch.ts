// A watch over a collection: JSON events (or Table rows), periodic bookmarks and the client's
// timeout, streamed until either side ends it.
import { startWatch, type WatchEventType } from '../../registry/watch.ts';
import { queryBool, queryInt } from '../request.ts';
import { selectorFilter } from './filter.ts';
import type { HandlerDeps, ResourceRequest } from './types.ts';
import { WatchStream } from './watch-stream.ts';

export function serveWatch(deps: HandlerDeps, r: ResourceRequest): void {
  const { def, req, res, query: q } = r;
  const filter = selectorFilter(def, q);
  const timeoutSeconds = queryInt(q, 'timeoutSeconds');
  const sendInitial = queryBool(q, 'sendInitialEvents');
  const tableWatch = deps.extensions.table?.watch(def, req);
  const stream = new WatchStream(res);
  const active = startWatch(
    deps.store.storage,
    def,
    r.namespace,
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
        const payload = tableWatch && type !== 'BOOKMARK' ? tableWatch(json) : json;
        stream.write(`{"type":"${type}","object":${payload}}\n`);
      },
      expired(status) {
        stream.write(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
        stream.close();
      },
    },
  );
  if (stream.isClosed) {
    // The watch ended while starting (410 for an expired resourceVersion).
    active.stop();
    return;
  }
  stream.begin();
  stream.onClose(() => active.stop());
  const bookmarkTimer = setInterval(() => active.bookmark(), deps.bookmarkIntervalMs);
  bookmarkTimer.unref();
  stream.onClose(() => clearInterval(bookmarkTimer));
  if (timeoutSeconds !== undefined && timeoutSeconds > 0) {
    const timeout = setTimeout(stream.close, timeoutSeconds * 1000);
    timeout.unref();
    stream.onClose(() => clearTimeout(timeout));
  }
  const unregister = deps.watches.add(res, stream.close);
  stream.onClose(unregister);
  req.on('close', stream.close);
  res.on('close', stream.close);
}
