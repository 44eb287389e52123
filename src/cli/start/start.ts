// `peerpods start` (= `npm start`), the main job: the embedded cluster with simulated worker nodes
// and the peer-pods stack deployed on it as on a real cluster (controllers, webhook and one adaptor
// per node and provider, all process pods), a sample PeerPodConfig per provider (qemu and the
// simulated cloud side by side when QEMU runs), a kubeconfig and the kubectl commands to try;
// then a live summary until Ctrl-C, which stops everything and checks that no VM process is left.
// The state directory is locked while a run holds it.
import { createWriteStream, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createLogger } from '../../runtime/index.ts';
import type { Logger } from '../../runtime/index.ts';
import { chooseProvider, choiceProviders, formatSummary, qemuProcessesUnder, summarize } from '../../peerpod/index.ts';
import type { DrainReport, ProviderChoice, ProviderWish } from '../../peerpod/index.ts';
import type { LocalStack } from './local-stack.ts';
import { onShutdown } from '../signals.ts';
import { bannerLines, peerPodYaml } from './banner.ts';
import { lockStateDir } from './state-lock.ts';
import type { StateDirLock } from './state-lock.ts';

export interface StartOptions {
  port: number;
  kubeconfig: string;
  provider?: ProviderWish;
  nodes: number;
  summaryInterval: number;
  orphanGrace: number;
}

/** JSON logs go to a file next to the kubeconfig, so the terminal shows the banner and the summary. */
export function fileLogger(name: string, file: string): Logger {
  return createLogger(name, { destination: createWriteStream(file, { flags: 'a' }) });
}

/** The lock, the stack, the banner and `peerpods ready`. */
export async function startMain(
  o: StartOptions,
  print: (line: string) => void,
): Promise<{ local: LocalStack; choice: ProviderChoice; stateDir: string; lock: StateDirLock }> {
  const kubeconfigPath = path.resolve(o.kubeconfig);
  const stateDir = path.dirname(kubeconfigPath);
  // Before anything is touched: a run holding the directory keeps its VMs and its kubeconfig.
  const lock = lockStateDir(stateDir);
  try {
    return { ...(await startLocked(o, print, kubeconfigPath, stateDir)), lock };
  } catch (err) {
    lock.release();
    throw err;
  }
}

async function startLocked(
  o: StartOptions,
  print: (line: string) => void,
  kubeconfigPath: string,
  stateDir: string,
): Promise<{ local: LocalStack; choice: ProviderChoice; stateDir: string }> {
  // Side by side by default: qemu behind kata-remote, the simulated cloud behind kata-remote-sim.
  const choice = await chooseProvider(o.provider, true);
  const logFile = path.join(stateDir, 'peerpods.log');
  const names = choiceProviders(choice).join(' + ');
  print(`peerpods: starting (provider${choice.withSimulated ? 's' : ''} ${names}; logs in ${logFile})`);
  // The control plane is loaded only by the commands that run one (`run …` operators start faster).
  const { startLocalStack } = await import('./local-stack.ts');
  const local = await startLocalStack({
    port: o.port,
    kubeconfigPath,
    nodes: o.nodes,
    provider: choice.name,
    ...(choice.withSimulated ? { withSimulated: true } : {}),
    stateDir,
    logger: fileLogger('peerpods', logFile),
    orphanGraceMs: o.orphanGrace,
  });
  const manifestPath = path.join(stateDir, 'peer-pod.yaml');
  writeFileSync(manifestPath, peerPodYaml('peer-pod-1'));
  // A provider beside the first gets its own ready-made peer pod.
  const second = local.stack.providers[1]?.binding;
  const beside = second && { binding: second, manifestPath: path.join(stateDir, `peer-pod-${second.provider}.yaml`) };
  if (beside) writeFileSync(beside.manifestPath, peerPodYaml(`peer-pod-${second.provider}-1`, second.runtimeClassName));
  const { stack } = local;
  for (const line of bannerLines({
    url: local.cp.url,
    kubeconfigPath,
    stateDir,
    logFile,
    manifestPath,
    ...(beside ? { beside } : {}),
    provider: choice,
    providerConfig: stack.providerConfig,
    nodes: local.nodes,
    clusterUid: stack.clusterUid,
    reapedAtStart: stack.reapedAtStart,
  }))
    print(line);
  print(
    `peerpods ready: ${local.nodes.length} nodes, provider${choice.withSimulated ? 's' : ''} ${names} (Ctrl-C stops everything)`,
  );
  return { local, choice, stateDir };
}

/** Prints the summary when it changes; returns the function that stops it. */
function liveSummary(local: LocalStack, intervalMs: number, print: (line: string) => void): () => Promise<void> {
  let last = '';
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const tick = async (): Promise<void> => {
    try {
      const line = formatSummary(await summarize(local.stack.client, local.stack.providers, local.stack.clusterUid));
      if (line !== last && !stopped) print(`[${new Date().toTimeString().slice(0, 8)}] ${line}`);
      last = line;
    } catch {
      // A missed tick (the API busy or stopping) is shown by the next one.
    }
  };
  running = tick();
  const timer = setInterval(() => {
    running = running.then(tick);
  }, intervalMs);
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}

/** Stops the stack and proves no VM process is left; throws (exit 1) when one is. */
export async function stopMain(
  local: LocalStack,
  choice: ProviderChoice,
  stateDir: string,
  print: (line: string) => void,
): Promise<DrainReport> {
  print('peerpods: deleting peer pods (their adaptors delete the VMs), then stopping');
  const report = await local.stop();
  const forced = report.forceDeleted ? `, ${report.forceDeleted} force-deleted` : '';
  const direct = report.vmsDeletedDirectly ? `, ${report.vmsDeletedDirectly} VM(s) deleted through the provider` : '';
  const spares = report.sparesDeleted ? `, ${report.sparesDeleted} warm pool spare(s) deleted` : '';
  print(`peerpods: ${report.podsDeleted} peer pod(s) deleted${forced}${direct}${spares} in ${report.ms} ms`);
  if (choice.name === 'qemu') {
    const left = await qemuProcessesUnder(path.join(stateDir, 'qemu'));
    if (left.length > 0) throw new Error(`VM processes left behind: ${left.map((p) => p.pid).join(', ')}`);
    const simulated = choice.withSimulated ? `; ${report.vmsLeft} simulated VM(s) left` : '';
    print(`peerpods: stopped; no VM process left${simulated}`);
  } else {
    print(`peerpods: stopped; ${report.vmsLeft} simulated VM(s) left`);
  }
  return report;
}

/** `peerpods start`: the stack until a signal stops it. */
export async function runStart(o: StartOptions): Promise<void> {
  const print = (line: string): void => console.log(line);
  // Handled from the start: a signal during start-up (or right after `peerpods ready`) must still
  // stop the cluster's pods, which a default SIGTERM death would leave running.
  let stopSummary: () => Promise<void> = async () => undefined;
  const starting = startMain(o, print);
  onShutdown(async () => {
    const started = await starting.catch(() => undefined);
    if (!started) return;
    await stopSummary();
    try {
      await stopMain(started.local, started.choice, started.stateDir, print);
    } finally {
      started.lock.release();
    }
  });
  stopSummary = liveSummary((await starting).local, o.summaryInterval, print);
}
