// Shared by the runtime tests: wait on a condition with a deadline instead of sleeping.
import type { FakeClock } from '../../src/runtime/index.ts';

/** Polls `cond` (real time) until it holds; fails with `what` after `timeoutMs`. */
export async function waitFor(
  cond: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
  intervalMs = 5,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await cond()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Advances a FakeClock in `stepMs` steps until `cond` holds, giving async work a real tick between
 * steps; fails after `maxMs` of fake time.
 */
export async function advanceUntil(
  clock: FakeClock,
  cond: () => boolean,
  what: string,
  maxMs = 60_000,
  stepMs = 1,
): Promise<void> {
  for (let t = 0; t <= maxMs; t += stepMs) {
    await new Promise((r) => setImmediate(r));
    if (cond()) return;
    await clock.advance(stepMs);
  }
  throw new Error(`fake time ran ${maxMs} ms without ${what}`);
}

/** Resolves after the current macrotask queue drains (lets chained promises and I/O callbacks run). */
export function tick(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}

/** A promise with its resolve function, for reconcilers that a test releases by hand. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
