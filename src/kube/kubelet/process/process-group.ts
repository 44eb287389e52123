// Container processes run detached, each the leader of its own process group, so a signal reaches
// everything the container started. Every live group is remembered here so that nothing outlives
// this process: a synchronous `exit` handler SIGKILLs whatever is left.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { constants } from 'node:os';

const live = new Set<number>();
let safetyNet = false;

function killGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // already gone
  }
}

function armSafetyNet(): void {
  if (safetyNet) return;
  safetyNet = true;
  process.on('exit', () => {
    for (const pgid of live) killGroup(pgid, 'SIGKILL');
  });
}

/** A process group started for a container or an exec. */
export class ProcessGroup {
  readonly child: ChildProcess;
  readonly pid: number | undefined;
  /** Resolves once the leader exited and its pipes closed. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Set when the process could not be started (e.g. ENOENT). */
  spawnError?: Error;

  constructor(argv: string[], options: Omit<SpawnOptions, 'detached'>) {
    armSafetyNet();
    this.child = spawn(argv[0], argv.slice(1), { ...options, detached: true });
    this.pid = this.child.pid;
    // A write to a process that already exited (EPIPE) must not take the cluster down.
    for (const pipe of [this.child.stdin, this.child.stdout, this.child.stderr]) pipe?.on('error', () => undefined);
    if (this.pid !== undefined) live.add(this.pid);
    this.exited = new Promise((resolve) => {
      this.child.once('error', (e) => {
        this.spawnError = e;
        if (this.pid === undefined) resolve({ code: null, signal: null });
      });
      this.child.once('exit', () => {
        // Children the leader left behind die with it, as a container's do with its PID 1; that
        // also closes the pipes they held, so 'close' follows.
        if (this.pid === undefined) return;
        killGroup(this.pid, 'SIGKILL');
        live.delete(this.pid);
      });
      this.child.once('close', (code, signal) => resolve({ code, signal }));
    });
  }

  signal(signal: NodeJS.Signals): void {
    if (this.pid !== undefined && live.has(this.pid)) killGroup(this.pid, signal);
  }

  /** SIGTERM, then SIGKILL after `graceMs` unless the leader exited; resolves once it did. */
  async stop(graceMs: number): Promise<void> {
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    try {
      await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Process groups still running (for the safety net and tests). */
export function liveProcessGroups(): number[] {
  return [...live];
}

/** Exit code as a container runtime reports it: the code, or 128 + the signal's number. */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return 128 + (signal ? (constants.signals[signal] ?? 0) : 0);
}
