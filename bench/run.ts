// `npm run bench [-- --only apiserver|runtime|scheduler|cluster-scale|peerpod|peerpod-e2e|peerpod-scale|pool|fleet|process-pods|start|fault-campaign|storage|bounds|adaptor-upgrade|cli-startup]`: runs the benchmarks, prints a table and writes
// bench/results/latest.json (latest-<part>.{json,md} with --only), overwritten each run, and then
// latest.md, the summary of every part's newest figures (summary.ts). `--summary` only rewrites it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, loadavg } from 'node:os';
import { join } from 'node:path';
import { BENCH_DIR, MiB, nowMs, round } from './common.ts';
import { tableOf, writeSummary, type Row } from './summary.ts';
import { runApiserver } from './apiserver.ts';
import type { ApiserverResults } from './apiserver.ts';
import { runRuntime } from './runtime.ts';
import type { RuntimeResults } from './runtime.ts';
import { runSchedulerBench } from './scheduler.ts';
import { SCALE_TARGETS, runClusterScaleBench } from './cluster-scale.ts';
import type { ClusterScaleResults } from './cluster-scale.ts';
import { runPeerPodBench } from './peerpod.ts';
import { runPeerPodE2eBench } from './peerpod-e2e.ts';
import { runPoolBench } from './pool.ts';
import { FLEET_MEMORY_TARGET, FLEET_SYNC_TARGET_SECONDS, runFleetBench } from './fleet.ts';
import type { FleetResults } from './fleet.ts';
import { DEPLOY_TARGET_SECONDS, runProcessPodsBench } from './process-pods.ts';
import type { ProcessPodResults } from './process-pods.ts';
import { START_TARGET_SECONDS, runStartBench } from './start.ts';
import type { StartResults } from './start.ts';
import { runBounds, type BoundsResults } from './bounds.ts';
import { runFaultCampaignBench } from './fault-campaign.ts';
import type { FaultCampaignResults } from './fault-campaign.ts';
import { RECOVERY_TARGET_SECONDS, runStorageBench } from './storage.ts';
import type { StorageResults } from './storage.ts';
import { runAdaptorUpgradeBench } from './adaptor-upgrade.ts';
import type { AdaptorUpgradeResults } from './adaptor-upgrade.ts';
import { runCliStartupBench } from './cli-startup.ts';
import { runPeerPodScaleBench } from './peerpod-scale.ts';
import type { PeerPodScaleResults } from './peerpod-scale.ts';
import type { CliStartupResults } from './cli-startup.ts';

const onlyIdx = process.argv.indexOf('--only');
const only = onlyIdx >= 0 ? process.argv[onlyIdx + 1] : undefined;
const PARTS = [
  'apiserver',
  'runtime',
  'scheduler',
  'cluster-scale',
  'peerpod',
  'peerpod-e2e',
  'peerpod-scale',
  'pool',
  'fleet',
  'process-pods',
  'start',
  'fault-campaign',
  'storage',
  'bounds',
  'adaptor-upgrade',
  'cli-startup',
];
if (only !== undefined && !PARTS.includes(only)) {
  console.error(`usage: npm run bench [-- --only ${PARTS.join('|')} | --summary]`);
  process.exit(2);
}
if (process.argv.includes('--summary')) {
  console.log(`wrote ${writeSummary(join(BENCH_DIR, 'results'), PARTS)}`);
  process.exit(0);
}

const log = (s: string): void => console.log(s);
const t0 = nowMs();
const machine = {
  node: process.version,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model ?? 'unknown',
  memoryGiB: round(totalmem() / 2 ** 30, 1),
  loadAverageAtStart: loadavg().map((l) => round(l, 2)),
  date: new Date().toISOString(),
};

