// Status writes of the PeerPod controller: phase, lastError and conditions, sent as a merge patch of
// what changed (nothing is sent when nothing changed, so steady-state reconciles write nothing).
import { isNotFound, patchStatus, setStatusCondition } from '../../../runtime/index.ts';
import type { ConditionInput, HelperClient } from '../../../runtime/index.ts';
import { PeerPods } from '../../api/index.ts';
import type { PeerPod, PeerPodPhase } from '../../api/index.ts';

export interface StatusChange {
  phase?: PeerPodPhase;
  /** `null` clears it. */
  lastError?: string | null;
  conditions?: Array<Omit<ConditionInput, 'observedGeneration'>>;
}

/**
 * Applies `change`; returns the object as written (`pp` when nothing was sent or the PeerPod is gone),
 * so a following guarded write starts from the current resourceVersion.
 */
export async function writeStatus(
  client: HelperClient,
  pp: PeerPod,
  change: StatusChange,
  signal?: AbortSignal,
): Promise<PeerPod> {
  try {
    const { object } = await patchStatus(
      client,
      PeerPods,
      pp,
      (draft) => {
        const status = (draft.status ??= {});
        if (change.phase) status.phase = change.phase;
        if (change.lastError === null) delete status.lastError;
        else if (change.lastError !== undefined) status.lastError = change.lastError;
        if (draft.metadata.generation !== undefined) status.observedGeneration = draft.metadata.generation;
        for (const c of change.conditions ?? []) setStatusCondition(draft, c);
      },
      signal ? { signal } : {},
    );
    return object;
  } catch (err) {
    if (isNotFound(err)) return pp;
    throw err;
  }
}

/** A condition's current status on `pp`, for "only on transition" decisions (events). */
export function conditionStatus(pp: PeerPod, type: string): string | undefined {
  return pp.status?.conditions?.find((c) => c.type === type)?.status;
}
