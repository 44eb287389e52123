// Process groups a killed run left behind. Container processes run detached (process-group.ts), so a
// SIGKILL of the cluster's own process leaves them running, talking to an API server that is gone
// and holding their pods' addresses and ports. With a kept state directory the next run starts
// those pods again (their tokens and the API server's address changed with the restart): first it
// kills what the dead run left, found through a ledger in each pod directory, so no pod ever runs
// twice. A VM a container started is a process group of its own and is not touched.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const LEDGER = 'groups';

/** The kernel's start time of `pid` (clock ticks since boot): a PID reused later has another. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may itself hold spaces and parentheses.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/** Notes a started process group in its pod directory: who started it, and when it started. */
export function recordGroup(podDir: string, pgid: number): void {
  const start = startTimeOf(pgid);
  if (start === undefined) return;
  try {
    mkdirSync(join(podDir, LEDGER), { recursive: true });
    writeFileSync(join(podDir, LEDGER, String(pgid)), `${process.pid} ${start}\n`);
  } catch {
    // Without the note only a restart after a SIGKILL is affected; the container runs all the same.
  }
}

/**
 * Kills every process group recorded under `<stateDir>/pods` by a run that is no longer alive, waits
 * (at most `waitMs`) for them to exit, and removes those pod directories. Pods of a live run on the
 * same directory are left alone. Returns how many groups were killed.
 */
export function reapLeftoverGroups(stateDir: string, waitMs = 5000): number {
  const podsDir = join(stateDir, 'pods');
  let podDirs: string[];
  try {
    podDirs = readdirSync(podsDir);
  } catch {
    return 0;
  }
  const killed: number[] = [];
  for (const uid of podDirs) {
    const ledger = join(podsDir, uid, LEDGER);
    let entries: string[];
    try {
      entries = readdirSync(ledger);
    } catch {
      continue;
    }
    let ownedByLiveRun = false;
    for (const entry of entries) {
      const [owner, start] = readFileSync(join(ledger, entry), 'utf8').trim().split(' ');
      if (Number(owner) === process.pid || isAlive(Number(owner))) {
        ownedByLiveRun = true;
        continue;
      }
      const pgid = Number(entry);
      if (!Number.isInteger(pgid) || pgid <= 1 || startTimeOf(pgid) !== start) continue;
      try {
        process.kill(-pgid, 'SIGKILL');
        killed.push(pgid);
      } catch {
        // Gone meanwhile.
      }
    }
    if (!ownedByLiveRun) rmSync(join(podsDir, uid), { recursive: true, force: true });
  }
  // The new pods may take the same addresses and ports: wait until the old ones are gone.
  const deadline = Date.now() + waitMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (killed.some(isAlive) && Date.now() < deadline) Atomics.wait(pause, 0, 0, 20);
  return killed.length;
}
