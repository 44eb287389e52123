// Watch events of a CRD converted by a webhook. An event's object is converted once per served
// version and the result shared by every watcher of that version, as kube's watch cache decodes
// (and so converts) each change once per version's cache. A watcher writes its events in order:
// each waits for the conversions of the events before it, bookmarks included, so a bookmark never
// passes an event it would let a resuming client skip. A conversion that fails ends the watch with
// an ERROR event carrying an InternalError, as kube's etcd watcher does when an event does not
// decode (transformErrorToEvent in staging/src/k8s.io/apiserver/pkg/storage/etcd3/watcher.go).
import { StatusError } from '../../../apimachinery/errors/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { WatchEventType } from '../../registry/watch.ts';
import { apiVersionOf, type ResourceDef } from '../../registry/resource.ts';
import type { ObjectStore } from '../../registry/store/index.ts';

type Deliver = (type: WatchEventType, servedJson: string, source?: object) => void;

/** Conversions in flight or done, per event source (a Change or a kept object) and apiVersion. */
const converted = new WeakMap<object, Map<string, Promise<string>>>();

function convertShared(
  store: ObjectStore,
  def: ResourceDef,
  json: string,
  source: object | undefined,
): Promise<string> {
  if (!source) return store.servedJson(def, json);
  const apiVersion = apiVersionOf(def);
  let byVersion = converted.get(source);
  if (!byVersion) converted.set(source, (byVersion = new Map()));
  let text = byVersion.get(apiVersion);
  if (!text) {
    const versions = byVersion;
    text = store.servedJson(def, json).then(
      (t) => {
        // Kept as long as the change is: counted against the history's byte bound.
        store.storage.chargeHeld?.(source, t.length);
        return t;
      },
      (e: unknown) => {
        // A failure is not remembered: a later watch of the same change asks the webhook again.
        versions.delete(apiVersion);
        throw e;
      },
    );
    byVersion.set(apiVersion, text);
  }
  return text;
}

/** kube's apierrors.NewInternalError(err).Status(). */
function internalErrorStatus(e: unknown): JsonObject {
  const message = e instanceof Error ? e.message : String(e);
  const err = new StatusError(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
  return err.toStatus() as unknown as JsonObject;
}

/**
 * The sink event function for one watcher of `def`: converts each object (bookmarks pass as
 * they are), then hands events to `deliver` in the order they came; `fail` ends the watch.
 */
export function convertingWatchEvents(
  store: ObjectStore,
  def: ResourceDef,
  deliver: Deliver,
  fail: (status: JsonObject) => void,
): (type: WatchEventType, json: string, source?: object) => void {
  let tail: Promise<void> = Promise.resolve();
  let failed = false;
  return (type, json, source) => {
    if (failed) return;
    const text = type === 'BOOKMARK' ? Promise.resolve(json) : convertShared(store, def, json, source);
    // Awaited below, in turn; until then a rejection is not unhandled.
    text.catch(() => {});
    tail = tail.then(async () => {
      if (failed) return;
      try {
        deliver(type, await text, source);
      } catch (e) {
        failed = true;
        fail(internalErrorStatus(e));
      }
    });
  };
}
