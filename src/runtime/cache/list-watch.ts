// The two calls a reflector needs, as an interface, so the reflector can be driven by a fake in tests
// and by the real client in production.
import type { KubeClient } from '../client/client.ts';
import type { KubeObject, ResourceType, WatchEvent } from '../client/types.ts';
import type { Scope } from './scope.ts';

export interface ListPage<T> {
  items: T[];
  resourceVersion: string;
  continue?: string;
}

export interface ListCall {
  /** Page size; undefined asks for everything at once. */
  limit?: number;
  continue?: string;
  signal: AbortSignal;
}

export interface WatchCall {
  resourceVersion: string;
  timeoutSeconds: number;
  allowWatchBookmarks: boolean;
  signal: AbortSignal;
  /** Called once the server accepted the watch (before any event). */
  onOpen: () => void;
  /** Called for a line of the stream that is not a watch event; the line is skipped. */
  onMalformed: (line: string, error: Error) => void;
}

export interface ListerWatcher<T extends KubeObject> {
  list(call: ListCall): Promise<ListPage<T>>;
  /**
   * Ends normally when the server closes the stream or `signal` aborts; throws when it cannot be opened
   * or breaks. ERROR events are yielded, not thrown.
   */
  watch(call: WatchCall): AsyncIterable<WatchEvent<T>>;
}

/** Lists and watches `type` within `scope` through a client. Lists are always consistent reads (no RV). */
export function listWatchFor<T extends KubeObject>(
  client: KubeClient,
  type: ResourceType,
  scope: Scope,
): ListerWatcher<T> {
  const selectors = {
    ...(scope.namespace ? { namespace: scope.namespace } : {}),
    ...(scope.labelSelector ? { labelSelector: scope.labelSelector } : {}),
    ...(scope.fieldSelector ? { fieldSelector: scope.fieldSelector } : {}),
  };
  return {
    list: (call) =>
      client.list<T>(type, {
        ...selectors,
        signal: call.signal,
        ...(call.limit !== undefined ? { limit: call.limit } : {}),
        ...(call.continue ? { continue: call.continue } : {}),
      }),
    watch: (call) =>
      client.watch<T>(type, {
        ...selectors,
        resourceVersion: call.resourceVersion,
        allowWatchBookmarks: call.allowWatchBookmarks,
        timeoutSeconds: call.timeoutSeconds,
        signal: call.signal,
        onOpen: call.onOpen,
        onMalformed: call.onMalformed,
      }),
  };
}
