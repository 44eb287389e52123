// An in-memory API for helper tests: resourceVersions, 409 on stale merge patches, 422 on a failed
// JSON-patch `test`, a status subresource, and a log of every write.
import jsonpatch from 'fast-json-patch';
import { ApiError } from '../../../src/runtime/client/errors.ts';
import type { KubeObject, PatchType, ResourceType } from '../../../src/runtime/client/types.ts';
import type { HelperClient } from '../../../src/runtime/helpers/index.ts';

function mergeApply(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as object) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergeApply(out[k], v);
  }
  return out;
}

export class FakeApi implements HelperClient {
  readonly objects = new Map<string, KubeObject>();
  readonly writes: Array<{ verb: string; name: string; patchType?: PatchType; subresource?: string; body: unknown }> =
    [];
  private rv = 100;
  /** Called before each write; lets a test change the object behind the caller's back. */
  beforeWrite: (() => void) | undefined;

  seed(obj: KubeObject): KubeObject {
    const o = structuredClone(obj);
    o.metadata.resourceVersion = String(++this.rv);
    o.metadata.uid ??= `uid-${o.metadata.name}`;
    this.objects.set(this.key(o.metadata.namespace, o.metadata.name as string), o);
    return structuredClone(o);
  }

  /** Simulates another writer. */
  touch(ns: string | undefined, name: string, edit: (o: KubeObject) => void): void {
    const o = this.objects.get(this.key(ns, name)) as KubeObject;
    edit(o);
    o.metadata.resourceVersion = String(++this.rv);
  }

  stored(ns: string | undefined, name: string): KubeObject | undefined {
    const o = this.objects.get(this.key(ns, name));
    return o && structuredClone(o);
  }

  get: HelperClient['get'] = async <T extends KubeObject>(_t: ResourceType, name: string, ns?: string) => {
    const o = this.objects.get(this.key(ns, name));
    if (!o) throw new ApiError(404, 'NotFound', `"${name}" not found`);
    return structuredClone(o) as T;
  };

  create: HelperClient['create'] = async <T extends KubeObject>(_t: ResourceType, obj: T) => {
    this.beforeWrite?.();
    const key = this.key(obj.metadata.namespace, obj.metadata.name as string);
    this.writes.push({ verb: 'create', name: obj.metadata.name as string, body: structuredClone(obj) });
    if (this.objects.has(key)) throw new ApiError(409, 'AlreadyExists', 'already exists');
    const { status: _dropped, ...rest } = structuredClone(obj) as KubeObject;
    return this.seed(rest as KubeObject) as T;
  };

  patch: HelperClient['patch'] = async <T extends KubeObject>(
    _t: ResourceType,
    name: string,
    ns: string | undefined,
    patch: unknown,
    patchType: PatchType,
    opts: { subresource?: string } = {},
  ) => {
    this.beforeWrite?.();
    this.writes.push({
      verb: 'patch',
      name,
      patchType,
      ...(opts.subresource ? { subresource: opts.subresource } : {}),
      body: structuredClone(patch),
    });
    const key = this.key(ns, name);
    const cur = this.objects.get(key);
    if (!cur) throw new ApiError(404, 'NotFound', `"${name}" not found`);
    let next: KubeObject;
    if (patchType === 'json') {
      try {
        next = jsonpatch.applyPatch(structuredClone(cur), patch as jsonpatch.Operation[], true, false).newDocument;
      } catch (e) {
        throw new ApiError(
          422,
          'Invalid',
          `the server rejected our request due to an error in our request: ${(e as Error).message}`,
        );
      }
    } else if (patchType === 'merge') {
      const p = patch as { metadata?: { resourceVersion?: string } };
      if (p.metadata?.resourceVersion && p.metadata.resourceVersion !== cur.metadata.resourceVersion) {
        throw new ApiError(
          409,
          'Conflict',
          'the object has been modified; please apply your changes to the latest version and try again',
        );
      }
      next = mergeApply(structuredClone(cur), patch) as KubeObject;
    } else {
      throw new Error(`FakeApi: ${patchType} patch not supported`);
    }
    if (opts.subresource === 'status') next = { ...cur, status: next.status };
    else next = { ...next, status: cur.status };
    if (next.status === undefined) delete next.status;
    next.metadata.resourceVersion = String(++this.rv);
    if ((next.metadata.finalizers ?? []).length === 0 && cur.metadata.deletionTimestamp) {
      this.objects.delete(key);
      return structuredClone(next) as T;
    }
    this.objects.set(key, next);
    return structuredClone(next) as T;
  };

  private key(ns: string | undefined, name: string): string {
    return `${ns ?? ''}/${name}`;
  }
}