let apiserver: ApiserverResults | undefined;
let runtime: RuntimeResults | undefined;
let scheduler: Record<string, number> | undefined;
let clusterScale: ClusterScaleResults | undefined;
let peerpod: Record<string, number> | undefined;
let peerpodE2e: Record<string, number> | undefined;
let pool: Record<string, number> | undefined;
let peerpodScale: PeerPodScaleResults | undefined;
let processPods: ProcessPodResults | undefined;
let start: StartResults | undefined;
let bounds: Partial<BoundsResults> | undefined;
let faultCampaign: FaultCampaignResults | undefined;
let storage: StorageResults | undefined;
let adaptorUpgrade: AdaptorUpgradeResults | undefined;
let cliStartup: CliStartupResults | undefined;
let fleet: FleetResults | undefined;
const wants = (part: string): boolean => only === undefined || only === part;
if (wants('apiserver')) apiserver = await runApiserver(log);
if (wants('runtime')) runtime = await runRuntime(log);
if (wants('scheduler')) {
  log('scheduler: 5,000 pods on 100 simulated nodes');
  scheduler = await runSchedulerBench();
}
if (wants('cluster-scale')) {
  log('cluster-scale: 1k, 10k and 100k pods created through the API on 10, 100 and 1,000 simulated nodes');
  clusterScale = await runClusterScaleBench(log);
}
if (wants('peerpod')) {
  log('peerpod: 1,000 dangling PeerPods (simulated provider, 100 ms per delete) and 50 qemu VMs');
  peerpod = await runPeerPodBench();
}
if (wants('peerpod-e2e')) {
  log('peerpod-e2e: 200 peer pods at once on the whole stack (simulated provider), then 20 on qemu');
  peerpodE2e = await runPeerPodE2eBench();
}
if (wants('peerpod-scale')) {
  peerpodScale = await runPeerPodScaleBench(log);
}
if (wants('pool')) {
  log(
    'pool: pod created → Running, one at a time, cold then from a warm pool (simulated with a 2 s create delay, then qemu)',
  );
  pool = await runPoolBench();
}
if (wants('fleet')) {
  log(
    'fleet: the PeerPod controller and the kvm-operator with ~10,000 objects in their caches, first start and restart',
  );
  fleet = await runFleetBench(log);
}
if (wants('process-pods')) {
  log('process-pods: cluster start + deploy, then the operator as a process pod vs started by hand');
  processPods = await runProcessPodsBench(log);
}
if (wants('start')) {
  log('start: `peerpods start` until `peerpods ready` (cluster, install + deploy, every component a Ready pod)');
  start = await runStartBench(log);
}
if (wants('fault-campaign')) {
  log(
    'fault-campaign: peer pods created and deleted on qemu while adaptors, the PeerPod controller and the webhook are killed',
  );
  faultCampaign = await runFaultCampaignBench(log);
}
if (wants('storage')) {
  log('storage: write throughput of the memory, SQLite and etcd backends; recovery of 100,000 objects after SIGKILL');
  storage = await runStorageBench(log);
}
if (wants('bounds')) bounds = await runBounds(log);
if (wants('adaptor-upgrade')) {
  log(
    'adaptor-upgrade: 50 running peer pods while the adaptor DaemonSet rolls to a new image, then an adaptor SIGKILLed',
  );
  adaptorUpgrade = await runAdaptorUpgradeBench(log);
}
if (wants('cli-startup')) {
  log('cli-startup: `peerpods --help` from spawn to exit, before (sources through tsx) and after (the build)');
  cliStartup = await runCliStartupBench(log);
}
const seconds = (nowMs() - t0) / 1000;

const rows: Row[] = [];
/** The part whose rows are being added: every row names it, so latest.md can take each part from its newest run. */
let current = '';
const section = (part: string): void => {
  current = part;
};
const add = (row: Omit<Row, 'part'>): void => {
  rows.push({ part: current, ...row });
};
const status = (met: boolean | null): string => (met === null ? '—' : met ? 'met' : 'MISSED');
const pct = (r: number): string => `${round(r * 100)} %`;
const mib = (b: number): string => `${round(b / MiB)} MiB`;

