// The fault campaign of test/e2e/fault-campaign.test.ts, run long: the same driver
// (test/helpers/fault-campaign/) on `peerpods start --provider qemu`, 800 ms of provider latency per
// create and per delete, 1–2 faults per cycle (adaptors, the PeerPod controller, the webhook:
// SIGKILL or force-delete), until FAULT_CAMPAIGN_BUDGET_S (default 600) of campaign time or
// FAULT_CAMPAIGN_CYCLES (default 10,000) cycles. FAULT_CAMPAIGN_SEED replays a run (default: a fixed
// seed, so two runs make the same plans). The figures are counts, not timed targets: every leak,
// duplicate, stuck finalizer or stuck pod is a defect, listed in the results with its cycle.
import { loadavg } from 'node:os';
import { runFaultCampaign } from '../test/helpers/fault-campaign/campaign.ts';
import type { CampaignReport } from '../test/helpers/fault-campaign/campaign.ts';
import { campaignSettings } from '../test/helpers/fault-campaign/settings.ts';
import { percentile, round } from './common.ts';

const LATENCY_MS = 800;

export interface FaultCampaignResults {
  seed: number;
  latencyMs: number;
  cycles: number;
  podsCreated: number;
  podsDeleted: number;
  podsForceDeleted: number;
  vmsSeen: number;
  kills: CampaignReport['kills'];
  killsTotal: number;
  leaked: number;
  duplicates: number;
  stuckFinalizers: number;
  stuckPods: number;
  podsWithVmReplaced: number;
  cycleP50Ms: number;
  cycleP90Ms: number;
  cycleMaxMs: number;
  campaignSeconds: number;
  startSeconds: number;
  stopSeconds: number;
  stopExitCode: number | null;
  survivors: string[];
  aborted?: string;
  /** Every violation, prefixed with its cycle. */
  details: string[];
  loadAverageAtStart: number[];
}

export async function runFaultCampaignBench(log: (line: string) => void): Promise<FaultCampaignResults> {
  const settings = campaignSettings({ seed: 15, cycles: 10_000, budgetS: 600 });
  const loadAverageAtStart = loadavg().map((l) => round(l, 2));
  const r = await runFaultCampaign({
    ...settings,
    createLatencyMs: LATENCY_MS,
    deleteLatencyMs: LATENCY_MS,
    log: (line) => log(`  ${line}`),
  });
  const sorted = [...r.cycleMs].sort((a, b) => a - b);
  const v = r.violations;
  return {
    seed: r.seed,
    latencyMs: LATENCY_MS,
    cycles: r.cycles,
    podsCreated: r.podsCreated,
    podsDeleted: r.podsDeleted,
    podsForceDeleted: r.podsForceDeleted,
    vmsSeen: r.vmsSeen,
    kills: r.kills,
    killsTotal: Object.values(r.kills).reduce((n, k) => n + k.sigkill + k.delete, 0),
    leaked: v.leaked.length,
    duplicates: v.duplicates.length,
    stuckFinalizers: v.stuckFinalizers.length,
    stuckPods: v.stuckPods.length,
    podsWithVmReplaced: r.podsWithVmReplaced,
    cycleP50Ms: percentile(sorted, 50),
    cycleP90Ms: percentile(sorted, 90),
    cycleMaxMs: sorted.at(-1) ?? NaN,
    campaignSeconds: round(r.campaignSeconds),
    startSeconds: round(r.startSeconds),
    stopSeconds: round(r.stopSeconds),
    stopExitCode: r.stopExitCode,
    survivors: r.survivors,
    ...(r.aborted ? { aborted: r.aborted } : {}),
    details: [...v.leaked, ...v.duplicates, ...v.stuckFinalizers, ...v.stuckPods],
    loadAverageAtStart,
  };
}
