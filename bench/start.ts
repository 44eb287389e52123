// `peerpods start` (= `npm start`) until its `peerpods ready` line: the CLI spawned as a user runs
// it, the embedded cluster started, `install` + `deploy` + settings + the sample PeerPodConfig
// applied, and every component (the controllers, the webhook, an adaptor per node — all process
// pods) Ready. START_N runs (default 3), each stopped with SIGTERM before the next; the median is
// held to the 15 s target. The phases come from the run's own log (local-stack.ts writes them).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { nowMs, round } from './common.ts';

const N = Number(process.env.START_N ?? 3);
const BIN = new URL('../bin/peerpods.js', import.meta.url).pathname;
export const START_TARGET_SECONDS = 15;

export interface StartResults {
  runs: number;
  provider: string;
  readySeconds: number[];
  medianReadySeconds: number;
  met: boolean;
  /** Median ms since the stack began starting (after the CLI loaded), per phase of the log. */
  phasesMs: Record<string, number>;
  loadAverages: number[];
}

interface OneRun {
  readySeconds: number;
  provider: string;
  phases: Record<string, number>;
}

async function once(): Promise<OneRun> {
  // Not under /tmp: the PeerPod controller's pod mounts an emptyDir there (see local-stack.ts).
  const dir = mkdtempSync(join('/var/tmp', 'peerpods-bench-start-'));
  const t0 = nowMs();
  const child = spawn(process.execPath, [BIN, 'start', '--port', '0', '--kubeconfig', join(dir, 'kubeconfig')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  try {
    const readyMs = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`bench: no "peerpods ready" within 120 s:\n${out}`)), 120_000);
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (/^peerpods ready/m.test(out)) {
          clearTimeout(timer);
          resolve(nowMs() - t0);
        }
      });
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      child.once('exit', (code) => reject(new Error(`bench: peerpods start exited (${code}):\n${out}`)));
    });
    // The log is complete once the run has stopped.
    await stop(child);
    const phases: Record<string, number> = {};
    for (const line of readFileSync(join(dir, 'peerpods.log'), 'utf8').split('\n')) {
      if (!line.includes('"ms"')) continue;
      const j = JSON.parse(line) as { ms?: number; msg?: string };
      if (typeof j.ms === 'number' && j.msg) phases[j.msg] = j.ms;
    }
    return {
      readySeconds: readyMs / 1000,
      provider: /provider (\w+)/.exec(out)?.[1] ?? 'unknown',
      phases,
    };
  } finally {
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function stop(child: ReturnType<typeof spawn>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function runStartBench(log: (s: string) => void): Promise<StartResults> {
  const runs: OneRun[] = [];
  const loadAverages: number[] = [];
  for (let i = 0; i < N; i++) {
    loadAverages.push(round(loadavg()[0], 2));
    const r = await once();
    log(`  run ${i + 1}: ready after ${round(r.readySeconds, 2)} s (provider ${r.provider})`);
    runs.push(r);
  }
  const phasesMs: Record<string, number> = {};
  for (const name of Object.keys(runs[0].phases)) {
    phasesMs[name] = round(median(runs.map((r) => r.phases[name] ?? NaN)));
  }
  const readySeconds = runs.map((r) => round(r.readySeconds, 2));
  const medianReadySeconds = median(readySeconds);
  return {
    runs: N,
    provider: runs[0].provider,
    readySeconds,
    medianReadySeconds,
    met: medianReadySeconds <= START_TARGET_SECONDS,
    phasesMs,
    loadAverages,
  };
}