section('apiserver');
if (apiserver) {
  for (const t of apiserver.throughput) {
    add({
      figure: `${t.description} (${apiserver.settings.concurrency} in flight)`,
      value: `${round(t.ours.reqPerSec)} req/s (p50 ${round(t.ours.p50Ms, 2)} ms, p99 ${round(t.ours.p99Ms, 2)} ms)`,
      reference: `bare node:https ${round(t.bare.reqPerSec)} req/s, same ${t.responseBytes} B body → ${pct(t.ratio)}`,
      target: Number.isNaN(t.target) || t.target === null ? '—' : `≥ ${pct(t.target)} of bare`,
      status: status(t.met),
    });
  }
  const w = apiserver.watch;
  add({
    figure: `Watch fan-out: ${w.watchers} watchers × ${w.events} ConfigMap creates at ${w.ratePerSec}/s`,
    value: `p50 ${round(w.p50Ms, 2)} ms, p90 ${round(w.p90Ms, 2)} ms, p99 ${round(w.p99Ms, 2)} ms, max ${round(w.maxMs, 1)} ms`,
    reference: `${w.deliveries}/${w.expectedDeliveries} delivered; writes took ${round(w.writeSeconds, 2)} s (${round(w.writesPerSec)}/s achieved)`,
    target: `p99 < ${w.targetP99Ms} ms`,
    status: status(w.met),
  });
  const m = apiserver.memory;
  add({
    figure: `Server memory: ${m.count} stored ConfigMaps (heap)`,
    value: `+${mib(m.heapGrowthBytes)} heap = ${round(m.heapRatio, 2)}× JSON`,
    reference: `${mib(m.storedJsonBytes)} stored JSON (${round(m.storedJsonBytes / m.count)} B/object)`,
    target: `≤ ${m.target}×`,
    status: status(m.heapRatio <= m.target),
  });
  add({
    figure: `Server memory: ${m.count} stored ConfigMaps (RSS)`,
    value: `+${mib(m.rssGrowthBytes)} RSS = ${round(m.rssRatio, 2)}× JSON`,
    reference: `seeded in ${round(m.seedSeconds, 1)} s via ${m.path.split(' ')[0]}`,
    target: `≤ ${m.target}×`,
    status: status(m.rssRatio <= m.target),
  });
  const y = apiserver.memorySmallYoung;
  add({
    figure: `Server memory: ${y.count} stored ConfigMaps, node ${y.flag}`,
    value: `RSS ${mib(y.rssAfterBytes)} (default ${mib(m.rssAfterBytes)}); +${mib(y.rssGrowthBytes)} = ${round(y.rssRatio, 2)}× JSON`,
    reference: `seeded in ${round(y.seedSeconds, 1)} s (default ${round(m.seedSeconds, 1)} s)`,
    target: '—',
    status: '—',
  });
}
section('runtime');
if (runtime) {
  for (const p of runtime.peers) {
    add({
      figure: `Converge ${runtime.widgets} Widgets: ${p.peer}`,
      value: Number.isFinite(p.convergeSeconds)
        ? `${round(p.convergeSeconds, 2)} s (${round(runtime.widgets / p.convergeSeconds)}/s), peak RSS ${mib(p.peakRssBytes)}`
        : `did not converge: ${p.converged}/${runtime.widgets}, peak RSS ${mib(p.peakRssBytes)}`,
      reference: `${p.version}; concurrency ${p.concurrency}; ${p.patches} patches, ${p.patchErrors} errors; load avg ${p.loadAverage1m} at start`,
      target: p.peer === 'peerpods' ? `≥ ${runtime.speedupTarget}× faster than best peer` : '—',
      status: p.peer === 'peerpods' ? `${round(runtime.speedupVsBestPeer, 2)}× → ${status(runtime.speedupMet)}` : '—',
    });
  }
  const c = runtime.cache;
  add({
    figure: `Informer cache: heap per cached ConfigMap (${c.objects} objects)`,
    value: `${round(c.heapBytesPerObject)} B/object = ${round(c.ratioToCachedJson, 2)}× its JSON`,
    reference: `${round(c.jsonBytesPerObject)} B JSON as cached (managedFields stripped); ${round(c.ratioToServedJson, 2)}× the served JSON`,
    target: `≤ ${c.target}×`,
    status: status(c.met),
  });
  add({
    figure: `Informer cache: sync ${c.objects} objects`,
    value: `${round(c.syncSeconds, 2)} s`,
    reference: `paged LIST (limit ${c.pageSize}) over HTTPS + watch start`,
    target: `< ${c.syncTargetSeconds} s`,
    status: status(c.syncMet),
  });
}

