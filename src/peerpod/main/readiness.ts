// "Ready" for the local stack: the sample PeerPodConfig reports Ready (capacity advertised, webhook
// objects in place), every node offers pod VMs, an adaptor pod is Ready on every node, the webhook's
// Service has a ready endpoint (a peer pod created now is mutated) and every replica of the webhook
// and operator Deployments is available.
import { DaemonSets, Deployments, Endpoints, Nodes } from '../../runtime/index.ts';
import type { KubeClient, KubeObject } from '../../runtime/index.ts';
import { PeerPodConfigs } from '../api/index.ts';
import type { PeerPodConfig } from '../api/index.ts';
import { ADAPTOR_DAEMONSET, WEBHOOK_DEPLOYMENT, WEBHOOK_SERVICE } from '../controllers/index.ts';
import { DEFAULT_EXTENDED_RESOURCE } from '../webhook/index.ts';
import { SAMPLE_CONFIG_NAME } from './settings.ts';

interface NodeObject extends KubeObject {
  status?: { allocatable?: Record<string, string> };
}

export async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface WorkloadObject extends KubeObject {
  spec?: { replicas?: number };
  status?: { availableReplicas?: number; numberReady?: number };
}

/** Every replica available, not just one: `kubectl get pods` then shows each of them Ready. */
function isAvailable(d: WorkloadObject): boolean {
  return (d.status?.availableReplicas ?? 0) >= Math.max(1, d.spec?.replicas ?? 1);
}

interface EndpointsObject extends KubeObject {
  subsets?: Array<{ addresses?: unknown[] }>;
}

export async function waitForStackReady(
  client: KubeClient,
  o: {
    namespace: string;
    nodes: string[];
    deployments?: string[];
    timeoutMs?: number;
    /** Told each condition as it holds (start-up timings). */
    progress?: (what: string) => void;
  },
): Promise<void> {
  const timeoutMs = o.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  const left = () => Math.max(1, deadline - Date.now());
  const wait = async (what: string, check: () => Promise<boolean>): Promise<void> => {
    await until(what, check, left());
    o.progress?.(what);
  };
  await wait(`PeerPodConfig ${o.namespace}/${SAMPLE_CONFIG_NAME} to be Ready`, async () => {
    const cfg = await client.get<PeerPodConfig>(PeerPodConfigs, SAMPLE_CONFIG_NAME, o.namespace);
    return (cfg.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
  });
  await wait(`${DEFAULT_EXTENDED_RESOURCE} on nodes ${o.nodes.join(', ')}`, async () => {
    const { items } = await client.list<NodeObject>(Nodes);
    return o.nodes.every((n) =>
      items.some((i) => i.metadata.name === n && Number(i.status?.allocatable?.[DEFAULT_EXTENDED_RESOURCE] ?? 0) > 0),
    );
  });
  await wait(
    `an adaptor pod Ready on each of the ${o.nodes.length} nodes (DaemonSet ${ADAPTOR_DAEMONSET})`,
    async () => {
      const ds = await client.get<WorkloadObject>(DaemonSets, ADAPTOR_DAEMONSET, o.namespace);
      return (ds.status?.numberReady ?? 0) >= o.nodes.length;
    },
  );
  await wait(`a ready endpoint of Service ${WEBHOOK_SERVICE}`, async () => {
    const ep = await client.get<EndpointsObject>(Endpoints, WEBHOOK_SERVICE, o.namespace);
    return (ep.subsets ?? []).some((s) => (s.addresses ?? []).length > 0);
  });
  for (const name of [WEBHOOK_DEPLOYMENT, ...(o.deployments ?? [])]) {
    await wait(`Deployment ${name} Available`, async () =>
      isAvailable(await client.get<WorkloadObject>(Deployments, name, o.namespace)),
    );
  }
}
