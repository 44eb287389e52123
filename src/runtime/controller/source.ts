// What a controller needs from an informer. Kept to the few members it uses so tests can pass a
// hand-driven fake, and any SharedInformer fits.
import type { KubeObject } from '../client/types.ts';

export interface ControllerEventHandler<T> {
  onAdd?(obj: T, isInitialList?: boolean): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

export interface ControllerInformer<T extends KubeObject = KubeObject> {
  addHandler(handler: ControllerEventHandler<T>): unknown;
  /** Resolves once the initial list is in the store; rejects when `signal` aborts first. */
  waitForSync(signal?: AbortSignal): Promise<unknown>;
  list(namespace?: string): T[];
  /** The cached object; `namespace` is ignored for cluster-scoped kinds. Read by the object form. */
  get(namespace: string | undefined, name: string): T | undefined;
}
