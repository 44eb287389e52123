// The etcd backend (storage/etcd/) in the storage bench: sequential write throughput through the
// Storage interface against a local single-member etcd with its data on this machine's disk
// (every commit fsynced), and recovery at 100,000 objects: an API server that restarts on a
// running etcd (read every object, page by page, until the first LIST), and both SIGKILLed
// (etcd replays its WAL, then the same read).
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import { EtcdStorage, LocalEtcd } from '../src/kube/index.ts';
import { nowMs, round } from './common.ts';

export interface EtcdFigures {
  writes: number;
  writesPerSec: number;
  recovery: {
    objects: number;
    /** Filling etcd directly, 100 puts in flight. */
    fillSeconds: number;
    /** A new API server on the running etcd: open + load until the first LIST. */
    apiServerRestartSeconds: number;
    /** etcd SIGKILLed too: etcd's start (WAL replay) + the same open. */
    afterKillSeconds: number;
  };
}

const IN_FLIGHT = 100;

function configMapJson(i: number, value: string): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `cm-${i}`,
      namespace: `ns-${i % 100}`,
      uid: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`,
    },
    data: { value },
  });
}

function timedOpen(endpoint: string, objects: number): number {
  const t0 = nowMs();
  const storage = new EtcdStorage({ endpoints: [endpoint] });
  const listed = storage.list('/core/configmaps/').length;
  const seconds = (nowMs() - t0) / 1000;
  void storage.close();
  if (listed !== objects) throw new Error(`etcd recovery listed ${listed} of ${objects} objects`);
  return seconds;
}

export async function runEtcdStorageBench(
  root: string,
  writeRate: (storage: EtcdStorage, count: number) => number,
  writes: number,
  objects: number,
  objectBytes: number,
  log: (s: string) => void,
): Promise<EtcdFigures> {
  let etcd = await LocalEtcd.start({ dir: mkdtempSync(join(root, 'etcd-')) });
  try {
    const storage = new EtcdStorage({ endpoints: [etcd.endpoint] });
    const rate = writeRate(storage, writes / 2);
    await storage.close();
    log(`storage: etcd (local, fsync): ${round(rate)} writes/s`);

    // A fresh etcd for recovery, filled directly (the Storage interface writes one at a time).
    await etcd.stop();
    etcd = await LocalEtcd.start({ dir: mkdtempSync(join(root, 'etcd-recovery-')) });
    const client = new Etcd3({ hosts: etcd.endpoint });
    const value = 'x'.repeat(objectBytes);
    const t0 = nowMs();
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        for (let i = next++; i < objects; i = next++) {
          await client.kv.put({
            key: Buffer.from(`/registry/core/configmaps/ns-${i % 100}/cm-${i}`),
            value: Buffer.from(configMapJson(i, value)),
          });
        }
      }),
    );
    client.close();
    const fillSeconds = (nowMs() - t0) / 1000;
    log(`storage: etcd filled with ${objects} objects in ${round(fillSeconds, 1)} s`);
    const apiServerRestartSeconds = timedOpen(etcd.endpoint, objects);

    const recoveryDir = etcd.dir;
    const port = Number(new URL(etcd.endpoint).port);
    process.kill(etcd.pid, 'SIGKILL');
    await etcd.stop();
    const t1 = nowMs();
    etcd = await LocalEtcd.start({ dir: recoveryDir, port });
    const afterKillSeconds = (nowMs() - t1) / 1000 + timedOpen(etcd.endpoint, objects);
    log(
      `storage: etcd recovery of ${objects} objects: ${round(apiServerRestartSeconds, 2)} s for a new API server, ` +
        `${round(afterKillSeconds, 2)} s with etcd SIGKILLed too`,
    );
    return {
      writes,
      writesPerSec: round(rate),
      recovery: {
        objects,
        fillSeconds: round(fillSeconds, 2),
        apiServerRestartSeconds: round(apiServerRestartSeconds, 3),
        afterKillSeconds: round(afterKillSeconds, 3),
      },
    };
  } finally {
    await etcd.stop();
  }
}
