// Taking a node's adaptor down the way one would on a real cluster: the node gets a NoSchedule taint
// the adaptor DaemonSet does not tolerate, so once its pod is deleted the DaemonSet controller does
// not put a new one there (kube's NodeShouldRunDaemonPod); removing the taint brings it back.
import { Nodes, Pods } from '../../runtime/index.ts';
import type { KubeClient, KubeObject } from '../../runtime/index.ts';
import { ADAPTOR_DAEMONSET } from '../controllers/index.ts';
import { until } from '../main/index.ts';

export const ADAPTOR_DOWN_TAINT = 'peerpods.io/adaptor-down';

interface Taint {
  key: string;
  value?: string;
  effect: string;
}

interface PodView extends KubeObject {
  spec: { nodeName?: string };
  status?: { conditions?: Array<{ type: string; status: string }> };
}

async function setTaint(client: KubeClient, node: string, on: boolean): Promise<void> {
  const n = await client.get<KubeObject & { spec?: { taints?: Taint[] } }>(Nodes, node);
  const others = (n.spec?.taints ?? []).filter((t) => t.key !== ADAPTOR_DOWN_TAINT);
  const taints = on ? [...others, { key: ADAPTOR_DOWN_TAINT, effect: 'NoSchedule' }] : others;
  await client.patch(Nodes, node, undefined, { spec: { taints } }, 'merge');
}

async function adaptorPodsOn(client: KubeClient, namespace: string, node: string): Promise<PodView[]> {
  const { items } = await client.list<PodView>(Pods, { namespace, labelSelector: `name=${ADAPTOR_DAEMONSET}` });
  return items.filter((p) => p.spec.nodeName === node);
}

/** Taints the node, deletes its adaptor pod and waits until the pod (and its process) is gone. */
export async function takeAdaptorDown(
  client: KubeClient,
  namespace: string,
  node: string,
  timeoutMs: number,
): Promise<void> {
  await setTaint(client, node, true);
  for (const p of await adaptorPodsOn(client, namespace, node)) {
    await client.delete(Pods, p.metadata.name as string, namespace);
  }
  await until(
    `the adaptor pod on ${node} gone`,
    async () => (await adaptorPodsOn(client, namespace, node)).length === 0,
    timeoutMs,
  );
}

/** Removes the taint and waits for a Ready adaptor pod on the node. */
export async function bringAdaptorBack(
  client: KubeClient,
  namespace: string,
  node: string,
  timeoutMs: number,
): Promise<void> {
  await setTaint(client, node, false);
  await until(
    `a Ready adaptor pod on ${node}`,
    async () =>
      (await adaptorPodsOn(client, namespace, node)).some(
        (p) =>
          !p.metadata.deletionTimestamp &&
          (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
      ),
    timeoutMs,
  );
}
