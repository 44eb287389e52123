// "Ready" for the local stack: the sample PeerPodConfig reports Ready (capacity advertised, webhook
// objects in place) and every node offers pod VMs.
import { Nodes } from '../../runtime/index.ts';
import type { KubeClient, KubeObject } from '../../runtime/index.ts';
import { PeerPodConfigs } from '../api/index.ts';
import type { PeerPodConfig } from '../api/index.ts';
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

export async function waitForStackReady(
  client: KubeClient,
  o: { namespace: string; nodes: string[]; timeoutMs?: number },
): Promise<void> {
  const timeoutMs = o.timeoutMs ?? 60_000;
  await until(
    `PeerPodConfig ${o.namespace}/${SAMPLE_CONFIG_NAME} to be Ready`,
    async () => {
      const cfg = await client.get<PeerPodConfig>(PeerPodConfigs, SAMPLE_CONFIG_NAME, o.namespace);
      return (cfg.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
    },
    timeoutMs,
  );
  await until(
    `${DEFAULT_EXTENDED_RESOURCE} on nodes ${o.nodes.join(', ')}`,
    async () => {
      const { items } = await client.list<NodeObject>(Nodes);
      return o.nodes.every((n) =>
        items.some((i) => i.metadata.name === n && Number(i.status?.allocatable?.[DEFAULT_EXTENDED_RESOURCE] ?? 0) > 0),
      );
    },
    timeoutMs,
  );
}
