// Shared setup of the scheduler and node tests: pods and nodes written through the store.
import type { TestCluster } from '../../../helpers/control-plane.ts';
import { eventually } from '../../../helpers/control-plane.ts';
import { internalContext } from '../../../../src/kube/registry/context.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';

export const ctx = internalContext('test');

/** `eventually` for checks that return the value they waited for. */
export async function until<T>(
  check: () => T | undefined | null | false,
  opts: { timeoutMs?: number; what?: string } = {},
): Promise<T> {
  return (await eventually(check, opts)) as T;
}

export function defs(cp: TestCluster) {
  const { catalog } = cp.internals;
  return {
    pods: catalog.lookup('', 'v1', 'pods')!,
    nodes: catalog.lookup('', 'v1', 'nodes')!,
    events: catalog.lookup('', 'v1', 'events')!,
    leases: catalog.lookup('coordination.k8s.io', 'v1', 'leases')!,
  };
}

export async function createPod(cp: TestCluster, name: string, spec: JsonObject = {}, ns = 'default'): Promise<void> {
  await cp.internals.store.create(
    defs(cp).pods,
    ns,
    { metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } },
    ctx,
  );
}

export function getPod(cp: TestCluster, name: string, ns = 'default'): JsonObject {
  return cp.internals.store.get(defs(cp).pods, ns, name);
}

export function nodeOf(cp: TestCluster, name: string, ns = 'default'): string | undefined {
  return (getPod(cp, name, ns).spec as { nodeName?: string }).nodeName;
}

export async function boundNode(cp: TestCluster, name: string, ns = 'default'): Promise<string> {
  return until(() => nodeOf(cp, name, ns), { what: `pod ${name} bound` });
}

export function scheduledCondition(cp: TestCluster, name: string, ns = 'default'): JsonObject | undefined {
  const status = (getPod(cp, name, ns).status ?? {}) as { conditions?: JsonObject[] };
  return status.conditions?.find((c) => c.type === 'PodScheduled');
}

/** Waits for PodScheduled=False and returns its message. */
export async function unschedulableMessage(cp: TestCluster, name: string, ns = 'default'): Promise<string> {
  const cond = await until(
    () => {
      const c = scheduledCondition(cp, name, ns);
      return c?.status === 'False' && c.reason === 'Unschedulable' ? c : undefined;
    },
    { what: `pod ${name} unschedulable` },
  );
  return String(cond.message);
}

export async function updateNode(cp: TestCluster, name: string, mutate: (n: JsonObject) => void, sub?: string) {
  await cp.internals.store.updateWith(
    defs(cp).nodes,
    undefined,
    name,
    ctx,
    (n) => {
      mutate(n);
      return n;
    },
    sub,
  );
}

export async function labelNode(cp: TestCluster, name: string, labels: Record<string, string>): Promise<void> {
  await updateNode(cp, name, (n) => {
    const meta = n.metadata as { labels?: Record<string, string> };
    meta.labels = { ...meta.labels, ...labels };
  });
}

export function eventsFor(cp: TestCluster, pod: string, ns = 'default'): JsonObject[] {
  return cp.internals.storage
    .list(`/core/events/${ns}/`)
    .map((s) => JSON.parse(s.json) as JsonObject)
    .filter((e) => (e.involvedObject as { name?: string }).name === pod);
}
