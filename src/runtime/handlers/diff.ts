// The set diffs most CRUD handlers need, keyed by object name:
//   create           = desired − current
//   delete (update)  = current − desired   (scale-in: what we no longer want)
//   update           = desired ∩ current where `modified(current, desired)`
//   delete (delete)  = current ∩ desired   (on teardown: only what we would have made)
import { isAlreadyExists, isNotFound } from '../client/errors.ts';
import type { Patch } from './crud.ts';

interface Named {
  metadata: { name?: string; namespace?: string };
}

function key(o: Named): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
}

/** The update-path patch of two object lists. */
export function diffByName<O extends Named>(
  current: readonly O[],
  desired: readonly O[],
  modified: (current: O, desired: O) => boolean,
): Required<Patch<O[]>> {
  const cur = new Map(current.map((o) => [key(o), o]));
  const des = new Map(desired.map((o) => [key(o), o]));
  const create = desired.filter((o) => !cur.has(key(o)));
  const del = current.filter((o) => !des.has(key(o)));
  const update: O[] = [];
  for (const d of desired) {
    const c = cur.get(key(d));
    if (c && modified(c, d)) update.push(d);
  }
  return { create, delete: del, update };
}

/** The delete-path patch: only objects that are both present and ours to delete. */
export function intersectByName<O extends Named>(current: readonly O[], desired: readonly O[]): O[] {
  const des = new Set(desired.map(key));
  return current.filter((o) => des.has(key(o)));
}

/** Creating what already exists, or deleting what is gone, is success: the state is as wanted. */
export async function ignoreAlreadyExists<R>(p: Promise<R>): Promise<R | undefined> {
  try {
    return await p;
  } catch (e) {
    if (isAlreadyExists(e)) return undefined;
    throw e;
  }
}

export async function ignoreNotFound<R>(p: Promise<R>): Promise<R | undefined> {
  try {
    return await p;
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}
