// Durable state end to end: `peerpods start` keeps the cluster's objects under its state directory,
// so after a SIGKILL of the whole CLI (its pods' processes outlive it) the next run on the same
// directory resumes — the same pod, PeerPod and VM, adopted by the restarted adaptor, nothing made
// twice, nothing deleted, no process of the killed run left. And `peerpods cluster start
// --data-dir`: a second start sees what the first stored; a directory in use is refused.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { kubectl } from '../helpers/kubectl.ts';
import { waitFor } from '../helpers/wait.ts';
import { qemuProcessesUnder } from '../../src/peerpod/index.ts';
import { STATE_TMPDIR, killProcessesMentioning, processesMentioning, runCli } from '../helpers/cli.ts';
import type { CliRun } from '../helpers/cli.ts';

type Provider = 'simulated' | 'qemu';

function startRun(kubeconfig: string, provider: Provider): CliRun {
  return runCli(['start', '--port', '0', '--kubeconfig', kubeconfig, '--provider', provider]);
}

/**
 * The VMs as the provider's own state shows them: the simulated provider's records, or the QEMU
 * processes (a VM made again would be a new process). `created` counts every VM ever made: the
 * simulated provider claims one id per create; a QEMU VM is identified by its process.
 */
async function vmsOf(dir: string, provider: Provider): Promise<{ ids: string[]; created: number }> {
  if (provider === 'qemu') {
    const pids = (await qemuProcessesUnder(dir)).map((p) => String(p.pid)).sort();
    return { ids: pids, created: pids.length };
  }
  const state = path.join(dir, 'simulated');
  return {
    ids: readdirSync(state)
      .filter((f) => f.endsWith('.json'))
      .sort(),
    created: readdirSync(path.join(state, 'ids')).length,
  };
}

