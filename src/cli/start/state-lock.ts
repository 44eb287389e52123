// The state directory of `peerpods start` belongs to one run at a time: a second run would reap the
// first one's live VMs and overwrite its kubeconfig. The lock is a file holding the owner's PID,
// created exclusively; a lock whose PID is no longer a peerpods process is stale (the run was
// killed) and is taken over, after which the new run resumes that run's cluster from its store.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const LOCK_FILE = 'peerpods.lock';

export class StateDirLockedError extends Error {
  constructor(
    readonly stateDir: string,
    readonly pid: number,
  ) {
    super(
      `state directory ${stateDir} is in use by another \`peerpods start\` (PID ${pid}); ` +
        'stop it first, or give this run another --kubeconfig (its directory holds the state)',
    );
    this.name = 'StateDirLockedError';
  }
}

export interface StateDirLock {
  /** The PID of the run whose stale lock was taken over, if any. */
  takenOverFrom?: number;
  release(): void;
}

/** Whether `pid` is a live peerpods process (not a zombie, not a reused PID of something else). */
function isLivePeerpods(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    if (/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'))) return false;
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('peerpods');
  } catch {
    // No /proc to ask: a live PID is taken as the owner.
    return true;
  }
}

function readOwner(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

export function lockStateDir(stateDir: string): StateDirLock {
  mkdirSync(stateDir, { recursive: true });
  const file = path.join(stateDir, LOCK_FILE);
  let takenOverFrom: number | undefined;
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 5) throw err;
    }
    const owner = readOwner(file);
    if (owner !== undefined && owner !== process.pid && isLivePeerpods(owner))
      throw new StateDirLockedError(stateDir, owner);
    // Stale (or unreadable, or half-written by a run that died at once): take it over.
    if (owner !== undefined) takenOverFrom = owner;
    rmSync(file, { force: true });
  }
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.off('exit', release);
    if (readOwner(file) === process.pid) rmSync(file, { force: true });
  };
  process.on('exit', release);
  return { ...(takenOverFrom !== undefined ? { takenOverFrom } : {}), release };
}
