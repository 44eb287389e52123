// What "the adaptor's rollout disrupted nothing" means, measured from outside the adaptor: every
// peer pod seen through one watch from before the rollout to after it (a pod that is deleted, leaves
// Running, has its Ready condition or a container go not ready, or counts a container restart is
// disrupted), every PeerPod through another (deleted, or its instanceID changed), and the simulated
// cloud's own ledger (one claimed id per VM ever created, one file per live VM).
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { Pods } from '../../../../src/runtime/index.ts';
import type { KubeClient, KubeObject } from '../../../../src/runtime/index.ts';
import { PeerPods } from '../../../../src/peerpod/index.ts';

interface PodStatus {
  phase?: string;
  conditions?: Array<{ type: string; status: string }>;
  containerStatuses?: Array<{ name: string; ready?: boolean; restartCount?: number; state?: { running?: unknown } }>;
}

/** Why a peer pod is not running undisturbed, or undefined when it is. */
export function podDisruption(pod: KubeObject): string | undefined {
  if (pod.metadata.deletionTimestamp) return 'being deleted';
  const st = (pod.status ?? {}) as PodStatus;
  if (st.phase !== 'Running') return `phase ${st.phase ?? '(none)'}`;
  const ready = st.conditions?.find((c) => c.type === 'Ready')?.status;
  if (ready !== 'True') return `Ready ${ready ?? '(absent)'}`;
  if (!st.containerStatuses?.length) return 'no container status';
  for (const c of st.containerStatuses) {
    if ((c.restartCount ?? 0) > 0) return `container ${c.name} restartCount ${c.restartCount}`;
    if (!c.ready) return `container ${c.name} not ready`;
    if (c.state?.running === undefined) return `container ${c.name} not running`;
  }
  return undefined;
}

/** The simulated cloud's record: ids ever claimed (one per VM created) and the live VMs. */
export interface CloudLedger {
  created: number;
  live: string[];
}

export function simulatedLedger(stateDir: string): CloudLedger {
  return {
    created: readdirSync(path.join(stateDir, 'ids')).length,
    live: readdirSync(stateDir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -'.json'.length))
      .sort(),
  };
}

export interface DisruptionReport {
  /** Peer pods seen disrupted at least once, with the first thing seen. */
  disruptedPods: Map<string, string>;
  /** Writes to each peer pod while watched (a re-adopting adaptor writes none). */
  podWrites: Map<string, number>;
  /** PeerPods deleted or pointed at another VM. */
  peerPodChanges: string[];
  vmsCreated: number;
  vmsDeleted: string[];
}

/**
 * Watches `namespace`'s peer pods and PeerPods from the state listed at start (which must be
 * undisturbed) until `stop()`, then compares the cloud's ledger with the one taken at start.
 */
export async function watchForDisruption(
  client: KubeClient,
  namespace: string,
  cloudStateDir: string,
): Promise<{ disrupted(): ReadonlyMap<string, string>; stop(): Promise<DisruptionReport> }> {
  const abort = new AbortController();
  const disruptedPods = new Map<string, string>();
  const peerPodChanges: string[] = [];
  const podWrites = new Map<string, number>();
  const note = (name: string, why: string | undefined): void => {
    if (why && !disruptedPods.has(name)) disruptedPods.set(name, why);
  };
  const pods = await client.list(Pods, { namespace });
  for (const p of pods.items) {
    const why = podDisruption(p);
    if (why) throw new Error(`pod ${p.metadata.name} is not running undisturbed before the rollout: ${why}`);
  }
  const peerPods = await client.list<KubeObject & { spec?: { instanceID?: string } }>(PeerPods, { namespace });
  const instanceOf = new Map(peerPods.items.map((pp) => [pp.metadata.name as string, pp.spec?.instanceID]));
  const before = simulatedLedger(cloudStateDir);

  const opened: Array<Promise<void>> = [];
  const follow = (what: string, run: (onOpen: () => void) => Promise<void>): Promise<void> => {
    let open!: () => void;
    opened.push(new Promise<void>((resolve) => (open = resolve)));
    return run(open).catch((err: unknown) => {
      if (!abort.signal.aborted) peerPodChanges.push(`${what} watch failed: ${(err as Error).message}`);
    });
  };
  const podWatch = follow('pod', async (onOpen) => {
    const events = client.watch<KubeObject>(Pods, {
      namespace,
      resourceVersion: pods.resourceVersion,
      signal: abort.signal,
      onOpen,
    });
    for await (const ev of events) {
      if (ev.type === 'BOOKMARK' || ev.type === 'ERROR') continue;
      const name = ev.object.metadata.name as string;
      if (ev.type === 'MODIFIED') podWrites.set(name, (podWrites.get(name) ?? 0) + 1);
      note(name, ev.type === 'DELETED' ? 'deleted' : podDisruption(ev.object));
    }
  });
  const peerPodWatch = follow('PeerPod', async (onOpen) => {
    const events = client.watch<KubeObject & { spec?: { instanceID?: string } }>(PeerPods, {
      namespace,
      resourceVersion: peerPods.resourceVersion,
      signal: abort.signal,
      onOpen,
    });
    for await (const ev of events) {
      if (ev.type === 'BOOKMARK' || ev.type === 'ERROR') continue;
      const name = ev.object.metadata.name as string;
      if (ev.type === 'DELETED' || ev.object.metadata.deletionTimestamp) peerPodChanges.push(`PeerPod ${name} deleted`);
      else if (ev.object.spec?.instanceID !== instanceOf.get(name)) {
        peerPodChanges.push(`PeerPod ${name}: instanceID ${instanceOf.get(name)} → ${ev.object.spec?.instanceID}`);
      }
    }
  });
  await Promise.all(opened);
  return {
    disrupted: () => disruptedPods,
    async stop() {
      abort.abort();
      await Promise.all([podWatch, peerPodWatch]);
      // The end state too, read afresh: nothing the watches had not delivered yet is missed.
      const now = new Map((await client.list(Pods, { namespace })).items.map((p) => [p.metadata.name as string, p]));
      for (const p of pods.items) {
        const name = p.metadata.name as string;
        const cur = now.get(name);
        note(name, cur ? podDisruption(cur) : 'deleted');
        if (cur && cur.metadata.resourceVersion !== p.metadata.resourceVersion && !podWrites.has(name)) {
          podWrites.set(name, 1);
        }
      }
      const ppNow = new Map(
        (await client.list<KubeObject & { spec?: { instanceID?: string } }>(PeerPods, { namespace })).items.map(
          (pp) => [pp.metadata.name as string, pp],
        ),
      );
      for (const [name, id] of instanceOf) {
        const cur = ppNow.get(name);
        if (!cur) peerPodChanges.push(`PeerPod ${name} gone`);
        else if (cur.spec?.instanceID !== id)
          peerPodChanges.push(`PeerPod ${name}: instanceID now ${cur.spec?.instanceID}`);
      }
      const after = simulatedLedger(cloudStateDir);
      const live = new Set(after.live);
      return {
        disruptedPods,
        podWrites,
        peerPodChanges,
        vmsCreated: after.created - before.created,
        vmsDeleted: before.live.filter((id) => !live.has(id)),
      };
    },
  };
}