for (const provider of ['simulated', 'qemu'] as const) {
  describe(
    `peerpods start (${provider}): SIGKILL, then a run on the same directory resumes`,
    { timeout: 400_000 },
    () => {
      it('keeps the pod, its PeerPod and its VM; the restarted adaptor owns the VM; nothing is made twice', async () => {
        const dir = await mkdtemp(path.join(STATE_TMPDIR, 'peerpods-resume-'));
        const kubeconfig = path.join(dir, 'kubeconfig');
        const k = async (args: string[], input?: string): Promise<string> => {
          const r = await kubectl(kubeconfig, args, { ...(input === undefined ? {} : { input }), timeoutMs: 90_000 });
          assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
          return r.stdout;
        };
        const jsonpath = (args: string[], path: string) => k([...args, '-o', `jsonpath=${path}`]);
        let next: CliRun | undefined;
        try {
          const killed = startRun(kubeconfig, provider);
          await killed.waitForLine(/^peerpods ready/, 120_000);
          await k(['create', 'configmap', 'survivor', '--from-literal=k=v']);
          await k(['apply', '-f', '-'], await readFile(path.join(dir, 'peer-pod.yaml'), 'utf8'));
          await waitFor(
            async () =>
              (await jsonpath(['get', 'pod', 'peer-pod-1'], '{.status.phase}')) === 'Running' &&
              (await jsonpath(['get', 'peerpods'], '{.items[*].spec.instanceID}')) !== '',
            'peer-pod-1 Running in its VM',
            90_000,
            200,
          );
          const podUid = await jsonpath(['get', 'pod', 'peer-pod-1'], '{.metadata.uid}');
          const peerPod = await jsonpath(['get', 'peerpods'], '{.items[0].metadata.uid} {.items[0].spec.instanceID}');
          const vms = await vmsOf(dir, provider);
          assert.equal(vms.ids.length, 1);
          const resourceVersion = Number(
            await jsonpath(['get', 'configmap', 'survivor'], '{.metadata.resourceVersion}'),
          );

          // The whole CLI dies at once; its pods' processes (own process groups) live on.
          const podsDir = path.join(dir, 'cluster', 'pods');
          // (A QEMU VM inherits its adaptor's environment but is a process group of its own: it stays.)
          const vmPids = new Set((await qemuProcessesUnder(dir)).map((p) => p.pid));
          const orphans = processesMentioning(podsDir).filter((pid) => !vmPids.has(pid));
          assert.ok(orphans.length > 0, 'pod processes outlive a SIGKILL of the CLI');
          killed.child.kill('SIGKILL');
          await killed.exited;

          next = startRun(kubeconfig, provider);
          await next.waitForLine(/^peerpods ready/, 120_000);
          assert.doesNotMatch(next.output(), /VM\(s\) an earlier run left behind/);
          // No process of the killed run is left: its pods run again as processes of this run.
          const alive = new Set(processesMentioning(podsDir));
          assert.deepEqual(
            orphans.filter((pid) => alive.has(pid)),
            [],
            'the killed run’s pod processes are gone',
          );
          // Every object is back, and resourceVersions go on from where they were.
          assert.equal(await jsonpath(['get', 'configmap', 'survivor'], '{.data.k}'), 'v');
          assert.equal(await jsonpath(['get', 'pod', 'peer-pod-1'], '{.metadata.uid}'), podUid);
          assert.equal(await jsonpath(['get', 'pod', 'peer-pod-1'], '{.status.phase}'), 'Running');
          assert.equal(
            await jsonpath(['get', 'peerpods'], '{.items[0].metadata.uid} {.items[0].spec.instanceID}'),
            peerPod,
          );
          await k(['label', 'configmap', 'survivor', 'resumed=yes']);
          assert.ok(
            Number(await jsonpath(['get', 'configmap', 'survivor'], '{.metadata.resourceVersion}')) > resourceVersion,
          );
          assert.deepEqual(await vmsOf(dir, provider), vms, 'the same VM, none created meanwhile');

          // The restarted adaptor owns the VM from its PeerPod: deleting the pod deletes that VM.
          await k(['delete', 'pod', 'peer-pod-1', '--wait=true', '--timeout=60s']);
          await waitFor(
            async () => (await vmsOf(dir, provider)).ids.length === 0,
            'the VM deleted by the adaptor',
            60_000,
            200,
          );
          await waitFor(
            async () => (await jsonpath(['get', 'peerpods'], '{.items[*].metadata.name}')) === '',
            'no PeerPod',
            60_000,
            200,
          );
          if (provider === 'simulated')
            assert.equal((await vmsOf(dir, provider)).created, vms.created, 'no VM was ever made twice');

          next.child.kill('SIGTERM');
          assert.equal((await next.exited).code, 0, next.output());
          assert.deepEqual(processesMentioning(dir), [], 'no process of either run is left');
        } finally {
          if (next && next.child.exitCode === null) next.child.kill('SIGKILL');
          killProcessesMentioning(dir);
          await rm(dir, { recursive: true, force: true });
        }
      });
    },
  );
}

describe('peerpods cluster start --data-dir', { timeout: 120_000 }, () => {
  it('a second start sees what the first stored; a directory in use is refused with a clear message', async () => {
    const dir = await mkdtemp(path.join(STATE_TMPDIR, 'peerpods-data-dir-'));
    const kubeconfig = path.join(dir, 'kubeconfig');
    const args = ['cluster', 'start', '--port', '0', '--kubeconfig', kubeconfig, '--data-dir', path.join(dir, 'data')];
    const runs: CliRun[] = [];
    const start = (): CliRun => {
      const run = runCli([...args, '--state-dir', path.join(dir, 'state')]);
      runs.push(run);
      return run;
    };
    try {
      const first = start();
      await first.waitForLine(/^kubeconfig written/, 60_000);
      const created = await kubectl(kubeconfig, ['create', 'namespace', 'kept']);
      assert.equal(created.code, 0, created.stderr);

      const second = start();
      const refused = await second.exited;
      assert.notEqual(refused.code, 0);
      assert.match(second.output(), /the cluster store in \S+ is in use by another process \(PID \d+\)/);

      first.child.kill('SIGTERM');
      assert.equal((await first.exited).code, 0, first.output());
      const third = start();
      await third.waitForLine(/^kubeconfig written/, 60_000);
      const got = await kubectl(kubeconfig, ['get', 'namespace', 'kept', '-o', 'jsonpath={.status.phase}']);
      assert.equal(got.code, 0, got.stderr);
      assert.equal(got.stdout, 'Active');
      third.child.kill('SIGTERM');
      assert.equal((await third.exited).code, 0, third.output());
    } finally {
      for (const r of runs) if (r.child.exitCode === null) r.child.kill('SIGKILL');
      killProcessesMentioning(dir);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
