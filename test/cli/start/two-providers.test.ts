// `npm start` with two providers side by side (CAA#2219, #2382), as a user runs it: no --provider,
// QEMU installed, so qemu serves RuntimeClass kata-remote and the simulated cloud kata-remote-sim,
// each with its own PeerPodConfig, settings ConfigMap/Secret and adaptor DaemonSet, deployed with the
// Roles `peerpods deploy --extra-provider` generates. A pod of each RuntimeClass runs in a VM of its
// own provider; the PeerPod controller deletes a dangling simulated VM with the settings of the
// simulated config's own ConfigMap (peer-pods-cm names only qemu); a SIGKILLed run resumes both; a
// SIGTERM leaves no VM and no process.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectl } from '../../helpers/kubectl.ts';
import { waitFor } from '../../helpers/wait.ts';
import { PEERPOD_FINALIZER, qemuProcessesUnder } from '../../../src/peerpod/index.ts';
import { STATE_TMPDIR, killProcessesMentioning, processesMentioning, runCli } from '../../helpers/cli.ts';
import type { CliRun } from '../../helpers/cli.ts';

const NS = 'peerpods-system';
const SIM_DAEMONSET = 'peerpodconfig-ctrl-caa-daemon-kata-remote-sim';

interface PeerPodJson {
  metadata: { name: string; uid: string };
  spec: { cloudProvider: string; instanceID: string };
}

