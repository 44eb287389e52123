// A timer for a moment arbitrarily far away. Node's setTimeout takes at most 2^31-1 ms (about
// 24.8 days) and fires at once (with a TimeoutOverflowWarning) when asked for more, so a watch
// with timeoutSeconds=2147484 would end immediately; longer waits are chained in steps.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Calls `fn` at `deadline` (epoch ms) without keeping the process alive; returns the canceller. */
export function atDeadline(deadline: number, fn: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    const remaining = deadline - Date.now();
    if (remaining > MAX_TIMER_MS) timer = setTimeout(arm, MAX_TIMER_MS);
    else timer = setTimeout(fn, Math.max(0, remaining));
    timer.unref();
  };
  arm();
  return () => clearTimeout(timer);
}

/**
 * How long a watch lasts, as kube-apiserver decides (staging/src/k8s.io/apiserver/pkg/endpoints/
 * request/timeout.go, GetTimeoutForWatch): the client's timeoutSeconds, negative ones included
 * (they end the watch at once); without one (or 0), a random time between minRequestTimeout and
 * twice that, so that watches opened together do not all end (and relist) together. Undefined
 * when there is no timeout at all (no timeoutSeconds and minRequestTimeout 0).
 */
export function watchTimeoutMs(
  timeoutSeconds: number | undefined,
  minRequestTimeoutSeconds: number,
  random: () => number,
): number | undefined {
  if (timeoutSeconds !== undefined && timeoutSeconds !== 0) return timeoutSeconds * 1000;
  if (minRequestTimeoutSeconds > 0) return minRequestTimeoutSeconds * 1000 * (random() + 1);
  return undefined;
}
