// The create-retry guard's record on a PeerPod: what the adaptor writes, what it and the orphan
// sweep read back, and how a recorded VM clears it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CREATE_FAILURES_ANNOTATION,
  CREATE_GAVE_UP_ANNOTATION,
  CREATE_LAST_ERROR_ANNOTATION,
  CREATE_RETRY_AT_ANNOTATION,
  clearCreateAttempts,
  createAttemptsAnnotations,
  createAttemptsOf,
  createInProgress,
} from '../../../src/peerpod/api/index.ts';
import type { PeerPod } from '../../../src/peerpod/api/index.ts';

const peerPod = (annotations: Record<string, string | null>, more: Partial<PeerPod> = {}): PeerPod => {
  const kept = Object.entries(annotations).filter((e): e is [string, string] => e[1] !== null);
  return { metadata: { name: 'p', namespace: 'default', annotations: Object.fromEntries(kept) }, ...more };
};

describe('create attempts on a PeerPod', () => {
  it('round-trips a retrying record to the millisecond', () => {
    const retryAt = new Date('2026-11-26T03:00:00.250Z');
    const written = createAttemptsAnnotations({ failures: 2, retryAt, gaveUp: false, lastError: 'boom' });
    assert.deepEqual(written, {
      [CREATE_FAILURES_ANNOTATION]: '2',
      [CREATE_RETRY_AT_ANNOTATION]: '2026-11-26T03:00:00.250Z',
      [CREATE_GAVE_UP_ANNOTATION]: null,
      [CREATE_LAST_ERROR_ANNOTATION]: 'boom',
    });
    const pp = peerPod(written);
    assert.deepEqual(createAttemptsOf(pp), { failures: 2, retryAt, gaveUp: false, lastError: 'boom' });
    assert.equal(createInProgress(pp), true);
  });

  it('a given-up record drops the retry time and is no create in progress', () => {
    const written = createAttemptsAnnotations({ failures: 5, retryAt: new Date(), gaveUp: true, lastError: 'x' });
    assert.equal(written[CREATE_RETRY_AT_ANNOTATION], null);
    assert.equal(written[CREATE_GAVE_UP_ANNOTATION], 'true');
    assert.equal(createInProgress(peerPod(written)), false);
  });

  it('reads garbage as no record, and only a live PeerPod without an instance is in progress', () => {
    assert.deepEqual(
      createAttemptsOf(peerPod({ [CREATE_FAILURES_ANNOTATION]: '-3', [CREATE_RETRY_AT_ANNOTATION]: 'soon' })),
      {
        failures: 0,
        gaveUp: false,
        lastError: '',
      },
    );
    assert.equal(createInProgress(peerPod({})), true);
    assert.equal(createInProgress(peerPod({}, { spec: { instanceID: 'sim-1' } })), false);
    const deleting = peerPod({});
    deleting.metadata.deletionTimestamp = '2026-11-26T03:00:00Z';
    assert.equal(createInProgress(deleting), false);
  });

  it('clears exactly the keys present', () => {
    const pp = peerPod({ [CREATE_FAILURES_ANNOTATION]: '1', [CREATE_LAST_ERROR_ANNOTATION]: 'e', other: 'kept' });
    assert.deepEqual(clearCreateAttempts(pp), {
      [CREATE_FAILURES_ANNOTATION]: null,
      [CREATE_LAST_ERROR_ANNOTATION]: null,
    });
    assert.deepEqual(clearCreateAttempts(peerPod({ other: 'kept' })), {});
  });
});
