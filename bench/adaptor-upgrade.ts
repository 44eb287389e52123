// CAA#3055 ("a routine CAA daemonset update disrupts every peer pod workload on the node"), measured:
// ADAPTOR_UPGRADE_PODS (default 50) peer pods running over ADAPTOR_UPGRADE_NODES (default 4) nodes of
// `peerpods start`'s stack (simulated cloud, every operator a process pod), then the operator upgrade
// that changes the adaptor image (the PeerPodConfig controller's --adaptor-image; its DaemonSet rolls
// with maxUnavailable 1), then one adaptor SIGKILLed. Counted from outside the adaptor: peer pods
// disrupted (deleted, not Running, Ready not True, a container restart), writes to them, PeerPods
// changed, and VMs created or deleted by the simulated cloud's own ledger. Target: 0 disrupted.
import { round } from './common.ts';
import { watchForDisruption } from '../test/cli/start/adaptor-rollout/disruption.ts';
import type { DisruptionReport } from '../test/cli/start/adaptor-rollout/disruption.ts';
import {
  APP_NAMESPACE,
  rolloutBaseline,
  runPeerPods,
  setAdaptorImage,
  sigkillAdaptor,
  startRolloutWorld,
  waitForAdaptorRollout,
} from '../test/cli/start/adaptor-rollout/world.ts';

const PODS = Number(process.env.ADAPTOR_UPGRADE_PODS ?? 50);
const NODES = Number(process.env.ADAPTOR_UPGRADE_NODES ?? 4);

export interface DisruptionFigures {
  disruptedPods: number;
  /** The first few, as `pod: what was seen`. */
  disruptedDetails: string[];
  podWrites: number;
  peerPodChanges: number;
  vmsCreated: number;
  vmsDeleted: number;
}

export interface AdaptorUpgradeResults {
  pods: number;
  nodes: number;
  podsRunningSeconds: number;
  upgrade: DisruptionFigures & {
    /** The DaemonSet's template changed → every node runs a new Ready adaptor, no old one left. */
    rolloutSeconds: number;
    /** From the controller's Deployment patch (the controller itself rolls first). */
    triggerToDoneSeconds: number;
    adaptorsReplaced: number;
  };
  sigkill: DisruptionFigures & { restartedReadySeconds: number };
  met: boolean;
}

function figures(r: DisruptionReport): DisruptionFigures {
  return {
    disruptedPods: r.disruptedPods.size,
    disruptedDetails: [...r.disruptedPods].slice(0, 3).map(([pod, why]) => `${pod}: ${why}`),
    podWrites: [...r.podWrites.values()].reduce((a, b) => a + b, 0),
    peerPodChanges: r.peerPodChanges.length,
    vmsCreated: r.vmsCreated,
    vmsDeleted: r.vmsDeleted.length,
  };
}

const undisturbed = (f: DisruptionFigures): boolean =>
  f.disruptedPods === 0 && f.podWrites === 0 && f.peerPodChanges === 0 && f.vmsCreated === 0 && f.vmsDeleted === 0;

export async function runAdaptorUpgradeBench(log: (s: string) => void): Promise<AdaptorUpgradeResults> {
  const w = await startRolloutWorld({ nodes: NODES, limit: PODS * 2 });
  try {
    const t0 = Date.now();
    await runPeerPods(w, PODS, 180_000);
    const podsRunningSeconds = round((Date.now() - t0) / 1000, 2);
    log(`adaptor-upgrade: ${PODS} peer pods Running in ${podsRunningSeconds} s; upgrading the adaptor image`);

    const baseline = await rolloutBaseline(w.client);
    let watch = await watchForDisruption(w.client, APP_NAMESPACE, w.cloudDir);
    const t1 = Date.now();
    await setAdaptorImage(w.client, 'ghcr.io/peerpods/peerpods:next');
    const timing = await waitForAdaptorRollout(w.client, baseline, 300_000);
    const upgrade = {
      ...figures(await watch.stop()),
      rolloutSeconds: round((timing.doneAt - timing.templateChangedAt) / 1000, 2),
      triggerToDoneSeconds: round((timing.doneAt - t1) / 1000, 2),
      adaptorsReplaced: timing.replaced,
    };
    log(`adaptor-upgrade: rolled out in ${upgrade.rolloutSeconds} s, ${upgrade.disruptedPods} pods disrupted`);

    watch = await watchForDisruption(w.client, APP_NAMESPACE, w.cloudDir);
    const t2 = Date.now();
    await sigkillAdaptor(w.client, w.local.nodes[0], 60_000);
    const sigkill = { ...figures(await watch.stop()), restartedReadySeconds: round((Date.now() - t2) / 1000, 2) };
    return {
      pods: PODS,
      nodes: NODES,
      podsRunningSeconds,
      upgrade,
      sigkill,
      met: undisturbed(upgrade) && undisturbed(sigkill),
    };
  } finally {
    await w.stop();
  }
}
