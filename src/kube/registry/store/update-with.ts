// Read-modify-write for the built-in controllers: retries on concurrent writes and skips the
// write when `mutate` returns undefined.
import { conflict, StatusError } from '../../../apimachinery/errors/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { cloneJson } from '../../../apimachinery/json/index.ts';
import { RevisionMismatchError } from '../../storage/storage.ts';
import type { RequestContext } from '../context.ts';
import type { ResourceDef } from '../resource.ts';
import { commitUpdate } from './commit-update.ts';
import type { StoreContext } from './context.ts';
import { getStored } from './get.ts';
import { parseStored, refOf } from './objects.ts';
import { served } from './presentation.ts';

const UPDATE_WITH_ATTEMPTS = 20;

export async function updateWith(
  store: StoreContext,
  def: ResourceDef,
  namespace: string | undefined,
  name: string,
  ctx: RequestContext,
  mutate: (obj: JsonObject) => JsonObject | undefined,
  subresource?: string,
): Promise<JsonObject | undefined> {
  for (let attempt = 0; attempt < UPDATE_WITH_ATTEMPTS; attempt++) {
    const stored = getStored(store, def, namespace, name);
    if (!stored) return undefined;
    const current = await served(def, parseStored(stored));
    const next = mutate(cloneJson(current));
    if (!next) return current;
    try {
      const target = { namespace, name, stored, subresource, retryable: true };
      const r = await commitUpdate(store, def, target, current, next, ctx);
      return r.object;
    } catch (e) {
      if (e instanceof RevisionMismatchError) continue;
      if (e instanceof StatusError && e.code === 404) return undefined;
      throw e;
    }
  }
  throw conflict(refOf(def), name);
}
