// A hand-driven informer for controller unit tests: the test emits add/update/delete events.
import type { KubeObject } from '../../../src/runtime/client/types.ts';
import type { ControllerEventHandler, ControllerInformer } from '../../../src/runtime/controller/source.ts';

export class FakeInformer<T extends KubeObject = KubeObject> implements ControllerInformer<T> {
  readonly handlers: ControllerEventHandler<T>[] = [];
  readonly store = new Map<string, T>();
  synced = true;
  private syncWaiters: Array<() => void> = [];

  addHandler(h: ControllerEventHandler<T>): void {
    this.handlers.push(h);
  }

  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.syncWaiters.push(resolve);
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  }

  markSynced(): void {
    this.synced = true;
    for (const w of this.syncWaiters.splice(0)) w();
  }

  list(namespace?: string): T[] {
    return [...this.store.values()].filter((o) => namespace === undefined || o.metadata.namespace === namespace);
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.store.get(`${namespace ?? ''}/${name}`);
  }

  add(obj: T, isInitialList = false): void {
    this.store.set(key(obj), obj);
    for (const h of this.handlers) h.onAdd?.(obj, isInitialList);
  }

  update(obj: T): void {
    const old = this.store.get(key(obj)) as T;
    this.store.set(key(obj), obj);
    for (const h of this.handlers) h.onUpdate?.(old, obj);
  }

  delete(obj: T): void {
    this.store.delete(key(obj));
    for (const h of this.handlers) h.onDelete?.(obj);
  }
}

function key(o: KubeObject): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
}

export function obj(
  name: string,
  extra: Partial<KubeObject['metadata']> = {},
  namespace: string | null = 'default',
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Thing',
    metadata: { name, ...(namespace ? { namespace } : {}), resourceVersion: '1', generation: 1, ...extra },
  };
}
