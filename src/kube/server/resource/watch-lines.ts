// Encoded watch events shared by every watcher. A change reaches all the watchers of its
// resource at once (and a resumed or initial watch replays the same kept objects), so its
// line — `{"type":…,"object":…}\n` in one representation — is encoded once and the same Buffer
// is written to every stream: N watchers of a 1 MiB object cost one 1 MiB line, not N. kube's
// watch cache does the same (cachingObject, staging/src/k8s.io/apiserver/pkg/storage/cacher/
// caching_object.go). A line lives as long as the Change or StoredObject it was encoded from; the
// watch handler charges a change's lines to the history's byte bound (Storage.chargeHeld), so the
// kept history and its lines together stay within historyBytes.

const lines = new WeakMap<object, Map<string, Buffer>>();

/** How many lines were encoded (tests observe that a shared event is encoded once). */
export const watchLineStats = { encoded: 0 };

/** `{"type":…,"object":…}\n` for one event. */
export function encodeWatchLine(type: string, objectJson: string): Buffer {
  watchLineStats.encoded++;
  return Buffer.from(`{"type":"${type}","object":${objectJson}}\n`);
}

/**
 * The line of `source` in the representation named `key` (which must also name the event type
 * and the served resource): encoded by `encode` the first time, the same Buffer afterwards.
 */
export function sharedWatchLine(source: object, key: string, encode: () => Buffer): Buffer {
  let byKey = lines.get(source);
  if (!byKey) lines.set(source, (byKey = new Map()));
  let line = byKey.get(key);
  if (!line) byKey.set(key, (line = encode()));
  return line;
}
