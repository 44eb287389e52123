// The create-retry guard's record on a PeerPod (CAA#1737: a bad pod-VM image made upstream create
// a VM every ~4 minutes and never delete the old one). The adaptor counts failed creates here, not
// in memory, so a restart neither forgets the count nor skips the backoff; the orphan sweep reads
// it to tell an attempt in progress (its VM is about to be recorded) from an abandoned one.
// Annotations, not spec/status fields: upstream's PeerPod schema has no room for them, and a
// PeerPod the Go adaptor writes simply has none.
import { PeerPodAnnotations, type PeerPod } from './peerpod.ts';

const {
  createFailures: CREATE_FAILURES_ANNOTATION,
  createRetryAt: CREATE_RETRY_AT_ANNOTATION,
  createGaveUp: CREATE_GAVE_UP_ANNOTATION,
  createLastError: CREATE_LAST_ERROR_ANNOTATION,
} = PeerPodAnnotations;

const KEYS = [
  CREATE_FAILURES_ANNOTATION,
  CREATE_RETRY_AT_ANNOTATION,
  CREATE_GAVE_UP_ANNOTATION,
  CREATE_LAST_ERROR_ANNOTATION,
] as const;

export interface CreateAttempts {
  failures: number;
  retryAt?: Date;
  gaveUp: boolean;
  lastError: string;
}

export function createAttemptsOf(pp: PeerPod): CreateAttempts {
  const a = pp.metadata.annotations ?? {};
  const failures = Number.parseInt(a[CREATE_FAILURES_ANNOTATION] ?? '', 10);
  const retryAt = a[CREATE_RETRY_AT_ANNOTATION] ? new Date(a[CREATE_RETRY_AT_ANNOTATION]) : undefined;
  return {
    failures: Number.isFinite(failures) && failures > 0 ? failures : 0,
    ...(retryAt && !Number.isNaN(retryAt.getTime()) ? { retryAt } : {}),
    gaveUp: a[CREATE_GAVE_UP_ANNOTATION] === 'true',
    lastError: a[CREATE_LAST_ERROR_ANNOTATION] ?? '',
  };
}

/** The annotations of a merge patch that records `a` (null removes a key). */
export function createAttemptsAnnotations(a: CreateAttempts): Record<string, string | null> {
  return {
    [CREATE_FAILURES_ANNOTATION]: String(a.failures),
    [CREATE_RETRY_AT_ANNOTATION]: a.retryAt && !a.gaveUp ? a.retryAt.toISOString() : null,
    [CREATE_GAVE_UP_ANNOTATION]: a.gaveUp ? 'true' : null,
    [CREATE_LAST_ERROR_ANNOTATION]: a.lastError,
  };
}

/** Merge-patch annotations that clear the record (the VM was created and recorded); empty when there is none. */
export function clearCreateAttempts(pp: PeerPod): Record<string, null> {
  const a = pp.metadata.annotations ?? {};
  return Object.fromEntries(KEYS.filter((k) => k in a).map((k) => [k, null]));
}

/**
 * Whether the adaptor may be creating this PeerPod's VM right now: live, no instance recorded yet,
 * not given up. Its VM exists before its ID is written, so the orphan sweep must leave it alone.
 */
export function createInProgress(pp: PeerPod): boolean {
  return !pp.metadata.deletionTimestamp && !pp.spec?.instanceID?.trim() && !createAttemptsOf(pp).gaveUp;
}