section('cluster-scale');
if (clusterScale) {
  const c = clusterScale;
  for (const r of c.runs) {
    const b = r.burst;
    const largest = r === c.largest;
    const size = `${r.pods} pods on ${r.nodes} nodes`;
    add({
      figure: `cluster-scale: ${size}, created through the API → all Running`,
      value: b.complete
        ? `${round(b.allRunningMs / 1000, 1)} s: ${r.acceptedPerS} accepted/s, ${r.boundPerS} bound/s, ${r.runningPerS} Running/s`
        : `NOT all Running by the deadline: ${b.accepted} accepted, ${b.bound} bound, ${b.running} Running`,
      reference: `server CPU ${r.serverCpuMsPerPod} ms per pod; ${round(b.watchEvents / r.pods, 2)} pod writes per pod; nodes Ready in ${r.serverStartSeconds} s`,
      target: largest ? `≤ ${SCALE_TARGETS.allRunningSeconds} s` : '—',
      status: largest ? status(c.allRunningMet) : '—',
    });
    add({
      figure: `cluster-scale: ${size}, server memory at the end`,
      value: `RSS ${mib(r.end.rss)} (peak ${mib(r.end.maxRss)}), heap ${mib(r.end.heapUsed)}`,
      reference: `per pod: RSS +${round(r.rssBytesPerPod / 1024, 1)} KiB, heap +${round(r.heapBytesPerPod / 1024, 1)} KiB over the idle cluster (RSS ${mib(r.idle.rss)})`,
      target: largest ? `RSS ≤ ${mib(SCALE_TARGETS.rssBytes)}` : '—',
      status: largest ? status(c.rssMet) : '—',
    });
    add({
      figure: `cluster-scale: ${size}, during the burst: watch delivery (create's response → ADDED received)`,
      value: `p50 ${b.watchAfterWriteP50Ms} ms, p99 ${b.watchAfterWriteP99Ms} ms, max ${b.watchAfterWriteMaxMs} ms`,
      reference: `from the create sent (its wait among 64 in flight included): p50 ${b.watchP50Ms} / p99 ${b.watchP99Ms} ms; GET p50 ${b.getP50Ms} / p99 ${b.getP99Ms} ms (${b.getCount}); LIST page of 500 p50 ${b.listPageP50Ms} / p99 ${b.listPageP99Ms} ms (${b.listPages} pages, ${b.listPasses} full passes, p50 ${b.listPassP50Ms} ms)`,
      target: largest ? `p99 < ${SCALE_TARGETS.watchP99Ms} ms` : '—',
      status: largest ? status(c.watchMet) : '—',
    });
  }
  const flat = (x: number): boolean | null => (Number.isFinite(x) ? x <= SCALE_TARGETS.flatness : null);
  add({
    figure: 'cluster-scale: curve of time per pod (all Running ÷ pods), largest ÷ smallest size',
    value: `${c.timeFlatness}× (${c.runs.map((r) => `${r.msPerPod} ms`).join(', ')})`,
    reference: `plot: ${c.plot}`,
    target: `≤ ${SCALE_TARGETS.flatness}×`,
    status: status(flat(c.timeFlatness)),
  });
  add({
    figure: 'cluster-scale: curve of server memory per pod (RSS growth ÷ pods), largest ÷ smallest size',
    value: `${c.memoryFlatness}× (${c.runs.map((r) => `${round(r.rssBytesPerPod / 1024, 1)} KiB`).join(', ')}); heap ${c.heapFlatness}×`,
    reference: `beyond the bounded watch history: ${c.beyondHistoryFlatness}× (${c.runs.map((r) => `${round(r.rssBeyondHistoryBytesPerPod / 1024, 1)} KiB`).join(', ')}); plot: ${c.plot}`,
    target: `≤ ${SCALE_TARGETS.flatness}×`,
    status: status(flat(c.memoryFlatness)),
  });
}

