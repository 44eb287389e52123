// Waiting on conditions with deadlines, as Gomega's Eventually does for envtest users: a test never
// sleeps, it polls until the cluster reaches the state it expects or the deadline says it never will.
import { isNotFound, type KubeClient, type KubeObject, type ResourceType } from '../runtime/index.ts';

export interface WaitOptions {
  /** Fail after this long. Default: the environment's `timeoutMs` (10 s unless set). */
  timeoutMs?: number;
  /** Poll this often. Default 25 ms. */
  intervalMs?: number;
  /** What is awaited, for the error message. */
  what?: string;
  /** Stop waiting (and fail) when aborted, e.g. with the test's own signal. */
  signal?: AbortSignal;
}

const DEFAULT_INTERVAL_MS = 25;

/**
 * Polls `condition` until it returns a truthy value, which is returned. A thrown error counts as
 * "not yet" (the object may not exist yet); the last one is reported when the deadline passes.
 */
export async function waitFor<T>(
  condition: () => T | Promise<T>,
  opts: WaitOptions & { timeoutMs: number },
): Promise<NonNullable<T>> {
  const deadline = Date.now() + opts.timeoutMs;
  let last: unknown;
  for (;;) {
    opts.signal?.throwIfAborted();
    try {
      const value = await condition();
      if (value) return value as NonNullable<T>;
      last = value;
    } catch (e) {
      last = e;
    }
    if (Date.now() >= deadline) {
      const detail = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`timed out after ${opts.timeoutMs} ms waiting for ${opts.what ?? 'condition'}; last: ${detail}`);
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? DEFAULT_INTERVAL_MS));
  }
}

/** Waits until the object exists and `predicate` (default: any) holds for it; returns it. */
export function waitForObject<T extends KubeObject>(
  client: KubeClient,
  type: ResourceType,
  name: string,
  namespace: string | undefined,
  predicate: (obj: T) => boolean,
  opts: WaitOptions & { timeoutMs: number },
): Promise<T> {
  return waitFor(
    async () => {
      const obj = await client.get<T>(type, name, namespace);
      return predicate(obj) ? obj : undefined;
    },
    { what: `${type.plural}/${name}${namespace ? ` in ${namespace}` : ''}`, ...opts },
  );
}

/** Waits until the object is gone (finalizers done, garbage collection or namespace deletion finished). */
export async function waitForDeletion(
  client: KubeClient,
  type: ResourceType,
  name: string,
  namespace: string | undefined,
  opts: WaitOptions & { timeoutMs: number },
): Promise<void> {
  await waitFor(
    async () => {
      try {
        await client.get(type, name, namespace);
        return false;
      } catch (e) {
        if (isNotFound(e)) return true;
        throw e;
      }
    },
    { what: `deletion of ${type.plural}/${name}${namespace ? ` in ${namespace}` : ''}`, ...opts },
  );
}
