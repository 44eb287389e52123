// The fault campaign, shared by the test (test/e2e/fault-campaign.test.ts, short) and the benchmark
// (bench/fault-campaign.ts, long): `peerpods start --provider qemu` as a user runs it (every operator
// a process pod, a real QEMU VM per peer pod), the provider slowed down through peer-pods-cm
// (PROVIDER_CREATE_LATENCY_MS / PROVIDER_DELETE_LATENCY_MS: the VM exists while its create is in
// flight and still runs while its delete is), then cycles until the cycle count or the time budget:
//   1. a seeded plan: which live peer pods to delete (some force-deleted, as a user can), how many
//      new ones to create (up to the sample PeerPodConfig's 4 VM slots, so new pods also wait for the
//      slots the deleted ones free), and 1–2 faults (faults.ts: an adaptor, the PeerPod controller or
//      a webhook replica SIGKILLed or force-deleted) at a random moment of the cycle's first seconds,
//      when VMs are being created and deleted;
//   2. the deletes and creates (creates retried while the webhook is down: failurePolicy Fail);
//   3. the cluster must settle within a deadline to the invariants (invariants.ts): no VM leaked or
//      duplicated, no finalizer stuck, no pod stuck Terminating, every live pod Running on its VM.
// Finally every pod is deleted (0 VMs must remain), `peerpods start` gets SIGTERM and must exit 0,
// and no process of the run may survive it. The same seed gives the same plans; the interleaving with
// the operators is real time, so a seed reproduces the faults, not every race.
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { isAlreadyExists, isNotFound, seededRandom } from '../../../src/apimachinery/index.ts';
import { ConfigMaps, KubeClient, Nodes, Pods, silentLogger } from '../../../src/runtime/index.ts';
import { SAMPLE_LIMIT, STACK_NAMESPACE, peerPodManifest } from '../../../src/peerpod/index.ts';
import { STATE_TMPDIR, killProcessesMentioning, processesMentioning, runCli } from '../cli.ts';
import { COMPONENTS, injectFault } from './faults.ts';
import type { Component, Fault, FaultOutcome, KillMode } from './faults.ts';
import { VIOLATION_KINDS, describeViolations, findViolations, noViolations, takeCensus } from './invariants.ts';
import type { Census, Violations } from './invariants.ts';