section('peerpod-scale');
if (peerpodScale) {
  const p = peerpodScale;
  const size = `${p.pods} peer pods on ${p.nodes} nodes`;
  add({
    figure: `peerpod-scale: ${size}, created at ${p.create_rate_target_per_s}/s → Running`,
    value: `p50 ${round(p.created_to_running_p50_ms / 1000, 2)} s, p99 ${round(p.created_to_running_p99_ms / 1000, 2)} s; all Running after ${p.all_running_s} s`,
    reference: `creates accepted at ${p.create_rate_achieved_per_s}/s (${p.create_retries} retried after a 429/5xx); the cloud's create takes ${p.create_delay_ms / 1000} s; stack Ready in ${p.stack_ready_s} s`,
    target: '—',
    status: '—',
  });
  add({
    figure: `peerpod-scale: ${size}, creates accepted at the asked rate`,
    value: `${p.create_rate_achieved_per_s}/s`,
    reference: `asked ${p.create_rate_target_per_s}/s, at most 64 in flight; within 5 % of it counts as keeping up (pacing rounds)`,
    target: `${p.create_rate_target_per_s}/s`,
    status: status(p.create_rate_achieved_per_s >= 0.95 * p.create_rate_target_per_s),
  });
  add({
    figure: `peerpod-scale: ${size}, deleted → VM gone`,
    value: `p50 ${round(p.deleted_to_vm_gone_p50_ms / 1000, 2)} s, p99 ${round(p.deleted_to_vm_gone_p99_ms / 1000, 2)} s; all gone after ${p.all_vms_gone_s} s`,
    reference: `deletes accepted at ${p.delete_rate_achieved_per_s}/s (${p.delete_retries} retried after a 429/5xx); the cloud's delete takes ${p.delete_delay_ms / 1000} s`,
    target: '—',
    status: '—',
  });
  const clean = p.leaked_vms === 0 && p.duplicate_vms === 0 && p.vms_missing_at_running === 0;
  add({
    figure: `peerpod-scale: ${size}, VMs leaked / duplicated / missing`,
    value: `${p.leaked_vms} / ${p.duplicate_vms} / ${p.vms_missing_at_running}`,
    reference:
      'leaked: left once every pod and PeerPod is gone; duplicated: IDs the cloud handed out beyond one per pod; missing: a Running pod whose recorded VM does not exist',
    target: '0 / 0 / 0',
    status: status(clean),
  });
  add({
    figure: `peerpod-scale: ${p.cleanup_dangling} dangling PeerPods + ${p.cleanup_orphans} orphan VMs at once → cleaned`,
    value: `dangling VMs gone after ${p.cleanup_dangling_vms_gone_s} s, orphans after ${p.cleanup_orphans_gone_s} s; all (finalizers released) after ${p.cleanup_dangling_released_s} s; ${p.cleanup_leaked_vms} left`,
    reference: `orphan grace ${p.cleanup_orphan_grace_s} s, sweep every ${p.cleanup_sweep_interval_s} s; set-up (PeerPod deletes + orphan creates) took ${p.cleanup_set_up_s} s; ${p.cleanup_gone_before_start} VMs gone before the clock started`,
    target: '0 left',
    status: status(p.cleanup_leaked_vms === 0),
  });
  add({
    figure: 'peerpod-scale: provider concurrency limit respected during the cleanup',
    value: `at most ${p.cleanup_deletes_overlapping_max} deletes seen overlapping (mean ${p.cleanup_mean_deletes_in_flight} in flight)`,
    reference: `from the cloud's side: VMs gone within one 1 s delete of each other were in flight together; limit ${p.cleanup_delete_limit} per provider`,
    target: `≤ ${p.cleanup_delete_limit}`,
    status: status(p.cleanup_deletes_overlapping_max <= p.cleanup_delete_limit),
  });
}