describe('peerpods start: qemu and simulated side by side', { timeout: 420_000 }, () => {
  let dir: string;
  let kubeconfig: string;
  let run: CliRun;
  const start = (): CliRun =>
    runCli(['start', '--port', '0', '--kubeconfig', kubeconfig, '--summary-interval', '500ms']);
  const k = (args: string[], input?: string) =>
    kubectl(kubeconfig, args, { ...(input === undefined ? {} : { input }), timeoutMs: 90_000 }).then((r) => {
      assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    });
  const peerPods = async (): Promise<PeerPodJson[]> =>
    (JSON.parse(await k(['get', 'peerpods', '-A', '-o', 'json'])) as { items: PeerPodJson[] }).items;
  const simDir = () => path.join(dir, 'simulated');
  const simVms = (): string[] =>
    existsSync(simDir())
      ? readdirSync(simDir())
          .filter((f) => f.endsWith('.json'))
          .map((f) => f.slice(0, -'.json'.length))
          .sort()
      : [];
  const phase = async (pod: string) => k(['get', 'pod', pod, '-o', 'jsonpath={.status.phase}']);

  before(async () => {
    dir = await mkdtemp(path.join(STATE_TMPDIR, 'peerpods-two-providers-'));
    kubeconfig = path.join(dir, 'kubeconfig');
    run = start();
    await run.waitForLine(/^peerpods ready/, 150_000);
  });

  after(async () => {
    if (run.child.exitCode === null) run.child.kill('SIGKILL');
    killProcessesMentioning(dir);
    await rm(dir, { recursive: true, force: true });
  });

  it('says both providers run and how to run a pod on each, and writes a manifest per RuntimeClass', async () => {
    const out = run.output();
    assert.match(out, /^peerpods ready: 2 nodes, providers qemu \+ simulated/m);
    assert.match(out, /and simulated beside it \(RuntimeClass kata-remote-sim\); one provider only: --provider/);
    assert.match(out, /apply -f \S*peer-pod\.yaml .*runtimeClassName kata-remote$/m);
    assert.match(out, /apply -f \S*peer-pod-simulated\.yaml .*runtimeClassName kata-remote-sim: a simulated VM/);
    assert.match(
      await readFile(path.join(dir, 'peer-pod-simulated.yaml'), 'utf8'),
      /runtimeClassName: kata-remote-sim/,
    );
  });

  it('deploys a config, settings and an adaptor per node for each provider, with the generated Roles', async () => {
    const configs = await k(['get', 'peerpodconfigs', '-n', NS, '-o', 'jsonpath={.items[*].metadata.name}']);
    assert.deepEqual(configs.split(' ').sort(), ['peerpodconfig-sample', 'peerpodconfig-simulated']);
    assert.equal(
      await k(['get', 'configmap', 'peer-pods-cm', '-n', NS, '-o', 'jsonpath={.data.CLOUD_PROVIDER}']),
      'qemu',
    );
    assert.equal(
      await k(['get', 'configmap', 'peer-pods-cm-simulated', '-n', NS, '-o', 'jsonpath={.data.CLOUD_PROVIDER}']),
      'simulated',
    );
    const ready = await k(['get', 'daemonset', SIM_DAEMONSET, '-n', NS, '-o', 'jsonpath={.status.numberReady}']);
    assert.equal(ready, '2');
    for (const role of ['peerpodconfig-controller', 'peerpod-controller', 'peerpod-adaptor'])
      await k(['get', 'role', `${role}-kata-remote-sim`, '-n', NS]);
    const alloc = await k([
      'get',
      'nodes',
      '-o',
      'jsonpath={range .items[*]}{.status.allocatable.kata\\.peerpods\\.io/vm} {.status.allocatable.simulated\\.kata\\.peerpods\\.io/vm}{"\\n"}{end}',
    ]);
    assert.deepEqual(alloc.trim().split('\n'), ['2 2', '2 2']);
  });

  it('runs each pod in a VM of its own provider', async () => {
    await run.waitForLine(/VMs 0 \(qemu 0, simulated 0\)$/, 15_000);
    await k(['apply', '-f', path.join(dir, 'peer-pod.yaml'), '-f', path.join(dir, 'peer-pod-simulated.yaml')]);
    await waitFor(
      async () => (await phase('peer-pod-1')) === 'Running' && (await phase('peer-pod-simulated-1')) === 'Running',
      'both peer pods Running',
      90_000,
      200,
    );
    const pps = await peerPods();
    const of = (provider: string) => pps.filter((p) => p.spec.cloudProvider === provider);
    assert.equal(of('qemu').length, 1, JSON.stringify(pps));
    assert.equal(of('simulated').length, 1, JSON.stringify(pps));
    const vms = await qemuProcessesUnder(dir);
    assert.equal(vms.length, 1);
    assert.ok(vms[0].args.includes(of('qemu')[0].spec.instanceID), 'the QEMU VM is the qemu PeerPod’s');
    assert.deepEqual(simVms(), [of('simulated')[0].spec.instanceID]);
    await run.waitForLine(/peer pods 2 Running, 0 Pending · PeerPods 2 · VMs 2 \(qemu 1, simulated 1\)/, 15_000);
  });

  it("deletes a dangling simulated VM with the simulated config's own settings", async () => {
    // A VM of this cluster's simulated cloud that only a PeerPod names, no pod: the adaptor never
    // sees it, so the PeerPod controller deletes it — where peer-pods-cm-simulated says it lives.
    // The simulated provider's instance IDs are `sim-<n>`; far above any it hands out here.
    const id = 'sim-900001';
    const at = new Date().toISOString();
    writeFileSync(
      path.join(simDir(), `${id}.json`),
      JSON.stringify({
        instance: { id, name: `podvm-${id}`, ips: [], tags: {}, createdAt: at },
        podNamespace: 'default',
      }),
    );
    const manifest = {
      apiVersion: 'confidentialcontainers.org/v1alpha1',
      kind: 'PeerPod',
      metadata: { name: 'dangling', namespace: 'default', finalizers: [PEERPOD_FINALIZER] },
      spec: { cloudProvider: 'simulated', instanceID: id },
    };
    await k(['apply', '-f', '-'], JSON.stringify(manifest));
    await k(['delete', 'peerpod', 'dangling', '--wait=false']);
    await waitFor(async () => !simVms().includes(id), `simulated VM ${id} deleted`, 30_000, 200);
    await waitFor(
      async () => (await k(['get', 'peerpods', '-o', 'name'])).split('\n').every((l) => !l.endsWith('/dangling')),
      'its PeerPod released',
      30_000,
      200,
    );
  });

  it('a SIGKILLed run resumes both providers: the same pods, PeerPods and VMs', async () => {
    const before = (await peerPods()).map((p) => `${p.metadata.uid} ${p.spec.instanceID}`).sort();
    const qemuPids = (await qemuProcessesUnder(dir)).map((p) => p.pid);
    const sims = simVms();
    run.child.kill('SIGKILL');
    await run.exited;
    run = start();
    await run.waitForLine(/^peerpods ready/, 150_000);
    assert.doesNotMatch(run.output(), /VM\(s\) an earlier run left behind/);
    assert.deepEqual((await peerPods()).map((p) => `${p.metadata.uid} ${p.spec.instanceID}`).sort(), before);
    assert.deepEqual(
      (await qemuProcessesUnder(dir)).map((p) => p.pid),
      qemuPids,
    );
    assert.deepEqual(simVms(), sims);
    assert.equal(await phase('peer-pod-1'), 'Running');
    assert.equal(await phase('peer-pod-simulated-1'), 'Running');
  });

  it('SIGTERM deletes both pods, their VMs and the warm pools’ spares, and leaves no process', async () => {
    // A pool on each provider, as the README turns one on: their adaptors keep the spares until they stop.
    const pool = JSON.stringify({ spec: { pool: { sizePerNode: 1, vmSizes: [{ vcpus: 1, memory: '512Mi' }] } } });
    for (const cfg of ['peerpodconfig-sample', 'peerpodconfig-simulated'])
      await k(['-n', NS, 'patch', 'peerpodconfig', cfg, '--type', 'merge', '-p', pool]);
    await waitFor(
      async () => {
        const spares = (await peerPods()).filter((p) => p.metadata.name.startsWith('pool-') && p.spec.instanceID);
        return spares.length === 4;
      },
      'a spare on each node of each provider',
      60_000,
      200,
    );
    run.child.kill('SIGTERM');
    const { code } = await run.exited;
    assert.equal(code, 0, run.output());
    // The spares are not waited for (their adaptors would refill them): deleted once nothing runs,
    // well before the drain's 30 s deadline, and none counts as a VM the normal path missed.
    const stopped = /peerpods: 2 peer pod\(s\) deleted, 4 warm pool spare\(s\) deleted in (\d+) ms/.exec(run.output());
    assert.ok(stopped, run.output());
    assert.ok(Number(stopped[1]) < 30_000, `stopping waited out the drain deadline: ${stopped[1]} ms`);
    assert.doesNotMatch(run.output(), /deleted through the provider|VM still there/);
    assert.match(run.output(), /peerpods: stopped; no VM process left; 0 simulated VM\(s\) left/);
    assert.deepEqual(await qemuProcessesUnder(dir), []);
    assert.deepEqual(simVms(), []);
    assert.deepEqual(processesMentioning(dir), [], 'no process of the run is left');
  });
});
