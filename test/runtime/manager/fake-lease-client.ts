// An in-memory Lease store with the API server's optimistic concurrency (409 on a stale
// resourceVersion), and per-client "partitions" that make every call fail.
import { ApiError } from '../../../src/runtime/client/errors.ts';
import type { KubeObject, ResourceType } from '../../../src/runtime/client/types.ts';
import type { LeaseClient } from '../../../src/runtime/manager/leader-election.ts';

export class FakeLeaseStore {
  readonly objects = new Map<string, KubeObject>();
  private rv = 0;
  readonly writes: KubeObject[] = [];

  client(): LeaseClient & { partitioned: boolean } {
    const store: FakeLeaseStore = this; // eslint-disable-line @typescript-eslint/no-this-alias -- the returned client's methods are plain functions
    const c = {
      partitioned: false,
      async get<T extends KubeObject>(_t: ResourceType, name: string, ns?: string): Promise<T> {
        if (c.partitioned) throw new Error('connect ECONNREFUSED');
        const o = store.objects.get(`${ns}/${name}`);
        if (!o) throw new ApiError(404, 'NotFound', `leases "${name}" not found`);
        return structuredClone(o) as T;
      },
      async create<T extends KubeObject>(_t: ResourceType, obj: T): Promise<T> {
        if (c.partitioned) throw new Error('connect ECONNREFUSED');
        const key = `${obj.metadata.namespace}/${obj.metadata.name}`;
        if (store.objects.has(key)) throw new ApiError(409, 'AlreadyExists', 'already exists');
        return store.put(key, obj) as T;
      },
      async update<T extends KubeObject>(_t: ResourceType, obj: T): Promise<T> {
        if (c.partitioned) throw new Error('connect ECONNREFUSED');
        const key = `${obj.metadata.namespace}/${obj.metadata.name}`;
        const cur = store.objects.get(key);
        if (!cur) throw new ApiError(404, 'NotFound', 'not found');
        if (cur.metadata.resourceVersion !== obj.metadata.resourceVersion) {
          throw new ApiError(409, 'Conflict', 'the object has been modified');
        }
        return store.put(key, obj) as T;
      },
    };
    return c;
  }

  private put(key: string, obj: KubeObject): KubeObject {
    const stored = structuredClone(obj);
    stored.metadata.resourceVersion = String(++this.rv);
    this.objects.set(key, stored);
    this.writes.push(structuredClone(stored));
    return structuredClone(stored);
  }
}