/** Figures of the scheduler and peer-pod benchmarks, one row each; targets on the headline figures. */
const TARGETS: Record<string, { min: number; text: string }> = {
  backlog_pods_bound_per_s: { min: 1000, text: '≥ 1000 pods/s bound' },
  dangling_speedup_x: { min: 10, text: '≥ 10× upstream settings' },
};
for (const [part, figures] of [
  ['scheduler', scheduler],
  ['peerpod', peerpod],
  ['peerpod-e2e', peerpodE2e],
  ['pool', pool],
] as const) {
  section(part);
  for (const [key, value] of Object.entries(figures ?? {})) {
    const t = TARGETS[key];
    add({
      figure: `${part}: ${key}`,
      value: String(value),
      reference:
        part === 'peerpod' && key.startsWith('dangling')
          ? 'same run, upstream settings: 1 worker, no provider limit'
          : '—',
      target: t ? t.text : '—',
      status: t ? status(value >= t.min) : '—',
    });
  }
}
section('pool');
for (const p of ['sim', 'qemu'] as const) {
  const warm = pool?.[`${p}_warm_created_to_running_p50_ms`];
  const ref = pool?.[`${p}_warm_reference_p50_ms`];
  if (warm === undefined || ref === undefined) continue;
  add({
    figure: `pool: warm start p50, ${p === 'sim' ? 'simulated (2 s create delay)' : 'qemu'} (pod created → Running)`,
    value: `${warm} ms (cold ${pool?.[`${p}_cold_created_to_running_p50_ms`]} ms)`,
    reference: `${ref} ms: scheduling + one PeerPod write, measured whole: a pod whose node side writes its PeerPod, then reports it Running (taken in turns with the warm pods, same run); summed from a pod start and a write timed alone: ${pool?.[`${p}_warm_reference_instant_plus_write_p50_ms`]} ms`,
    target: '≤ reference',
    status: status(warm <= ref),
  });
}
section('fleet');
if (fleet) {
  for (const f of [fleet.peerpod, fleet.kvm]) {
    for (const [what, r] of [
      ['first start', f.firstStart],
      ['restart', f.restart],
    ] as const) {
      const restart = what === 'restart';
      add({
        figure: `fleet: ${f.operator}, ${f.seeded}, ${what}: caches synced`,
        value: `${round(r.syncSeconds, 2)} s (queues idle after ${round(r.drainSeconds, 2)} s)`,
        reference: `${r.objects} objects cached: ${Object.entries(r.cached)
          .map(([k, n]) => `${k} ${n}`)
          .join(', ')}; paged LIST over HTTPS + watch start`,
        target: restart ? `< ${FLEET_SYNC_TARGET_SECONDS} s` : '—',
        status: restart ? status(f.syncMet) : '—',
      });
      add({
        figure: `fleet: ${f.operator}, ${f.seeded}, ${what}: heap once idle`,
        value: `${round(r.heapBytesPerObject)} B/object = ${round(r.ratioToCachedJson, 2)}× JSON`,
        reference: `${round(r.jsonBytesPerObject)} B of JSON per cached object (without managedFields)`,
        target: restart ? `≤ ${FLEET_MEMORY_TARGET}×` : '—',
        status: restart ? status(f.memoryMet) : '—',
      });
    }
  }
}
section('peerpod');
if (peerpod) {
  add({
    figure: 'peerpod: provider concurrency limit respected',
    value: `${peerpod.max_concurrent_deletes_observed} concurrent deletes observed`,
    reference: `limit ${peerpod.provider_delete_limit}`,
    target: '≤ limit',
    status: status(peerpod.max_concurrent_deletes_observed <= peerpod.provider_delete_limit),
  });
}

section('process-pods');
if (processPods) {
  const q = processPods;
  add({
    figure: 'process-pods: `deploy` until every operator pod is Ready (3 Deployments, real probes)',
    value: `${q.deploySeconds} s`,
    reference: 'cluster start --nodes 2, then peerpods deploy',
    target: `≤ ${DEPLOY_TARGET_SECONDS} s`,
    status: status(q.deployMet),
  });
  const ms = (n: number): string => `${round(n)} ms`;
  for (const [figure, pod, plain, ratio] of [
    ['first log line', ms(q.pod.firstLogMs), ms(q.plain.firstLogMs), q.firstLogRatio],
    ['Ready (probe every 1 s vs /readyz polled)', ms(q.pod.readyMs), ms(q.plain.readyMs), q.readyRatio],
    ['peak RSS of the process', mib(q.pod.peakRssBytes), mib(q.plain.peakRssBytes), q.rssRatio],
  ] as const) {
    add({
      figure: `process-pods: ${figure}, median of ${q.runs}`,
      value: `${pod} as a pod`,
      reference: `${plain} started by hand → ${ratio}×`,
      target: '—',
      status: '—',
    });
  }
}

section('start');
if (start) {
  add({
    figure: `start: \`peerpods start\` → \`peerpods ready\` (provider ${start.provider}), median of ${start.runs}`,
    value: `${start.medianReadySeconds} s`,
    reference: `runs ${start.readySeconds.join(' / ')} s at load ${start.loadAverages.join(' / ')}`,
    target: `≤ ${START_TARGET_SECONDS} s`,
    status: status(start.met),
  });
  for (const [phase, ms] of Object.entries(start.phasesMs)) {
    add({
      figure: `start: ${phase}`,
      value: `${ms} ms`,
      reference: 'since the stack began starting',
      target: '—',
      status: '—',
    });
  }
}

