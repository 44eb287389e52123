// `peerpods --help` from a cold process to its exit, the cost every CLI call and every process
// pod pays before doing anything. Measured in one run, interleaved so load hits every variant alike:
// - before: the CLI as it was until issue #17 — commit BEFORE_COMMIT (every command's code imported
//   up front, the sources compiled by tsx), extracted from git into a temporary directory;
// - source: today's dev loop, `PEERPODS_FROM_SOURCE=1 peerpods --help` (lazy commands, tsx);
// - after: `peerpods --help` from the build, as an installed package runs it (PEERPODS_FROM_SOURCE=0:
//   no check of a checkout's src/ against the build, which a concurrent edit would send to tsx);
// - node: `node -e 0`, node's own start, the floor under all of them.
// CLI_STARTUP_N runs of each (default 20); median and p90 of the wall time, and the median CPU time
// (user + system, which a busy machine inflates less than the wall time). The target is a median
// wall time under 300 ms.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nowMs, percentile, round } from './common.ts';

export const CLI_STARTUP_TARGET_MS = 300;
/** The last commit whose CLI loaded every command up front and ran only from the sources. */
export const BEFORE_COMMIT = '2d0fe29b2b469ced971433f5493c1096bb6b8505';

const N = Number(process.env.CLI_STARTUP_N ?? 20);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/peerpods.js');

export interface StartupFigure {
  command: string;
  medianMs: number;
  p90Ms: number;
  runsMs: number[];
  /** Median CPU time (user + system) of the process. */
  cpuMedianMs: number;
}

export interface CliStartupResults {
  runs: number;
  before?: StartupFigure;
  source: StartupFigure;
  after: StartupFigure;
  node: StartupFigure;
  /** before (or source, without git) ÷ after. */
  speedup: number;
  targetMs: number;
  met: boolean;
  loadAverageAtStart: number[];
}

interface Variant {
  name: 'before' | 'source' | 'after' | 'node';
  command: string;
  argv: string[];
  env?: Record<string, string>;
}

/** Preloaded into every measured process: its total CPU time, written to fd 3 as it exits. */
const CPU_PROBE = `data:text/javascript,${encodeURIComponent(
  "import { writeSync } from 'node:fs'; process.on('exit', () => { const u = process.cpuUsage(); writeSync(3, String((u.user + u.system) / 1000)); });",
)}`;

interface Sample {
  wallMs: number;
  cpuMs: number;
}

/** One process from spawn to exit; rejects unless it exits 0. */
function timeOnce(v: Variant): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const t0 = nowMs();
    const child = spawn(process.execPath, ['--import', CPU_PROBE, ...v.argv], {
      cwd: ROOT,
      env: { ...process.env, ...v.env },
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    let err = '';
    let cpu = '';
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    child.stdio[3]?.on('data', (d: Buffer) => (cpu += d.toString()));
    child.once('error', reject);
    let wallMs = 0;
    child.once('exit', () => (wallMs = nowMs() - t0));
    // 'close' comes after the pipes' last data (the CPU time), 'exit' is when the process ended.
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`bench: \`${v.command}\` exited ${code}:\n${err}`));
      resolve({ wallMs, cpuMs: Number(cpu) });
    });
  });
}

/** The CLI at BEFORE_COMMIT in a temporary directory (sharing this checkout's node_modules), or undefined without git. */
function checkoutBefore(): string | undefined {
  try {
    const dir = mkdtempSync(join(tmpdir(), 'peerpods-bench-cli-before-'));
    execFileSync('sh', ['-c', `git -C "${ROOT}" archive ${BEFORE_COMMIT} bin src package.json | tar -x -C "${dir}"`]);
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    return dir;
  } catch {
    return undefined;
  }
}

function figure(v: Variant, samples: Sample[]): StartupFigure {
  const wall = samples.map((s) => s.wallMs).sort((a, b) => a - b);
  const cpu = samples.map((s) => s.cpuMs).sort((a, b) => a - b);
  return {
    command: v.command,
    medianMs: round(percentile(wall, 50)),
    p90Ms: round(percentile(wall, 90)),
    runsMs: samples.map((s) => round(s.wallMs)),
    cpuMedianMs: round(percentile(cpu, 50)),
  };
}

export async function runCliStartupBench(log: (line: string) => void): Promise<CliStartupResults> {
  const loadAverageAtStart = loadavg().map((l) => round(l, 2));
  // A fresh build, or `after` would measure the sources (bin/peerpods.js falls back to them).
  execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { stdio: 'inherit' });
  const before = checkoutBefore();
  const variants: Variant[] = [
    ...(before
      ? [
          {
            name: 'before' as const,
            command: `peerpods --help at ${BEFORE_COMMIT.slice(0, 7)} (sources through tsx)`,
            argv: [join(before, 'bin/peerpods.js'), '--help'],
          },
        ]
      : []),
    {
      name: 'source',
      command: 'PEERPODS_FROM_SOURCE=1 peerpods --help',
      argv: [BIN, '--help'],
      env: { PEERPODS_FROM_SOURCE: '1' },
    },
    // As installed from the registry: dist/, even if a source changes meanwhile (others may edit).
    {
      name: 'after',
      command: 'peerpods --help (dist/)',
      argv: [BIN, '--help'],
      env: { PEERPODS_FROM_SOURCE: '0' },
    },
    { name: 'node', command: 'node -e 0', argv: ['-e', '0'] },
  ];
  const runs = new Map<string, Sample[]>(variants.map((v) => [v.name, []]));
  try {
    // One warm-up each (disk cache), then the rounds, interleaved.
    for (const v of variants) await timeOnce(v);
    for (let i = 0; i < N; i++) {
      for (const v of variants) runs.get(v.name)?.push(await timeOnce(v));
    }
  } finally {
    if (before) rmSync(before, { recursive: true, force: true });
  }
  const fig = (name: Variant['name']): StartupFigure | undefined => {
    const v = variants.find((x) => x.name === name);
    return v ? figure(v, runs.get(name) ?? []) : undefined;
  };
  const after = fig('after') as StartupFigure;
  const source = fig('source') as StartupFigure;
  const reference = fig('before') ?? source;
  const results: CliStartupResults = {
    runs: N,
    ...(before ? { before: fig('before') } : {}),
    source,
    after,
    node: fig('node') as StartupFigure,
    speedup: round(reference.medianMs / after.medianMs, 2),
    targetMs: CLI_STARTUP_TARGET_MS,
    met: after.medianMs < CLI_STARTUP_TARGET_MS,
    loadAverageAtStart,
  };
  for (const f of [results.before, source, after, results.node]) {
    if (f) log(`  ${f.command}: median ${f.medianMs} ms, p90 ${f.p90Ms} ms, CPU ${f.cpuMedianMs} ms`);
  }
  return results;
}
