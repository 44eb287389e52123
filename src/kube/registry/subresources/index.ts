// The subresources whose logic goes beyond the store's generic verbs: pods/binding,
// pods/eviction and scale. The HTTP layer only routes to them, and in-process controllers (the
// scheduler's binding) go through the same code as clients do. Which half of an object a write
// through /status (or /binding, /finalize) may change is status.ts, applied by the store.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { RequestContext } from '../context.ts';
import type { ResourceDef } from '../resource.ts';
import type { ObjectStore } from '../store/index.ts';
import { bindPod } from './binding.ts';
import { PodEvictions } from './eviction.ts';
import { scaleSubresource, type ScaleSubresource } from './scale.ts';

export type { ScaleSubresource } from './scale.ts';

export interface Subresources {
  scale: ScaleSubresource;
  /** POST pods/{name}/binding with a v1 Binding body. */
  bind(
    def: ResourceDef,
    ns: string | undefined,
    name: string,
    binding: JsonObject,
    ctx: RequestContext,
  ): Promise<JsonObject>;
  /** POST pods/{name}/eviction with a policy/v1 (or v1beta1) Eviction body. */
  evict(
    def: ResourceDef,
    ns: string | undefined,
    name: string,
    eviction: unknown,
    ctx: RequestContext,
  ): Promise<JsonObject>;
}

export function createSubresources(store: ObjectStore): Subresources {
  const evictions = new PodEvictions(store);
  return {
    scale: scaleSubresource(store),
    bind: (def, ns, name, binding, ctx) => bindPod(store, def, ns, name, binding, ctx),
    evict: (def, ns, name, eviction, ctx) => evictions.evict(def, ns, name, eviction, ctx),
  };
}
