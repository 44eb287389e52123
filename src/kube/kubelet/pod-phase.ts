// The pod-level status the kubelet derives from its containers' states: the phase (kubelet's
// getPhase, pkg/kubelet/kubelet_pods.go) and the Ready / ContainersReady / PodReadyToStartContainers
// conditions (pkg/kubelet/status/generate.go). Regular containers only: simulated init containers
// complete at once.
import type { JsonObject } from '../../apimachinery/meta/index.ts';

interface State {
  running?: JsonObject;
  waiting?: JsonObject;
  terminated?: { exitCode?: number };
}

/** getPhase for a started pod whose init containers are done. */
export function podPhase(restartPolicy: string, statuses: JsonObject[]): string {
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const cs of statuses) {
    const state = (cs.state ?? {}) as State;
    if (state.running) running++;
    else if (state.terminated) {
      stopped++;
      if (state.terminated.exitCode === 0) succeeded++;
    } else if ((cs.lastState as State | undefined)?.terminated) stopped++;
    else waiting++;
  }
  if (waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped === 0) return 'Pending';
  if (restartPolicy === 'Always') return 'Running';
  if (stopped === succeeded) return 'Succeeded';
  if (restartPolicy === 'OnFailure') return 'Running';
  return 'Failed';
}

/**
 * Recomputes the readiness conditions for `phase`, keeping lastTransitionTime where the status
 * did not change. Terminal pods: reason PodCompleted (Succeeded) or PodFailed, and the sandbox is
 * gone (PodReadyToStartContainers False).
 */
export function readinessConditions(
  conditions: JsonObject[],
  phase: string,
  statuses: JsonObject[],
  now: string,
): JsonObject[] {
  const unready = statuses.filter((cs) => cs.ready !== true).map((cs) => String(cs.name));
  const terminal = phase === 'Succeeded' || phase === 'Failed';
  const next = (type: string): { status: string; reason?: string; message?: string } => {
    if (type === 'PodReadyToStartContainers') return { status: terminal ? 'False' : 'True' };
    if (terminal) return { status: 'False', reason: phase === 'Succeeded' ? 'PodCompleted' : 'PodFailed' };
    if (unready.length === 0) return { status: 'True' };
    // Go's %s of a []string: `[a b]`.
    return {
      status: 'False',
      reason: 'ContainersNotReady',
      message: `containers with unready status: [${unready.join(' ')}]`,
    };
  };
  return conditions.map((c) => {
    const type = String(c.type);
    if (type !== 'Ready' && type !== 'ContainersReady' && type !== 'PodReadyToStartContainers') return c;
    const want = next(type);
    if (c.status === want.status && c.reason === want.reason && c.message === want.message) return c;
    const out: JsonObject = { type, status: want.status, lastProbeTime: null };
    out.lastTransitionTime = c.status === want.status ? c.lastTransitionTime : now;
    if (want.reason) out.reason = want.reason;
    if (want.message) out.message = want.message;
    return out;
  });
}
