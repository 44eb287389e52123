// Process pods listen on loopback addresses, 127.<block>.<node>.<host>. Every embedded cluster on
// this machine (a `peerpods start`, tests running side by side) would otherwise give its first
// node's first pod the same address, and two operators would fight over one port. So each process
// runtime claims a block of its own for as long as it runs: first 127.244 (the loopback twin of
// the nodes' 10.244 pod CIDRs), then the next free one. Claims are files in the temp directory
// holding the claimer's PID; a claim whose PID is gone is stale and is taken over.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** 244..254, then 243 down to 100. */
const CANDIDATES = [
  ...Array.from({ length: 11 }, (_, i) => 244 + i),
  ...Array.from({ length: 144 }, (_, i) => 243 - i),
];
/** Blocks claimed by this process (several clusters may run in one process). */
const heldHere = new Set<number>();

function claimFile(block: number): string {
  return join(tmpdir(), `peerpods-loopback-127.${block}.lock`);
}

function ownerAlive(file: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(file, 'utf8').trim());
  } catch {
    return false;
  }
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface LoopbackBlock {
  /** The second octet of every process pod IP of this runtime. */
  readonly block: number;
  release(): void;
}

export function claimLoopbackBlock(): LoopbackBlock {
  for (const block of CANDIDATES) {
    if (heldHere.has(block)) continue;
    const file = claimFile(block);
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') continue;
      // Held by a live process (or by an earlier cluster of ours that is still running): next one.
      if (ownerAlive(file)) continue;
      rmSync(file, { force: true });
      try {
        writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      } catch {
        continue;
      }
    }
    heldHere.add(block);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      heldHere.delete(block);
      process.off('exit', release);
      rmSync(file, { force: true });
    };
    process.on('exit', release);
    return { block, release };
  }
  // Every block taken: share the first rather than refuse to run (ports may then collide).
  return { block: CANDIDATES[0], release: () => undefined };
}
