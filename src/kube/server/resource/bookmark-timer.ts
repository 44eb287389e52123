// When a watch that asked for bookmarks gets its next one, as kube-apiserver's watch cache decides
// (staging/src/k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go, nextBookmarkTime): every
// bookmark interval (a minute in kube, cacher.go's defaultBookmarkFrequency), and 2 s before the
// watch's timeoutSeconds deadline so that the client resumes from as recent a resourceVersion as
// possible; none once that pre-timeout moment has passed.
import { atDeadline } from './deadline.ts';

const PRE_TIMEOUT_MS = 2_000;

/** Epoch ms of the next bookmark, or undefined when no more are due before the deadline. */
export function nextBookmarkAt(now: number, intervalMs: number, deadline?: number): number | undefined {
  let at = now + intervalMs;
  if (deadline === undefined) return at;
  const preTimeout = deadline - PRE_TIMEOUT_MS;
  if (preTimeout < at) at = preTimeout;
  return at < now ? undefined : at;
}

/** Calls `bookmark` at each time nextBookmarkAt gives; returns the canceller. */
export function scheduleBookmarks(bookmark: () => void, intervalMs: number, deadline?: number): () => void {
  let cancel = (): void => {};
  let last = -Infinity;
  const arm = (): void => {
    // One bookmark per moment: after the pre-timeout one, the next candidate is that same instant.
    const at = nextBookmarkAt(Date.now(), intervalMs, deadline);
    if (at === undefined || at <= last) return;
    cancel = atDeadline(at, () => {
      last = at;
      bookmark();
      arm();
    });
  };
  arm();
  return () => cancel();
}
