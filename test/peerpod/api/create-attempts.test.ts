// The create-retry guard's record on a PeerPod: what the adaptor writes, what it and the orphan
// sweep read back, and how a recorded VM clears it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  PeerPodAnnotations,
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
      [PeerPodAnnotations.createFailures]: '2',
      [PeerPodAnnotations.createRetryAt]: '2026-11-26T03:00:00.250Z',
      [PeerPodAnnotations.createGaveUp]: null,
      [PeerPodAnnotations.createLastError]: 'boom',
    });
    const pp = peerPod(written);
    assert.deepEqual(createAttemptsOf(pp), { failures: 2, retryAt, gaveUp: false, lastError: 'boom' });
    assert.equal(createInProgress(pp), true);
  });

  it('a given-up record drops the retry time and is no create in progress', () => {
    const written = createAttemptsAnnotations({ failures: 5, retryAt: new Date(), gaveUp: true, lastError: 'x' });
    assert.equal(written[PeerPodAnnotations.createRetryAt], null);
    assert.equal(written[PeerPodAnnotations.createGaveUp], 'true');
    assert.equal(createInProgress(peerPod(written)), false);
  });

  it('reads garbage as no record, and only a live PeerPod without an instance is in progress', () => {
    assert.deepEqual(
      createAttemptsOf(
        peerPod({ [PeerPodAnnotations.createFailures]: '-3', [PeerPodAnnotations.createRetryAt]: 'soon' }),
      ),
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
    const pp = peerPod({
      [PeerPodAnnotations.createFailures]: '1',
      [PeerPodAnnotations.createLastError]: 'e',
      other: 'kept',
    });
    assert.deepEqual(clearCreateAttempts(pp), {
      [PeerPodAnnotations.createFailures]: null,
      [PeerPodAnnotations.createLastError]: null,
    });
    assert.deepEqual(clearCreateAttempts(peerPod({ other: 'kept' })), {});
  });
});
