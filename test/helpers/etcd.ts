// A throwaway single-member etcd (Debian's etcd-server, installed by scripts/system-deps.sh) for
// tests of the etcd store: on tmpfs when there is one, since each commit is fsynced.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalEtcd } from '../../src/kube/index.ts';

export interface TestEtcd {
  etcd: LocalEtcd;
  dir: string;
  /** Stops it and starts it again on the same data and port (clients reconnect). */
  restart(): Promise<void>;
}

export async function startTestEtcd(t: { after(fn: () => unknown): void }): Promise<TestEtcd> {
  const dir = mkdtempSync(path.join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'peerpods-etcd-'));
  const handle: TestEtcd = {
    etcd: await LocalEtcd.start({ dir }),
    dir,
    async restart() {
      const port = Number(new URL(handle.etcd.endpoint).port);
      await handle.etcd.stop();
      handle.etcd = await LocalEtcd.start({ dir, port });
    },
  };
  t.after(async () => {
    await handle.etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return handle;
}
