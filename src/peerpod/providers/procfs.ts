// Process checks through /proc. A PID alone proves nothing after a restart (PIDs are reused), so a
// VM's process is only "its" process while /proc/<pid>/cmdline still carries the VM's UUID, or while
// the PID still has the start time recorded when it was launched (the command line of a process is
// empty for a moment while it execs, and a wrapper's is not QEMU's yet). That is also what makes a
// SIGKILL by PID safe.
import { readFile, readdir } from 'node:fs/promises';

async function readProc(pid: number, file: string): Promise<string | undefined> {
  try {
    return await readFile(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}

export async function cmdlineArgs(pid: number): Promise<string[] | undefined> {
  const raw = await readProc(pid, 'cmdline');
  if (raw === undefined || raw === '') return undefined;
  const args = raw.split('\0');
  if (args[args.length - 1] === '') args.pop();
  return args;
}

/** Zombies keep their /proc entry but have no cmdline, so they count as gone. */
export async function processHasArg(pid: number, arg: string): Promise<boolean> {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  const args = await cmdlineArgs(pid);
  return args !== undefined && args.includes(arg);
}

/** Every PID whose command line contains `arg` as a whole argument. */
export async function findPidsWithArg(arg: string): Promise<number[]> {
  const entries = await readdir('/proc');
  const pids = entries.filter((e) => /^\d+$/.test(e)).map(Number);
  const found: number[] = [];
  for (const pid of pids) {
    if (pid === process.pid) continue;
    if (await processHasArg(pid, arg)) found.push(pid);
  }
  return found;
}

export async function processComm(pid: number): Promise<string | undefined> {
  return (await readProc(pid, 'comm'))?.trim();
}

export interface ProcessStat {
  /** Field 3: R, S, D, Z (exited, not reaped), X (dead), ... */
  state: string;
  /** Field 22, clock ticks after boot: with the PID, it names one process for good, across its execs. */
  startTime: string;
}

export async function processStat(pid: number): Promise<ProcessStat | undefined> {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  const stat = await readProc(pid, 'stat');
  if (stat === undefined) return undefined;
  // The fields after the parenthesised comm (which may itself contain spaces or parentheses), from field 3.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields.length < 20) return undefined;
  return { state: fields[0], startTime: fields[19] };
}

/** The process at `pid`, unless it has exited (zombies keep a /proc entry but are not running). */
export async function liveProcessStat(pid: number): Promise<ProcessStat | undefined> {
  const stat = await processStat(pid);
  return stat && stat.state !== 'Z' && stat.state !== 'X' ? stat : undefined;
}

/** Zombies (exited, not yet reaped) keep a /proc entry and their comm but are not running. */
export async function isZombie(pid: number): Promise<boolean> {
  return (await processStat(pid))?.state === 'Z';
}

/** Live (non-zombie) PIDs whose /proc/<pid>/comm equals `comm` (the kernel's 15-character name). */
export async function findPidsByComm(comm: string): Promise<number[]> {
  const entries = await readdir('/proc');
  const found: number[] = [];
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    const pid = Number(e);
    if ((await processComm(pid)) === comm && !(await isZombie(pid))) found.push(pid);
  }
  return found;
}
