// The fault campaign, short. What it does, exactly:
// - `peerpods start --provider qemu` (2 nodes, every operator a process pod, a real QEMU VM per peer
//   pod, the sample PeerPodConfig's 4 VM slots, the orphan sweep held off so it hides no leak);
// - the provider slowed down to 800 ms per create and per delete for every operator
//   (PROVIDER_*_LATENCY_MS in peer-pods-cm: the VM exists while its create is in flight, and runs on
//   while its delete is);
// - cycles, qemu only, up to 40, while the campaign has run under 70 s and the test under 120 s (the
//   first 3 always): each deletes some live peer pods (a fifth of them force-deleted), creates new
//   ones up to the 4 slots, and kills 1–2 of the adaptors, the PeerPod controller and the webhook
//   replicas at a random moment of the cycle's first 2.6 s (SIGKILL of the pod's processes, the
//   kubelet restarting the container; or the pod force-deleted, its DaemonSet or Deployment
//   replacing it), then must settle within 90 s to 0 leaked VMs, 0 duplicate VMs, 0 stuck
//   finalizers, 0 pods stuck Terminating, every live peer pod Running on its VM (QEMU processes found
//   through /proc);
// - every pod deleted (0 VMs left), SIGTERM to `peerpods start` (exit 0), no process of the run left.
// About 2–3 min on the 2-core machine: start-up takes 20–100 s of it depending on the load, and a
// cycle 5–25 s (a killed adaptor's restart dominates), so a loaded machine runs fewer cycles.
// Seeded: FAULT_CAMPAIGN_SEED=<n> replays a failed run's plans (the seed is in every failure
// message); FAULT_CAMPAIGN_CYCLES and FAULT_CAMPAIGN_BUDGET_S change its length. The long run of
// the same campaign is `npm run bench -- --only fault-campaign`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runFaultCampaign } from '../helpers/fault-campaign/campaign.ts';
import { campaignSettings } from '../helpers/fault-campaign/settings.ts';

describe('fault campaign (qemu, process pods)', { timeout: 1_200_000 }, () => {
  it('kills adaptors, the PeerPod controller and the webhook over many pod cycles: nothing leaks or sticks', async (t) => {
    const started = Date.now();
    const settings = campaignSettings({ seed: Date.now() % 1_000_000, cycles: 40, budgetS: 70 });
    const lines: string[] = [];
    const report = await runFaultCampaign({
      ...settings,
      createLatencyMs: 800,
      deleteLatencyMs: 800,
      // The whole test within about 3 min: a start-up slowed by a loaded machine leaves fewer cycles.
      deadline: started + 120_000,
      minCycles: 3,
      log: (line) => lines.push(line),
    }).catch((err: Error) => {
      throw new Error(`seed ${settings.seed}: ${err.message}; log:\n${lines.join('\n')}`, { cause: err });
    });
    t.diagnostic(
      `seed ${report.seed}: ${report.cycles} cycles in ${report.campaignSeconds.toFixed(0)} s, ` +
        `${report.podsCreated} pods created, ${report.vmsSeen} VMs, faults ${JSON.stringify(report.kills)}`,
    );
    const context = `seed ${report.seed} (FAULT_CAMPAIGN_SEED=${report.seed} replays it); log:\n${lines.join('\n')}`;
    assert.equal(report.aborted, undefined, `campaign aborted: ${report.aborted}\n${context}`);
    assert.deepEqual(report.violations, { leaked: [], duplicates: [], stuckFinalizers: [], stuckPods: [] }, context);
    assert.ok(report.cycles >= Math.min(3, settings.cycles), `only ${report.cycles} cycles ran\n${context}`);
    const kills = Object.values(report.kills).reduce((n, k) => n + k.sigkill + k.delete, 0);
    assert.ok(
      kills >= Math.ceil(report.cycles / 2),
      `only ${kills} faults injected: ${JSON.stringify(report.kills)}\n${context}`,
    );
    assert.equal(report.stopExitCode, 0, `peerpods start exit code after SIGTERM\n${context}`);
    assert.deepEqual(report.survivors, [], `processes of the run left behind\n${context}`);
  });
});
