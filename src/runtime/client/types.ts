// Wire shapes the client and cache speak. The object and Status types are apimachinery's (shared with
// the server); what is only the client's (how it addresses kinds, list/watch/write options) is here.

export type {
  OwnerReference,
  ManagedFieldsEntry,
  ObjectMeta,
  KubeObject,
  Status,
  StatusCause,
  StatusDetails,
} from '../../apimachinery/meta/index.ts';

/** How the client addresses one kind: its group/version, the URL plural and whether it lives in namespaces. */
export interface ResourceType {
  /** "" for the core group. */
  group: string;
  version: string;
  kind: string;
  /** The lowercase plural used in URLs, e.g. "deployments". */
  plural: string;
  namespaced: boolean;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** One line of a watch stream. For `ERROR` the object is a {@link Status}; for `BOOKMARK` only `metadata.resourceVersion` is meaningful. */
export interface WatchEvent<T> {
  type: WatchEventType;
  object: T;
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export interface RequestOptions {
  /** Cancels the request (and, for watches, closes the stream). */
  signal?: AbortSignal;
}

export interface ListOptions extends RequestOptions {
  /** Omit for cluster-wide lists of namespaced kinds. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size; the server returns a `continue` token when more remain. */
  limit?: number;
  continue?: string;
  /** "" or undefined: latest (consistent read); "0": any (served from the watch cache, `limit` ignored). */
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  timeoutSeconds?: number;
}

export interface ListResult<T> {
  items: T[];
  resourceVersion: string;
  continue?: string;
  /** Server's estimate of the items not yet returned when paging. */
  remainingItemCount?: number;
}

export interface WatchOptions extends RequestOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Start after this RV; undefined or "0" make the server replay the current state as ADDED events. */
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  allowWatchBookmarks?: boolean;
  /** Server-side limit for the watch's duration. */
  timeoutSeconds?: number;
  sendInitialEvents?: boolean;
  /**
   * Called for a line of the stream that is not a valid watch event. The line is skipped; it never
   * ends the stream. Defaults to logging a warning.
   */
  onMalformed?: (line: string, error: Error) => void;
  /** Called once the server has accepted the watch (HTTP 200), before the first event. */
  onOpen?: () => void;
}

export interface WriteOptions extends RequestOptions {
  /** Validate and admit but persist nothing (`dryRun=All`). */
  dryRun?: boolean;
  /** Defaults to the client's `fieldManager`. */
  fieldManager?: string;
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
}

export interface PatchOptions extends WriteOptions {
  /** E.g. "status" or "scale". */
  subresource?: string;
  /** Server-side apply only: take ownership of conflicting fields. */
  force?: boolean;
}

export interface DeleteOptions extends RequestOptions {
  propagationPolicy?: PropagationPolicy;
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

export * from './resources.ts';
