// The CRUD handler: compute the current and the desired state, turn the pair into create, delete
// and update changes, apply them in that order. Each step is a pure function or one write, so
// every diff is a table test and every write is obvious. Cancel flags are honoured between steps.
import type { HandlerContext, ResourceHandler } from './types.ts';

/** What to change. An absent (or empty) part means "nothing of that kind". */
export interface Patch<S> {
  create?: S;
  delete?: S;
  update?: S;
}

export interface CrudResource<T, S> {
  readonly name: string;
  currentState(obj: T, ctx: HandlerContext): Promise<S>;
  desiredState(obj: T, ctx: HandlerContext): Promise<S>;
  /** On the update path. Default: {@link Patch} from {@link CrudResource.diff}. */
  updatePatch(obj: T, current: S, desired: S, ctx: HandlerContext): Promise<Patch<S>> | Patch<S>;
  /** On the delete path; return `{}` to leave everything to garbage collection. */
  deletePatch(obj: T, current: S, desired: S, ctx: HandlerContext): Promise<Patch<S>> | Patch<S>;
  applyCreate(obj: T, change: S, ctx: HandlerContext): Promise<void>;
  applyDelete(obj: T, change: S, ctx: HandlerContext): Promise<void>;
  applyUpdate(obj: T, change: S, ctx: HandlerContext): Promise<void>;
}

function isEmpty(change: unknown): boolean {
  if (change === undefined || change === null) return true;
  if (Array.isArray(change)) return change.length === 0;
  return false;
}

async function run<T, S>(r: CrudResource<T, S>, obj: T, ctx: HandlerContext, del: boolean): Promise<void> {
  const stop = (): boolean => ctx.handlerCanceled || ctx.reconciliationCanceled || ctx.signal.aborted;
  const current = await r.currentState(obj, ctx);
  if (stop()) return;
  const desired = await r.desiredState(obj, ctx);
  if (stop()) return;
  const patch = del ? await r.deletePatch(obj, current, desired, ctx) : await r.updatePatch(obj, current, desired, ctx);
  if (stop()) return;
  if (!isEmpty(patch.create)) await r.applyCreate(obj, patch.create as S, ctx);
  if (stop()) return;
  if (!isEmpty(patch.delete)) await r.applyDelete(obj, patch.delete as S, ctx);
  if (stop()) return;
  if (!isEmpty(patch.update)) await r.applyUpdate(obj, patch.update as S, ctx);
}

/** Turns a {@link CrudResource} into a {@link ResourceHandler}. */
export function crudHandler<T, S>(resource: CrudResource<T, S>): ResourceHandler<T> {
  return {
    name: resource.name,
    ensureCreated: (obj, ctx) => run(resource, obj, ctx, false),
    ensureDeleted: (obj, ctx) => run(resource, obj, ctx, true),
  };
}