export interface CampaignOptions {
  seed: number;
  /** At most this many cycles. */
  cycles: number;
  /** No cycle starts once the campaign has run this long (start-up and the final stop not counted). */
  budgetMs: number;
  /** Nor after this time (epoch ms): a slow start-up on a loaded machine leaves fewer cycles. */
  deadline?: number;
  /** These first cycles run whatever the budget and the deadline say. */
  minCycles?: number;
  createLatencyMs: number;
  deleteLatencyMs: number;
  /** How long a cycle may take to settle before what is wrong counts as stuck (default 90 s). */
  settleTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface CampaignReport {
  seed: number;
  cycles: number;
  podsCreated: number;
  podsDeleted: number;
  podsForceDeleted: number;
  /** Distinct VMs seen (QEMU processes and PeerPod instance IDs) over the run. */
  vmsSeen: number;
  /** Pods whose PeerPods named more than one VM over their life (a VM replaced, not adopted). */
  podsWithVmReplaced: number;
  kills: Record<Component, Record<KillMode | 'skipped', number>>;
  /** Every violation that outlived a settle deadline (each leaked VM counted once). */
  violations: Violations;
  /** Why the campaign stopped before its budget: a pod or finalizer stuck (it cannot go on). */
  aborted?: string;
  cycleMs: number[];
  startSeconds: number;
  campaignSeconds: number;
  stopSeconds: number;
  /** `peerpods start`'s exit code after SIGTERM (0 expected). */
  stopExitCode: number | null;
  /** Processes of the run still alive after it stopped (pid and command line). */
  survivors: string[];
}

const NAMESPACE = 'default';
const LABEL = 'peerpods.io/fault-campaign';
const READY_TIMEOUT_MS = 180_000;

interface CyclePlan {
  deletes: Array<{ name: string; force: boolean }>;
  creates: string[];
  faults: Fault[];
}

export async function runFaultCampaign(o: CampaignOptions): Promise<CampaignReport> {
  const log = o.log ?? (() => undefined);
  const t0 = Date.now();
  const dir = await mkdtemp(path.join(STATE_TMPDIR, 'peerpods-fault-campaign-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  // The orphan sweep is held off (grace 1 h): a VM the adaptors or the PeerPod controller leave
  // behind is counted as leaked, not swept away before anyone sees it.
  const run = runCli([
    'start',
    ...['--port', '0', '--kubeconfig', kubeconfig, '--provider', 'qemu'],
    ...['--orphan-grace', '1h', '--summary-interval', '10s'],
  ]);
  const report: CampaignReport = {
    seed: o.seed,
    cycles: 0,
    podsCreated: 0,
    podsDeleted: 0,
    podsForceDeleted: 0,
    vmsSeen: 0,
    podsWithVmReplaced: 0,
    kills: Object.fromEntries(
      COMPONENTS.map((c) => [c, { sigkill: 0, delete: 0, skipped: 0 }]),
    ) as CampaignReport['kills'],
    violations: { leaked: [], duplicates: [], stuckFinalizers: [], stuckPods: [] },
    cycleMs: [],
    startSeconds: 0,
    campaignSeconds: 0,
    stopSeconds: 0,
    stopExitCode: null,
    survivors: [],
  };
  let client: KubeClient | undefined;
  try {
    await run.waitForLine(/^peerpods ready/, READY_TIMEOUT_MS);
    report.startSeconds = (Date.now() - t0) / 1000;
    client = KubeClient.fromKubeconfigString(await readFile(kubeconfig, 'utf8'), {
      metricsRegistry: null,
      logger: silentLogger(),
    });
    await client.patch(
      ConfigMaps,
      'peer-pods-cm',
      STACK_NAMESPACE,
      {
        data: {
          PROVIDER_CREATE_LATENCY_MS: String(o.createLatencyMs),
          PROVIDER_DELETE_LATENCY_MS: String(o.deleteLatencyMs),
        },
      },
      'merge',
    );
    const nodes = (await client.listAll(Nodes)).items.map((n) => n.metadata.name as string).sort();
    log(`peerpods ready in ${report.startSeconds.toFixed(1)} s; nodes ${nodes.join(', ')}; seed ${o.seed}`);
    await campaign(client, nodes, dir, o, report, log);
  } finally {
    const stopStart = Date.now();
    client?.close();
    if (run.child.exitCode === null) {
      run.child.kill('SIGTERM');
      const exited = await withDeadline(run.exited, 90_000);
      report.stopExitCode = exited ? exited.code : null;
      if (!exited) log(`peerpods start did not exit within 90 s of SIGTERM:\n${run.output().slice(-2000)}`);
    }
    // Process pods stop in their own process groups (SIGTERM, then SIGKILL 2 s later): give them that.
    const deadline = Date.now() + 10_000;
    while (processesMentioning(dir).length > 0 && Date.now() < deadline) await sleep(100);
    report.survivors = describeProcesses(processesMentioning(dir));
    report.stopSeconds = (Date.now() - stopStart) / 1000;
    if (run.child.exitCode === null) run.child.kill('SIGKILL');
    killProcessesMentioning(dir);
    await rm(dir, { recursive: true, force: true });
  }
  return report;
}

async function campaign(
  client: KubeClient,
  nodes: string[],
  stateDir: string,
  o: CampaignOptions,
  report: CampaignReport,
  log: (line: string) => void,
): Promise<void> {
  const random = seededRandom(o.seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
  const window = 2 * Math.max(o.createLatencyMs, o.deleteLatencyMs) + 1000;
  const settleTimeoutMs = o.settleTimeoutMs ?? 90_000;
  const ignoredVms = new Set<string>();
  const vmsSeen = new Set<string>();
  const vmsOfPod = new Map<string, Set<string>>();
  const look = async (): Promise<Census> => {
    const c = await takeCensus(client, { namespace: NAMESPACE, labelSelector: LABEL, stateDir });
    for (const vm of c.vms) vmsSeen.add(vm.id);
    for (const pp of c.peerPods) {
      if (!pp.instanceID) continue;
      vmsSeen.add(pp.instanceID);
      vmsOfPod.set(pp.ownerUid, (vmsOfPod.get(pp.ownerUid) ?? new Set()).add(pp.instanceID));
    }
    return c;
  };
  /** Waits for the invariants; what still fails at the deadline is recorded (leaked VMs once). */
  const settle = async (running: ReadonlySet<string>, what: string): Promise<boolean> => {
    const deadline = Date.now() + settleTimeoutMs;
    let v: Violations;
    for (;;) {
      try {
        v = findViolations(await look(), running, ignoredVms);
      } catch (err) {
        // The API server busy (429) or a process gone mid-scan: look again until the deadline.
        if (Date.now() > deadline) throw err;
        await sleep(200);
        continue;
      }
      if (noViolations(v) || Date.now() > deadline) break;
      await sleep(200);
    }
    if (noViolations(v)) return true;
    log(`${what}: not settled within ${settleTimeoutMs} ms:\n${describeViolations(v)}`);
    for (const k of VIOLATION_KINDS) report.violations[k].push(...v[k].map((x) => `${what}: ${x}`));
    for (const line of v.leaked) ignoredVms.add(/^VM (\S+)/.exec(line)?.[1] ?? line);
    if (v.stuckPods.length > 0 || v.stuckFinalizers.length > 0) {
      report.aborted = `${what}: ${describeViolations({ ...v, leaked: [], duplicates: [] })}`;
      return false;
    }
    return true;
  };

  let live: string[] = [];
  const started = Date.now();
  const timeLeft = (): boolean => Date.now() - started < o.budgetMs && Date.now() < (o.deadline ?? Infinity);
  for (let cycle = 1; cycle <= o.cycles && (cycle <= (o.minCycles ?? 0) || timeLeft()); cycle++) {
    // The plan takes every random draw of the cycle, so it depends on the seed and the cycle only.
    const mustDelete = live.length >= SAMPLE_LIMIT ? 1 : 0;
    const deleting = pickSome(live, int(mustDelete, live.length), random);
    const plan: CyclePlan = {
      deletes: deleting.map((name) => ({ name, force: random() < 0.2 })),
      creates: [],
      faults: [],
    };
    const creates = int(1, SAMPLE_LIMIT - live.length + deleting.length);
    for (let j = 1; j <= creates; j++) plan.creates.push(`fc-${cycle}-${j}`);
    const faultCount = [1, 1, 1, 2][int(0, 3)];
    for (let k = 0; k < faultCount; k++) {
      const r = random();
      plan.faults.push({
        component: r < 0.5 ? 'adaptor' : r < 0.75 ? 'controller' : 'webhook',
        mode: random() < 0.5 ? 'sigkill' : 'delete',
        node: int(0, nodes.length - 1),
        pick: random(),
        atMs: Math.round(random() * window),
      });
    }
    log(`cycle ${cycle}: ${describePlan(plan, nodes)}`);

    const t = Date.now();
    const fired = plan.faults.map(async (f): Promise<FaultOutcome> => {
      await sleep(f.atMs);
      return injectFault(client, f, nodes);
    });
    await Promise.all([
      ...plan.deletes.map((d) => deletePod(client, d.name, d.force)),
      ...plan.creates.map((name) => createPod(client, name)),
    ]);
    for (const outcome of await Promise.all(fired)) {
      report.kills[outcome.component][outcome.done]++;
      if (outcome.done === 'skipped') log(`  fault on ${outcome.component} skipped: no pod up to kill`);
    }
    report.podsCreated += plan.creates.length;
    report.podsDeleted += plan.deletes.length;
    report.podsForceDeleted += plan.deletes.filter((d) => d.force).length;
    live = [...live.filter((name) => !deleting.includes(name)), ...plan.creates];
    report.cycles = cycle;
    const ok = await settle(new Set(live), `cycle ${cycle}`);
    report.cycleMs.push(Date.now() - t);
    log(`  settled in ${Date.now() - t} ms; live ${live.join(', ') || 'none'}`);
    if (!ok) break;
  }
  report.campaignSeconds = (Date.now() - started) / 1000;
  if (!report.aborted) {
    await Promise.all(live.map((name) => deletePod(client, name, false)));
    await settle(new Set(), 'after deleting every pod');
  }
  report.vmsSeen = vmsSeen.size;
  report.podsWithVmReplaced = [...vmsOfPod.values()].filter((ids) => ids.size > 1).length;
}

/** A create is refused while no webhook replica answers (failurePolicy Fail): retried, as a client would. */
async function createPod(client: KubeClient, name: string): Promise<void> {
  const pod = peerPodManifest(name, { cpu: '1', memory: '128Mi' }, NAMESPACE);
  pod.metadata.labels = { [LABEL]: 'true' };
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await client.create(Pods, pod);
      return;
    } catch (err) {
      // A create whose answer was lost may have been stored all the same.
      if (isAlreadyExists(err)) return;
      if (Date.now() > deadline) throw new Error(`creating pod ${name}: ${(err as Error).message}`);
      await sleep(250);
    }
  }
}

async function deletePod(client: KubeClient, name: string, force: boolean): Promise<void> {
  try {
    await client.delete(Pods, name, NAMESPACE, force ? { gracePeriodSeconds: 0 } : {});
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

/** `n` distinct items of `xs`, chosen by `random`. */
function pickSome<T>(xs: T[], n: number, random: () => number): T[] {
  const pool = [...xs];
  const out: T[] = [];
  while (out.length < n && pool.length > 0) out.push(...pool.splice(Math.floor(random() * pool.length), 1));
  return out;
}

function describePlan(p: CyclePlan, nodes: string[]): string {
  const deletes = p.deletes.map((d) => `${d.name}${d.force ? ' (force)' : ''}`).join(', ') || 'none';
  const faults =
    p.faults
      .map(
        (f) =>
          `${f.mode} ${f.component}${f.component === 'adaptor' ? `@${nodes[f.node % nodes.length]}` : ''} at +${f.atMs} ms`,
      )
      .join(', ') || 'none';
  return `delete ${deletes}; create ${p.creates.join(', ')}; faults ${faults}`;
}

/** `pid command line` of each process, for the report. */
function describeProcesses(pids: number[]): string[] {
  return pids.map((pid) => {
    try {
      return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim().slice(0, 200)}`;
    } catch {
      return `${pid} (gone)`;
    }
  });
}

/** `p`'s value, or undefined once `ms` have passed (the timer cleared either way). */
async function withDeadline<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<undefined>((r) => (timer = setTimeout(r, ms, undefined)))]);
  } finally {
    clearTimeout(timer);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
