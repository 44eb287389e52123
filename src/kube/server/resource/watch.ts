// A watch over a collection: JSON events (or their negotiated conversion), periodic bookmarks and the client's
// timeout, streamed until either side ends it.
import { startWatch, type WatchEventType } from '../../registry/watch.ts';
import { queryBool, queryInt } from '../request.ts';
import { selectorFilter } from './filter.ts';
import { watchObjectEncoder } from './representation.ts';
import type { HandlerDeps, ResourceRequest } from './types.ts';
import { WatchStream } from './watch-stream.ts';
import { scheduleBookmarks } from './bookmark-timer.ts';

export function serveWatch(deps: HandlerDeps, r: ResourceRequest): void {
  const { def, req, res, query: q } = r;
  const filter = selectorFilter(def, q);
  const timeoutSeconds = queryInt(q, 'timeoutSeconds');
  const sendInitial = queryBool(q, 'sendInitialEvents');
  const encode = watchObjectEncoder(deps, r);
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
        stream.write(`{"type":"${type}","object":${encode(type, json)}}\n`);
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
  const deadline = timeoutSeconds !== undefined && timeoutSeconds > 0 ? Date.now() + timeoutSeconds * 1000 : undefined;
  stream.onClose(scheduleBookmarks(() => active.bookmark(), deps.bookmarkIntervalMs, deadline));
  if (deadline !== undefined) {
    const timeout = setTimeout(stream.close, deadline - Date.now());
    timeout.unref();
    stream.onClose(() => clearTimeout(timeout));
  }
  const unregister = deps.watches.add(res, stream.close);
  stream.onClose(unregister);
  req.on('close', stream.close);
  res.on('close', stream.close);
}
