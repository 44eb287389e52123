// Starts an embedded control plane for a test file, with its kubeconfig on disk.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControlPlane, type ControlPlane, type ControlPlaneOptions } from '../../src/kube/index.ts';

export interface TestCluster extends ControlPlane {
  kubeconfigPath: string;
  dir: string;
}

export async function startTestCluster(options: ControlPlaneOptions = {}): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'peerpods-test-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  const cp = await startControlPlane({ ...options, kubeconfigPath });
  const stop = cp.stop.bind(cp);
  return Object.assign(cp, {
    kubeconfigPath,
    dir,
    async stop() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

/** Polls `check` until it returns a truthy value or the deadline passes. */
export async function eventually<T>(
  check: () => T | Promise<T>,
  opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
      last = v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for ${opts.what ?? 'condition'}; last: ${last instanceof Error ? last.message : JSON.stringify(last)}`,
      );
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 50));
  }
}
