// "Ready" for the local stack: for each provider, its PeerPodConfig reports Ready (capacity
// advertised, webhook objects in place), every node offers its pod VMs and an adaptor pod of its
// DaemonSet is Ready on every node; the webhook's Service has a ready endpoint (a peer pod created now
// is mutated) and every replica of the webhook and operator Deployments is available.
import { DaemonSets, Deployments, Endpoints, Nodes } from '../../runtime/index.ts';
import type { KubeClient, KubeObject } from '../../runtime/index.ts';
import { PeerPodConfigs } from '../api/index.ts';
import type { PeerPodConfig } from '../api/index.ts';
import {
  ADAPTOR_DAEMONSET,
  WEBHOOK_DEPLOYMENT,
  WEBHOOK_SERVICE,
  adaptorDaemonSetForRuntimeClass,
} from '../controllers/index.ts';
import { DEFAULT_EXTENDED_RESOURCE } from '../webhook/index.ts';
import { RUNTIME_CLASS, SAMPLE_CONFIG_NAME } from './settings.ts';
import type { StackBinding } from './settings.ts';

/** What readiness looks at of a provider's binding. */
export type ReadyBinding = Pick<StackBinding, 'configName' | 'extendedResource' | 'runtimeClassName' | 'primary'>;

const PRIMARY: ReadyBinding = {
  configName: SAMPLE_CONFIG_NAME,
  extendedResource: DEFAULT_EXTENDED_RESOURCE,
  runtimeClassName: RUNTIME_CLASS,
  primary: true,
};

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
    /** The providers' bindings (default: the one sample config). */
    bindings?: ReadyBinding[];
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
  for (const b of o.bindings ?? [PRIMARY]) {
    await wait(`PeerPodConfig ${o.namespace}/${b.configName} to be Ready`, async () => {
      const cfg = await client.get<PeerPodConfig>(PeerPodConfigs, b.configName, o.namespace);
      return (cfg.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
    });
    await wait(`${b.extendedResource} on nodes ${o.nodes.join(', ')}`, async () => {
      const { items } = await client.list<NodeObject>(Nodes);
      return o.nodes.every((n) =>
        items.some((i) => i.metadata.name === n && Number(i.status?.allocatable?.[b.extendedResource] ?? 0) > 0),
      );
    });
    const daemonSet = b.primary ? ADAPTOR_DAEMONSET : adaptorDaemonSetForRuntimeClass(b.runtimeClassName);
    await wait(`an adaptor pod Ready on each of the ${o.nodes.length} nodes (DaemonSet ${daemonSet})`, async () => {
      const ds = await client.get<WorkloadObject>(DaemonSets, daemonSet, o.namespace);
      return (ds.status?.numberReady ?? 0) >= o.nodes.length;
    });
  }
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
