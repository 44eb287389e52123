// `npm run bench -- --only storage`: the durable store (SQLite journal, storage/sqlite.ts) against
// the memory backend in the same run. Write throughput of the Storage interface itself (the
// registry's cost on top is the same for both): creates then updates of ~1 KiB ConfigMaps, for the
// memory backend and for SQLite with synchronous=NORMAL (survives SIGKILL) and FULL (also a power
// loss: one fsync per commit). Recovery: a child fills a store with 100,000 objects and is
// SIGKILLed; the figure is opening that store (WAL recovery + loading every object and the kept
// history) until the first LIST answers. The etcd backend's figures come from storage-etcd.ts.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStorage, SqliteStorage } from '../src/kube/index.ts';
import type { Storage } from '../src/kube/index.ts';
import { BENCH_DIR, MiB, nowMs, round } from './common.ts';
import { runEtcdStorageBench, type EtcdFigures } from './storage-etcd.ts';

export const RECOVERY_OBJECTS = 100_000;
/** Recovery of 100,000 objects within this (a restart of `npm start` should not wait on its store). */
export const RECOVERY_TARGET_SECONDS = 5;

export interface WriteFigures {
  backend: string;
  writes: number;
  writesPerSec: number;
  /** Relative to the memory backend in the same run. */
  ratioToMemory: number;
}

export interface StorageResults {
  objectBytes: number;
  writes: WriteFigures[];
  recovery: {
    objects: number;
    storeBytes: number;
    fillSeconds: number;
    /** Opening the store a SIGKILLed process left (WAL recovery included) until the first LIST. */
    afterKillSeconds: number;
    /** CPU time of that open (the wall time stretches with the machine's load). */
    afterKillCpuSeconds: number;
    /** The same store reopened after a clean close. */
    afterCloseSeconds: number;
    heapGrowthBytes: number;
    met: boolean;
  };
  /** The etcd backend: its write rate is also in `writes`. */
  etcd: EtcdFigures;
}

const OBJECT_BYTES = 1024;

function configMap(i: number, value: string) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: `ns-${i % 100}` },
    data: { value },
  };
}

/** `count` creates then `count` updates of each; writes per second over both. */
function writeRate(storage: Storage, count: number): number {
  const value = 'x'.repeat(OBJECT_BYTES);
  const t0 = nowMs();
  const revisions: number[] = [];
  for (let i = 0; i < count; i++)
    revisions.push(storage.create(`/core/configmaps/ns-${i % 100}/cm-${i}`, configMap(i, value)).revision);
  for (let i = 0; i < count; i++)
    storage.update(`/core/configmaps/ns-${i % 100}/cm-${i}`, configMap(i, `${value}y`), revisions[i]);
  return (2 * count) / ((nowMs() - t0) / 1000);
}

function dirBytes(dir: string): number {
  return readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}

async function fillAndKill(dir: string, count: number): Promise<number> {
  const t0 = nowMs();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(BENCH_DIR, 'workers/storage-fill.ts'), dir, String(count), String(OBJECT_BYTES)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('filled')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the filling process exited (${code}) before it filled the store`)));
  });
  const seconds = (nowMs() - t0) / 1000;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
  return seconds;
}

/** Wall time, and CPU time of this process (the figure a loaded machine distorts least). */
function timedOpen(dir: string): { seconds: number; cpuSeconds: number; storage: SqliteStorage } {
  const t0 = nowMs();
  const cpu0 = process.cpuUsage();
  const storage = new SqliteStorage(dir);
  const listed = storage.list('/core/configmaps/').length;
  const cpu = process.cpuUsage(cpu0);
  const seconds = (nowMs() - t0) / 1000;
  if (listed !== RECOVERY_OBJECTS) throw new Error(`recovered ${listed} of ${RECOVERY_OBJECTS} objects`);
  return { seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, storage };
}

export async function runStorageBench(log: (s: string) => void): Promise<StorageResults> {
  const root = mkdtempSync(join(tmpdir(), 'peerpods-bench-storage-'));
  try {
    const backends: Array<{ backend: string; writes: number; open: (dir: string) => Storage & { close?(): void } }> = [
      { backend: 'memory', writes: 20_000, open: () => new MemoryStorage() },
      { backend: 'sqlite synchronous=NORMAL', writes: 20_000, open: (d) => new SqliteStorage(d) },
      // One fsync per commit: fewer writes, the rate is what counts.
      { backend: 'sqlite synchronous=FULL', writes: 2_000, open: (d) => new SqliteStorage(d, { synchronous: 'FULL' }) },
    ];
    const writes: WriteFigures[] = [];
    for (const b of backends) {
      const storage = b.open(mkdtempSync(join(root, 'w-')));
      const rate = writeRate(storage, b.writes / 2);
      storage.close?.();
      writes.push({
        backend: b.backend,
        writes: b.writes,
        writesPerSec: round(rate),
        ratioToMemory: round(rate / (writes[0]?.writesPerSec ?? rate), 4),
      });
      log(`storage: ${b.backend}: ${round(rate)} writes/s`);
    }

    const etcd = await runEtcdStorageBench(root, writeRate, 2_000, RECOVERY_OBJECTS, OBJECT_BYTES, log);
    writes.push({
      backend: 'etcd (local, one member, fsync)',
      writes: etcd.writes,
      writesPerSec: etcd.writesPerSec,
      ratioToMemory: round(etcd.writesPerSec / writes[0].writesPerSec, 4),
    });

    const dir = mkdtempSync(join(root, 'recovery-'));
    log(`storage: filling a store with ${RECOVERY_OBJECTS} objects in a child, then SIGKILL`);
    const fillSeconds = await fillAndKill(dir, RECOVERY_OBJECTS);
    const storeBytes = dirBytes(dir);
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const afterKill = timedOpen(dir);
    global.gc?.();
    const heapGrowthBytes = process.memoryUsage().heapUsed - heapBefore;
    afterKill.storage.close();
    const afterClose = timedOpen(dir);
    afterClose.storage.close();
    log(
      `storage: recovery of ${RECOVERY_OBJECTS} objects (${round(storeBytes / MiB)} MiB on disk): ` +
        `${round(afterKill.seconds, 2)} s after SIGKILL (${round(afterKill.cpuSeconds, 2)} s CPU), ${round(afterClose.seconds, 2)} s after a clean close`,
    );
    return {
      objectBytes: OBJECT_BYTES,
      writes,
      recovery: {
        objects: RECOVERY_OBJECTS,
        storeBytes,
        fillSeconds: round(fillSeconds, 2),
        afterKillSeconds: round(afterKill.seconds, 3),
        afterKillCpuSeconds: round(afterKill.cpuSeconds, 3),
        afterCloseSeconds: round(afterClose.seconds, 3),
        heapGrowthBytes,
        met: afterKill.seconds <= RECOVERY_TARGET_SECONDS,
      },
      etcd,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
