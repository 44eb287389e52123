// A watch over a collection: JSON events (or their negotiated conversion), periodic bookmarks and the client's
// timeout, streamed until either side ends it.
import { startWatch, type WatchEventType } from '../../registry/watch.ts';
import { queryBool, queryInt } from '../request.ts';
import { selectorFilter } from './filter.ts';
import { watchObjectEncoder } from './representation.ts';
import type { HandlerDeps, ResourceRequest } from './types.ts';
import { WatchStream } from './watch-stream.ts';
import { scheduleBookmarks } from './bookmark-timer.ts';
import { atDeadline, watchTimeoutMs } from './deadline.ts';
import { encodeWatchLine, sharedWatchLine } from './watch-lines.ts';
import { convertingWatchEvents } from './watch-conversion.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';

export function serveWatch(deps: HandlerDeps, r: ResourceRequest): void {
  const { def, req, res, query: q } = r;
  const filter = selectorFilter(def, q);
  const timeoutSeconds = queryInt(q, 'timeoutSeconds');
  const sendInitial = queryBool(q, 'sendInitialEvents');
  const { encode, sharedAs } = watchObjectEncoder(deps, r);
  // `json` is served already for a webhook-converted CRD (watch-conversion.ts), stored otherwise.
  const served = (type: WatchEventType, json: string): string =>
    type === 'BOOKMARK' || def.converter ? json : deps.store.presentJson(def, json);
  const line = (type: WatchEventType, json: string): Buffer => encodeWatchLine(type, encode(type, served(type, json)));
  // Every watcher of this resource in this representation writes the same bytes for an event.
  const sharedKey = sharedAs === undefined ? undefined : `${def.group}/${def.version}/${def.resource};${sharedAs}`;
  const stream = new WatchStream(res);
  const faultEvent = deps.faults?.watchEvents(req, stream);
  const deliver = (type: WatchEventType, json: string, source?: object): void => {
    if (stream.isClosed) return;
    stream.write(
      source && sharedKey !== undefined
        ? sharedWatchLine(source, `${type};${sharedKey}`, () => {
            // The line lives as long as its change: the history's byte bound counts it.
            const encoded = line(type, json);
            deps.store.storage.chargeHeld?.(source, encoded.length);
            return encoded;
          })
        : line(type, json),
    );
    faultEvent?.();
  };
  const end = (status: JsonObject): void => {
    stream.write(encodeWatchLine('ERROR', JSON.stringify(status)));
    stream.close();
  };
  const event = def.converter ? convertingWatchEvents(deps.store, def, deliver, end) : deliver;
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
    { event, expired: end },
  );
  if (stream.isClosed) {
    // The watch ended while starting (410 for an expired resourceVersion, or a reader too slow
    // for its initial events).
    active.stop();
    return;
  }
  stream.begin();
  stream.onClose(() => active.stop());
  const timeoutMs = watchTimeoutMs(timeoutSeconds, deps.minRequestTimeoutSeconds, Math.random);
  const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
  stream.onClose(scheduleBookmarks(() => active.bookmark(), deps.bookmarkIntervalMs, deadline));
  if (deadline !== undefined) stream.onClose(atDeadline(deadline, stream.close));
  const unregister = deps.watches.add(res, stream.close);
  stream.onClose(unregister);
  req.on('close', stream.close);
  res.on('close', stream.close);
}