section('fault-campaign');
if (faultCampaign) {
  const f = faultCampaign;
  const kills = Object.entries(f.kills)
    .map(([c, k]) => `${c} ${k.sigkill} SIGKILL + ${k.delete} force-deleted`)
    .join(', ');
  const conditions = `seed ${f.seed}; ${f.latencyMs} ms provider latency per create and delete; load ${f.loadAverageAtStart.join(' / ')}`;
  const row = (figure: string, value: string, reference: string, target = '—', met: boolean | null = null) =>
    add({ figure: `fault-campaign: ${figure}`, value, reference, target, status: status(met) });
  row('cycles', `${f.cycles} in ${f.campaignSeconds} s`, conditions);
  row(
    'peer pods',
    `${f.podsCreated} created, ${f.podsDeleted} deleted (${f.podsForceDeleted} force)`,
    `${f.vmsSeen} QEMU VMs`,
  );
  row('faults injected', String(f.killsTotal), kills);
  for (const [figure, n] of [
    ['leaked VMs', f.leaked],
    ['duplicate VMs', f.duplicates],
    ['stuck finalizers', f.stuckFinalizers],
    ['stuck pods', f.stuckPods],
  ] as const) {
    row(figure, String(n), f.details.length ? f.details.slice(0, 3).join('; ') : '—', '0', n === 0);
  }
  row(
    'time per cycle',
    `p50 ${f.cycleP50Ms} ms, p90 ${f.cycleP90Ms} ms, max ${f.cycleMaxMs} ms`,
    'writes, faults and settling',
  );
  row(
    'stop',
    `exit ${f.stopExitCode}, ${f.survivors.length} processes left`,
    `start-up ${f.startSeconds} s, stop ${f.stopSeconds} s${f.aborted ? `; aborted: ${f.aborted}` : ''}`,
    'exit 0, none left',
    f.stopExitCode === 0 && f.survivors.length === 0,
  );
}

section('storage');
if (storage) {
  for (const w of storage.writes) {
    add({
      figure: `storage: ${w.backend}, ${w.writes} writes (creates then updates, ${storage.objectBytes} B values)`,
      value: `${w.writesPerSec} writes/s`,
      reference: `${pct(w.ratioToMemory)} of the memory backend in the same run`,
      target: '—',
      status: '—',
    });
  }
  const r = storage.recovery;
  add({
    figure: `storage: recovery of ${r.objects} objects after SIGKILL (open + load until the first LIST)`,
    value: `${r.afterKillSeconds} s (${r.afterKillCpuSeconds} s CPU)`,
    reference: `${mib(r.storeBytes)} on disk; ${r.afterCloseSeconds} s after a clean close; filled in ${r.fillSeconds} s`,
    target: `≤ ${RECOVERY_TARGET_SECONDS} s`,
    status: status(r.met),
  });
  const e = storage.etcd.recovery;
  add({
    figure: `storage: etcd backend, recovery of ${e.objects} objects (a new API server on the running etcd, until the first LIST)`,
    value: `${e.apiServerRestartSeconds} s`,
    reference: `${e.afterKillSeconds} s with etcd SIGKILLed too (its restart included); filled in ${e.fillSeconds} s`,
    target: `≤ ${RECOVERY_TARGET_SECONDS} s`,
    status: status(e.apiServerRestartSeconds <= RECOVERY_TARGET_SECONDS),
  });
}

section('adaptor-upgrade');
if (adaptorUpgrade) {
  const a = adaptorUpgrade;
  const u = a.upgrade;
  const k = a.sigkill;
  const evidence = (f: typeof u | typeof k): string =>
    `${f.podWrites} pod writes, ${f.peerPodChanges} PeerPods changed, ${f.vmsCreated} VMs created, ${f.vmsDeleted} deleted (cloud ledger)` +
    (f.disruptedDetails.length ? `; ${f.disruptedDetails.join('; ')}` : '');
  add({
    figure: `adaptor-upgrade: peer pods disrupted while the adaptor DaemonSet rolls (${a.pods} running pods, ${a.nodes} nodes)`,
    value: `${u.disruptedPods} of ${a.pods}`,
    reference: evidence(u),
    target: '0',
    status: status(u.disruptedPods === 0 && u.podWrites === 0 && u.vmsCreated === 0 && u.vmsDeleted === 0),
  });
  add({
    figure: 'adaptor-upgrade: rolling update duration (template changed → every node a new Ready adaptor)',
    value: `${u.rolloutSeconds} s`,
    reference: `${u.adaptorsReplaced} adaptors replaced, maxUnavailable 1; ${u.triggerToDoneSeconds} s from the controller's --adaptor-image change; ${a.pods} pods Running in ${a.podsRunningSeconds} s before`,
    target: '—',
    status: '—',
  });
  add({
    figure: 'adaptor-upgrade: peer pods disrupted by an adaptor SIGKILL',
    value: `${k.disruptedPods} of ${a.pods}`,
    reference: `back Ready in the same pod in ${k.restartedReadySeconds} s; ${evidence(k)}`,
    target: '0',
    status: status(k.disruptedPods === 0 && k.podWrites === 0 && k.vmsCreated === 0 && k.vmsDeleted === 0),
  });
}

