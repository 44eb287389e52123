// Runs the real `peerpods` CLI as a child process and follows its output.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where e2e state directories go: not under /tmp, which the PeerPod controller's pod mounts an
 * emptyDir over, so it would not see the VMs there (`peerpods start` refuses such a directory).
 */
export const STATE_TMPDIR = '/var/tmp';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface CliRun {
  child: ChildProcessWithoutNullStreams;
  output(): string;
  /** Resolves when a stdout line matches, rejects at the deadline or when the process exits first. */
  waitForLine(re: RegExp, timeoutMs: number): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): CliRun {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/peerpods.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
  let out = '';
  const waiters: Array<() => void> = [];
  const onData = (d: Buffer): void => {
    out += d.toString();
    for (const w of waiters.splice(0)) w();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  // Set before the waiters run: a waiter woken by the exit must see it, not wait for a later wake-up.
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
      for (const w of waiters.splice(0)) w();
    }),
  );
  return {
    child,
    output: () => out,
    exited,
    waitForLine(re, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const line = out.split('\n').find((l) => re.test(l));
          if (line !== undefined) return resolve(line);
          if (done) return reject(new Error(`exited before printing ${re}:\n${out}`));
          if (Date.now() > deadline) return reject(new Error(`no line matching ${re} within ${timeoutMs} ms:\n${out}`));
          waiters.push(check);
          setTimeout(check, Math.max(0, deadline - Date.now()) + 10).unref();
        };
        check();
      });
    },
  };
}

/** PIDs of live processes (zombies excluded) whose command line or environment mentions `marker`. */
export function processesMentioning(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const environ = readFileSync(`/proc/${entry}/environ`, 'utf8');
      const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1];
      if (state !== 'Z' && (cmdline.includes(marker) || environ.includes(marker))) found.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** SIGKILLs every process that mentions `marker` (a test's temporary directory): nothing outlives a test. */
export function killProcessesMentioning(marker: string): void {
  for (const pid of processesMentioning(marker)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
