// WATCH as kube-apiserver's watch cache serves it: where to start (no RV / "0" / N /
// sendInitialEvents), selector entry and exit as ADDED/DELETED, bookmarks, and 410 for a
// resourceVersion older than the kept history. Transport (HTTP framing, timeouts) is the
// server's job; this module only decides which events a watcher gets.
import { StatusError } from '../../apimachinery/errors/index.ts';
import { RevisionCompactedError, type Change, type Storage, type Watcher } from '../storage/storage.ts';
import type { JsonObject } from '../../apimachinery/meta/index.ts';
import { listPrefix, splitKey } from './keys.ts';
import type { ObjectFilter } from './filter.ts';
import { parseRevision } from './list.ts';
import { validateListOptions } from './list-options.ts';
import { apiVersionOf, type ResourceDef } from './resource.ts';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchSink {
  /**
   * `objectJson` is the object's stored JSON text (a bookmark's own for BOOKMARK). `source` is the
   * Change or StoredObject it was taken from, the same object for every watcher that gets this
   * event, so the sink can encode it once for all of them; absent when the text was made for
   * this watcher alone.
   */
  event(type: WatchEventType, objectJson: string, source?: object): void;
  /** Called once when the watch cannot go on (410); the sink closes the stream after it. */
  expired(status: JsonObject): void;
}

export interface WatchOptions {
  filter: ObjectFilter;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  sendInitialEvents?: boolean;
  allowBookmarks: boolean;
}

export interface ActiveWatch {
  /** Sends a BOOKMARK at the current revision (when bookmarks were asked for). */
  bookmark(): void;
  stop(): void;
}

export function bookmarkJson(def: ResourceDef, revision: number, initialEventsEnd = false): string {
  const metadata: JsonObject = { resourceVersion: String(revision) };
  if (initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
  return JSON.stringify({ kind: def.kind, apiVersion: apiVersionOf(def), metadata });
}

export function startWatch(
  storage: Storage,
  def: ResourceDef,
  namespace: string | undefined,
  opts: WatchOptions,
  sink: WatchSink,
): ActiveWatch {
  const prefix = listPrefix(def, namespace);
  const { filter } = opts;
  const rvParam = opts.resourceVersion ?? '';

  validateListOptions({ watch: true, ...opts });

  let lastSent = 0;
  const matchesJson = (json: string | undefined, key: string): boolean => {
    if (json === undefined) return false;
    return filter.matchesStored(def, { key, revision: 0, json }, splitKey(def, key));
  };

  const onChange = (c: Change): void => {
    if (c.revision <= lastSent) return;
    const now = matchesJson(c.type === 'DELETED' ? undefined : c.json, c.key);
    const before = c.type === 'ADDED' ? false : matchesJson(c.prevJson, c.key);
    let type: WatchEventType | undefined;
    let json = c.json;
    let source: object | undefined = c;
    if (c.type === 'DELETED') {
      if (matchesJson(c.prevJson, c.key)) type = 'DELETED';
    } else if (now && before) type = 'MODIFIED';
    else if (now) type = 'ADDED';
    else if (before) {
      // Left the selector: the old state, stamped with the change's revision, as a DELETED.
      type = 'DELETED';
      json = (c.prevJson ?? c.json).replace(/"resourceVersion":"\d+"/, `"resourceVersion":"${c.revision}"`);
      source = undefined;
    }
    lastSent = c.revision;
    if (type) sink.event(type, json, source);
  };

  let watcher: Watcher;
  const initial = opts.sendInitialEvents === true || rvParam === '' || rvParam === '0';
  if (initial) {
    const revision = storage.currentRevision();
    for (const item of storage.list(prefix)) {
      if (filter.matchesStored(def, item, splitKey(def, item.key))) sink.event('ADDED', item.json, item);
    }
    lastSent = revision;
    if (opts.sendInitialEvents === true && opts.allowBookmarks) {
      sink.event('BOOKMARK', bookmarkJson(def, revision, true));
    }
    watcher = storage.watch(prefix, revision, onChange);
  } else {
    const from = parseRevision(rvParam);
    try {
      watcher = storage.watch(prefix, from, onChange);
      lastSent = Math.max(lastSent, 0);
    } catch (e) {
      if (e instanceof RevisionCompactedError) {
        const status = new StatusError(
          410,
          'Expired',
          `too old resource version: ${e.requested} (${e.oldest})`,
        ).toStatus();
        sink.expired(status as unknown as JsonObject);
        return { bookmark: () => {}, stop: () => {} };
      }
      throw e;
    }
  }

  return {
    bookmark: () => {
      if (!opts.allowBookmarks) return;
      const revision = storage.currentRevision();
      lastSent = Math.max(lastSent, revision);
      sink.event('BOOKMARK', bookmarkJson(def, revision));
    },
    stop: () => watcher.stop(),
  };
}