section('bounds');
if (bounds?.patch) {
  const p = bounds.patch;
  add({
    figure: `bounds: server RSS while one client merge-patches a 1 MiB ConfigMap ${p.patches} times`,
    value: `peak ${mib(p.peakRssBytes)}, end ${mib(p.finalRssBytes)}${p.serverDied ? ' — server DIED' : ''}`,
    reference: `baseline ${mib(p.baselineRssBytes)}; ${p.completed} patches in ${round(p.seconds)} s`,
    target: 'server survives',
    status: status(!p.serverDied && p.completed === p.patches),
  });
}
if (bounds?.watchers) {
  const w = bounds.watchers;
  add({
    figure: `bounds: server RSS with ${w.watchers} watchers (resourceVersion 0) of a 1 MiB ConfigMap`,
    value: `peak ${mib(w.peakRssBytes)}, 15 s later ${mib(w.settledRssBytes)}`,
    reference: `baseline ${mib(w.baselineRssBytes)}; ${w.received}/${w.connected} got ADDED and MODIFIED`,
    target: '—',
    status: '—',
  });
}

section('cli-startup');
if (cliStartup) {
  const c = cliStartup;
  const ref = c.before ?? c.source;
  for (const f of [c.before, c.source, c.node]) {
    if (!f) continue;
    add({
      figure: `cli-startup: ${f.command}`,
      value: `median ${f.medianMs} ms, p90 ${f.p90Ms} ms (CPU ${f.cpuMedianMs} ms)`,
      reference: `${c.runs} runs interleaved with the others; load ${c.loadAverageAtStart.join(' / ')} at start`,
      target: '—',
      status: '—',
    });
  }
  add({
    figure: `cli-startup: ${c.after.command}`,
    value: `median ${c.after.medianMs} ms, p90 ${c.after.p90Ms} ms (CPU ${c.after.cpuMedianMs} ms)`,
    reference: `${c.speedup}× faster than ${ref.command} (median ${ref.medianMs} ms)`,
    target: `median < ${c.targetMs} ms`,
    status: status(c.met),
  });
}

const results = {
  machine,
  seconds,
  only: only ?? 'all',
  apiserver,
  runtime,
  scheduler,
  clusterScale,
  peerpod,
  peerpodE2e,
  peerpodScale,
  pool,
  processPods,
  start,
  bounds,
  storage,
  faultCampaign,
  adaptorUpgrade,
  cliStartup,
  fleet,
  table: rows,
};
const outDir = join(BENCH_DIR, 'results');
mkdirSync(outDir, { recursive: true });
const latestName = only ? `latest-${only}` : 'latest';
writeFileSync(join(outDir, `${latestName}.json`), `${JSON.stringify(results, null, 2)}\n`);

// A part run alone also gets its own page; latest.md is always the summary of every part's newest run.
if (only) {
  const md = [
    '# peerpods benchmark results',
    '',
    `${machine.date} · Node ${machine.node} · ${machine.cpus} × ${machine.cpuModel} · ${machine.memoryGiB} GiB · load average at start ${machine.loadAverageAtStart.join(' / ')} · run took ${round(seconds)} s · only ${only}`,
    '',
    'See bench/README.md for what each figure means. Ratios are against a reference measured in the same run.',
    '',
    ...tableOf(rows),
    '',
  ].join('\n');
  writeFileSync(join(outDir, `${latestName}.md`), md);
}
const summary = writeSummary(outDir, PARTS);

console.log('');
console.table(rows.map((r) => ({ figure: r.figure, value: r.value, target: r.target, status: r.status })));
console.log(
  `\nwrote ${join(outDir, `${latestName}.json`)}${only ? ` and ${latestName}.md` : ''}, and the summary of every part ${summary} (${round(seconds)} s)`,
);
