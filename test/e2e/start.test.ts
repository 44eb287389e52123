// `peerpods start` as a user runs it: a child process, kubectl against the kubeconfig it writes,
// a real QEMU VM per peer pod, and SIGTERM leaving no VM process behind.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectl } from '../helpers/kubectl.ts';
import { eventually } from '../helpers/control-plane.ts';
import { qemuProcessesUnder, vmSizeOfArgs } from '../../src/peerpod/index.ts';
import { runCli } from './helpers.ts';
import type { CliRun } from './helpers.ts';

describe('peerpods start (qemu)', { timeout: 120_000 }, () => {
  let dir: string;
  let kubeconfig: string;
  let run: CliRun;
  const k = (args: string[], input?: string) =>
    kubectl(kubeconfig, args, input === undefined ? {} : { input }).then((r) => {
      assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    });

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'peerpods-start-'));
    kubeconfig = path.join(dir, 'kubeconfig');
    run = runCli([
      'start',
      '--port',
      '0',
      '--kubeconfig',
      kubeconfig,
      '--provider',
      'qemu',
      '--summary-interval',
      '500ms',
    ]);
    await run.waitForLine(/^peerpods ready/, 60_000);
  });

  after(async () => {
    if (run.child.exitCode === null) run.child.kill('SIGKILL');
    for (const p of await qemuProcessesUnder(dir)) process.kill(p.pid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('prints the provider, the kubectl commands and writes the manifest', async () => {
    const out = run.output();
    assert.match(out, /provider: qemu — asked for with --provider qemu/);
    assert.match(out, /apply -f .*peer-pod\.yaml/);
    assert.match(out, /get pods,peerpods -o wide/);
    assert.match(out, /ps -o pid,args -C qemu-system-x86_64/);
    assert.match(await readFile(path.join(dir, 'peer-pod.yaml'), 'utf8'), /runtimeClassName: kata-remote/);
  });

  it('runs a peer pod in a QEMU VM and deletes the VM with the pod', async () => {
    await k(['apply', '-f', path.join(dir, 'peer-pod.yaml')]);
    await eventually(
      async () => (await k(['get', 'pod', 'peer-pod-1', '-o', 'jsonpath={.status.phase}'])) === 'Running',
      {
        timeoutMs: 30_000,
        what: 'peer-pod-1 Running',
      },
    );
    const instanceID = await k(['get', 'peerpods', '-o', 'jsonpath={.items[0].spec.instanceID}']);
    const vms = await qemuProcessesUnder(dir);
    assert.equal(vms.length, 1);
    assert.ok(vms[0].args.includes(instanceID), 'the VM is the one the PeerPod names');
    assert.deepEqual(vmSizeOfArgs(vms[0].args), { vcpus: 1, memoryMiB: 128 });
    await run.waitForLine(/peer pods 1 Running, 0 Pending · PeerPods 1 · VMs 1/, 10_000);

    await k(['delete', 'pod', 'peer-pod-1', '--wait=true', '--timeout=30s']);
    await eventually(async () => (await qemuProcessesUnder(dir)).length === 0, { timeoutMs: 15_000, what: 'VM gone' });
    await eventually(async () => (await k(['get', 'peerpods', '-o', 'name'])).trim() === '', {
      timeoutMs: 10_000,
      what: 'PeerPod gone',
    });
  });

  it('SIGTERM with a peer pod running: exit 0, no VM process left', async () => {
    const manifest = (await readFile(path.join(dir, 'peer-pod.yaml'), 'utf8')).replaceAll('peer-pod-1', 'peer-pod-2');
    await k(['apply', '-f', '-'], manifest);
    await eventually(async () => (await qemuProcessesUnder(dir)).length === 1, { timeoutMs: 30_000, what: 'a VM' });
    run.child.kill('SIGTERM');
    const { code } = await run.exited;
    assert.equal(code, 0, run.output());
    assert.match(run.output(), /no VM process left/);
    assert.deepEqual(await qemuProcessesUnder(dir), []);
  });
});
