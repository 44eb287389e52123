// What the storage (on the event loop's thread) and its etcd worker say to each other. The worker
// owns the etcd client and the watch; the storage asks it synchronously (sync-channel.ts) and
// takes the watch's events, in revision order, only from its answers.

/**
 * One change the watch delivered: a key under the prefix (the prefix cut off). `reset` replaces
 * the whole index with `objects` as of `revision` (the watch had to start over: its start was
 * compacted away while it was disconnected).
 */
export interface WireEvent {
  type: 'put' | 'delete' | 'reset';
  key: string;
  /** The object's JSON as stored in etcd (without a resourceVersion); only for a put. */
  value?: string;
  /** The revision of this change (a delete's own revision). */
  revision: number;
  objects?: WireObject[];
}

export interface WireObject {
  key: string;
  value: string;
  /** etcd's mod_revision: the object's resourceVersion. */
  revision: number;
}

export type WorkerRequest =
  | { op: 'open' }
  /** The next page of the read `open` started. */
  | { op: 'page' }
  | { op: 'create'; key: string; value: string }
  | { op: 'update'; key: string; value: string; expected: number }
  | { op: 'delete'; key: string; expected: number }
  | { op: 'drain' }
  | { op: 'compact'; revision: number }
  | { op: 'close' };

/** Why a write was refused: the key's state in etcd did not match the write's condition. */
export type Refusal = 'exists' | 'not-found' | 'mismatch';

export type WorkerResponse =
  | {
      ok: true;
      events: WireEvent[];
      revision?: number;
      page?: { revision: number; objects: WireObject[]; more: boolean };
    }
  | { ok: false; events: WireEvent[]; refusal: Refusal }
  | { ok: false; events: WireEvent[]; error: string };

/** Slots of the shared Int32Array. */
export const SLOT_ANSWERED = 0;
/** How many events the watch has queued so far (wraps): a read compares it with what it took. */
export const SLOT_QUEUED = 1;
/** 1 while the watch that feeds the index is established, 0 while it is broken or starting again. */
export const SLOT_WATCHING = 2;
