// Shared setup of the eviction tests: raw HTTPS calls, and pods, owners and budgets written
// through the store.
import { eventually, type TestCluster } from '../../../../helpers/control-plane.ts';
import { call, type Reply } from '../../../../helpers/https.ts';
import { internalContext } from '../../../../../src/kube/registry/context.ts';
import type { ResourceDef } from '../../../../../src/kube/registry/resource.ts';
import type { JsonObject } from '../../../../../src/apimachinery/meta/index.ts';

export const ctx = internalContext('test');

export { call, type Reply } from '../../../../helpers/https.ts';

export function evictionPath(ns: string, name: string): string {
  return `/api/v1/namespaces/${ns}/pods/${name}/eviction`;
}

export function eviction(ns: string, name: string, deleteOptions?: JsonObject, apiVersion = 'policy/v1'): JsonObject {
  return {
    apiVersion,
    kind: 'Eviction',
    metadata: { name, namespace: ns },
    ...(deleteOptions ? { deleteOptions } : {}),
  };
}

export function evict(cp: TestCluster, ns: string, name: string, deleteOptions?: JsonObject): Promise<Reply> {
  return call(cp, 'POST', evictionPath(ns, name), eviction(ns, name, deleteOptions));
}

export function def(cp: TestCluster, group: string, resource: string): ResourceDef {
  const d = cp.internals.catalog.all().find((x) => x.group === group && x.resource === resource && !x.storageOf);
  if (!d) throw new Error(`no resource ${resource}.${group}`);
  return d;
}

export async function createNamespace(cp: TestCluster, name: string): Promise<void> {
  await cp.internals.store.create(def(cp, '', 'namespaces'), undefined, { metadata: { name } }, ctx);
}

export interface PodOptions {
  labels?: Record<string, string>;
  nodeName?: string;
  spec?: JsonObject;
  ownerReferences?: JsonObject[];
}

export async function createPod(cp: TestCluster, ns: string, name: string, opts: PodOptions = {}): Promise<JsonObject> {
  return cp.internals.store.create(
    def(cp, '', 'pods'),
    ns,
    {
      metadata: {
        name,
        ...(opts.labels ? { labels: opts.labels } : {}),
        ...(opts.ownerReferences ? { ownerReferences: opts.ownerReferences } : {}),
      },
      spec: {
        containers: [{ name: 'c', image: 'nginx' }],
        ...(opts.nodeName ? { nodeName: opts.nodeName } : {}),
        ...opts.spec,
      },
    },
    ctx,
  );
}

export function findPod(cp: TestCluster, ns: string, name: string): JsonObject | undefined {
  try {
    return cp.internals.store.get(def(cp, '', 'pods'), ns, name);
  } catch {
    return undefined;
  }
}

export function isReady(pod: JsonObject | undefined): boolean {
  const conditions = ((pod?.status as JsonObject | undefined)?.conditions ?? []) as JsonObject[];
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** Creates pods bound to `nodeName` and waits until the simulated kubelet reports them Ready. */
export async function runningPods(
  cp: TestCluster,
  ns: string,
  names: string[],
  opts: PodOptions & { nodeName: string },
): Promise<void> {
  for (const name of names) await createPod(cp, ns, name, opts);
  await eventually(() => names.every((n) => isReady(findPod(cp, ns, n))), {
    what: `pods ${names.join(', ')} Ready`,
    timeoutMs: 15_000,
  });
}

export async function createBudget(cp: TestCluster, ns: string, name: string, spec: JsonObject): Promise<void> {
  await cp.internals.store.create(def(cp, 'policy', 'poddisruptionbudgets'), ns, { metadata: { name }, spec }, ctx);
}

export async function deleteBudget(cp: TestCluster, ns: string, name: string): Promise<void> {
  await cp.internals.store.delete(def(cp, 'policy', 'poddisruptionbudgets'), ns, name, {}, ctx);
}

/** Marks a running pod not Ready, as a failing readiness probe would. */
export async function markUnready(cp: TestCluster, ns: string, name: string): Promise<void> {
  await cp.internals.store.updateWith(
    def(cp, '', 'pods'),
    ns,
    name,
    ctx,
    (pod) => {
      const status = pod.status as JsonObject;
      status.conditions = ((status.conditions ?? []) as JsonObject[]).map((c) =>
        c.type === 'Ready' || c.type === 'ContainersReady' ? { ...c, status: 'False' } : c,
      );
      return pod;
    },
    'status',
  );
}
