// `peerpods start` as a user runs it: a child process, kubectl against the kubeconfig it writes, the
// peer-pods stack deployed as on a real cluster (the controllers, the webhook and the adaptors are
// process pods of their Deployments and DaemonSet), a real QEMU VM per peer pod, the state-directory
// lock, and SIGTERM leaving no VM and no process behind. One stack is shared by the cases in order.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectl } from '../helpers/kubectl.ts';
import { waitFor } from '../helpers/wait.ts';
import { qemuProcessesUnder, vmSizeOfArgs } from '../../src/peerpod/index.ts';
import { STATE_TMPDIR, killProcessesMentioning, processesMentioning, runCli } from '../helpers/cli.ts';
import type { CliRun } from '../helpers/cli.ts';

const NS = 'peerpods-system';
const ADAPTORS = 'peerpodconfig-ctrl-caa-daemon';
const CONTROLLER = 'peerpod-controller';
const TAINT = 'peerpods.io/adaptor-down';

interface PodJson {
  metadata: { name: string; uid: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec: { nodeName?: string };
  status?: {
    phase?: string;
    conditions?: Array<{ type: string; status: string }>;
    containerStatuses?: Array<{ restartCount: number }>;
  };
}

function startRun(kubeconfig: string): CliRun {
  return runCli([
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
}

/** The process of a process pod: the kubelet gives it the pod's own directory (the container view). */
function podProcess(uid: string): number | undefined {
  return processesMentioning(`/pods/${uid}/`)[0];
}

describe('peerpods start (qemu)', { timeout: 300_000 }, () => {
  let dir: string;
  let kubeconfig: string;
  let run: CliRun;
  const k = (args: string[], input?: string) =>
    kubectl(kubeconfig, args, { ...(input === undefined ? {} : { input }), timeoutMs: 90_000 }).then((r) => {
      assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    });
  const pods = async (ns: string, selector?: string): Promise<PodJson[]> =>
    (
      JSON.parse(await k(['get', 'pods', '-n', ns, '-o', 'json', ...(selector ? ['-l', selector] : [])])) as {
        items: PodJson[];
      }
    ).items;
  const peerPod = async (name: string): Promise<void> => {
    const manifest = (await readFile(path.join(dir, 'peer-pod.yaml'), 'utf8')).replaceAll('peer-pod-1', name);
    await k(['apply', '-f', '-'], manifest);
  };
  const phases = async (): Promise<Map<string, string>> =>
    new Map((await pods('default')).map((p) => [p.metadata.name, p.status?.phase ?? '']));
  const instanceIds = async (): Promise<string[]> =>
    (await k(['get', 'peerpods', '-o', 'jsonpath={.items[*].spec.instanceID}'])).split(' ').filter(Boolean).sort();
  const vmPids = async (): Promise<number[]> => (await qemuProcessesUnder(dir)).map((p) => p.pid).sort();

  before(async () => {
    dir = await mkdtemp(path.join(STATE_TMPDIR, 'peerpods-start-'));
    kubeconfig = path.join(dir, 'kubeconfig');
    run = startRun(kubeconfig);
    await run.waitForLine(/^peerpods ready/, 90_000);
  });

  after(async () => {
    if (run.child.exitCode === null) run.child.kill('SIGKILL');
    killProcessesMentioning(dir);
    await rm(dir, { recursive: true, force: true });
  });

  it('prints the provider and the kubectl commands, and writes the manifest', async () => {
    const out = run.output();
    assert.match(out, /provider: qemu — asked for with --provider qemu/);
    assert.match(out, /apply -f .*peer-pod\.yaml/);
    assert.match(out, /get pods,peerpods -o wide/);
    assert.match(out, /ps -o pid,args -C qemu-system-x86_64/);
    assert.match(out, new RegExp(`logs -n ${NS} deploy/${CONTROLLER}$`, 'm'));
    assert.match(await readFile(path.join(dir, 'peer-pod.yaml'), 'utf8'), /runtimeClassName: kata-remote/);
  });

  it('runs every component as a process pod: the controllers and the webhook of their Deployments, an adaptor per node', async () => {
    const all = await pods(NS);
    const of = (prefix: string) => all.filter((p) => p.metadata.name.startsWith(`${prefix}-`));
    assert.equal(of(CONTROLLER).length, 1, all.map((p) => p.metadata.name).join(' '));
    assert.equal(of('peerpodconfig-controller').length, 1);
    assert.ok(of('peer-pods-webhook').length >= 1);
    const adaptors = of(ADAPTORS);
    assert.deepEqual(adaptors.map((p) => p.spec.nodeName).sort(), ['node-1', 'node-2']);
    for (const p of all) {
      assert.equal(p.status?.phase, 'Running', p.metadata.name);
      assert.ok(
        p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        `${p.metadata.name} Ready`,
      );
      assert.ok(podProcess(p.metadata.uid), `a process of pod ${p.metadata.name}`);
    }
    // The hint works: the controller's own JSON log, through the kubelet's log endpoint.
    assert.match(await k(['logs', '-n', NS, `deploy/${CONTROLLER}`]), /^\{.*"msg"/m);
  });

  it('runs a peer pod in a QEMU VM and deletes the VM with the pod', async () => {
    await k(['apply', '-f', path.join(dir, 'peer-pod.yaml')]);
    await waitFor(async () => (await phases()).get('peer-pod-1') === 'Running', 'peer-pod-1 Running', 60_000, 200);
    const instanceID = await k(['get', 'peerpods', '-o', 'jsonpath={.items[0].spec.instanceID}']);
    const vms = await qemuProcessesUnder(dir);
    assert.equal(vms.length, 1);
    assert.ok(vms[0].args.includes(instanceID), 'the VM is the one the PeerPod names');
    assert.deepEqual(vmSizeOfArgs(vms[0].args), { vcpus: 1, memoryMiB: 128 });
    await run.waitForLine(/peer pods 1 Running, 0 Pending · PeerPods 1 · VMs 1/, 10_000);

    await k(['delete', 'pod', 'peer-pod-1', '--wait=true', '--timeout=30s']);
    await waitFor(async () => (await qemuProcessesUnder(dir)).length === 0, 'VM gone', 15_000, 100);
    await waitFor(async () => (await instanceIds()).length === 0, 'PeerPod gone', 10_000, 100);
  });

  it('a second run on the same state directory exits non-zero naming the PID holding it, touching nothing', async () => {
    await peerPod('peer-pod-2');
    await waitFor(async () => (await vmPids()).length === 1, 'a VM', 60_000, 200);
    const vmsBefore = await vmPids();
    const kubeconfigBefore = readFileSync(kubeconfig, 'utf8');
    const second = startRun(kubeconfig);
    const { code } = await second.exited;
    assert.notEqual(code, 0, second.output());
    assert.match(second.output(), new RegExp(`in use by another \`peerpods start\` \\(PID ${run.child.pid}\\)`));
    assert.deepEqual(await vmPids(), vmsBefore, 'no VM deleted');
    assert.equal(readFileSync(kubeconfig, 'utf8'), kubeconfigBefore, 'the kubeconfig is not overwritten');
    assert.equal(readFileSync(path.join(dir, 'peerpods.lock'), 'utf8').trim(), String(run.child.pid));
    assert.equal((await phases()).get('peer-pod-2'), 'Running');
  });

  it('5 peer pods over a limit of 4: the 5th stays Pending (FailedScheduling) until a pod is deleted', async () => {
    for (const n of [3, 4, 5, 6]) await peerPod(`peer-pod-${n}`);
    const count = async (phase: string) => [...(await phases()).values()].filter((p) => p === phase).length;
    await waitFor(async () => (await count('Running')) === 4, '4 peer pods Running', 90_000, 200);
    const pending = [...(await phases())].find(([, p]) => p === 'Pending')?.[0];
    assert.ok(pending, 'one pod Pending');
    await waitFor(
      async () =>
        /FailedScheduling.*Insufficient kata\.peerpods\.io\/vm/.test(
          await k(['get', 'events', '--field-selector', `involvedObject.name=${pending}`]),
        ),
      `FailedScheduling for ${pending}`,
      30_000,
      200,
    );
    assert.equal((await vmPids()).length, 4);
    await run.waitForLine(/peer pods 4 Running, 1 Pending · PeerPods 4 · VMs 4/, 10_000);

    const victim = [...(await phases())].find(([, p]) => p === 'Running')?.[0] as string;
    await k(['delete', 'pod', victim, '--wait=true', '--timeout=60s']);
    await waitFor(async () => (await phases()).get(pending) === 'Running', `${pending} Running`, 90_000, 200);
    assert.equal((await vmPids()).length, 4);
  });

  it('`kubectl rollout restart` of the adaptor DaemonSet: the peer pods stay Running, no VM is recreated or leaked', async () => {
    const adaptorsBefore = (await pods(NS, `name=${ADAPTORS}`)).map((p) => p.metadata.uid);
    const vmsBefore = await vmPids();
    const idsBefore = await instanceIds();
    assert.equal(vmsBefore.length, 4);
    // Sampled all through the rollout: a peer pod seen in any other phase fails the case.
    const seen = new Set<string>();
    let rolling = true;
    const sampler = (async () => {
      while (rolling) {
        for (const phase of (await phases()).values()) seen.add(phase);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    try {
      await k(['rollout', 'restart', '-n', NS, `ds/${ADAPTORS}`]);
      await k(['rollout', 'status', '-n', NS, `ds/${ADAPTORS}`, '--timeout=90s']);
    } finally {
      rolling = false;
      await sampler;
    }
    assert.deepEqual([...seen], ['Running'], 'the peer pods stayed Running during the rollout');
    const adaptorsAfter = (await pods(NS, `name=${ADAPTORS}`)).filter((p) => !p.metadata.deletionTimestamp);
    assert.equal(adaptorsAfter.length, 2);
    assert.ok(
      adaptorsAfter.every((p) => !adaptorsBefore.includes(p.metadata.uid)),
      'both adaptor pods were replaced',
    );
    // The new adaptors are Ready, so they have synced and looked at their pods.
    const running = [...(await phases()).values()];
    assert.deepEqual(running, ['Running', 'Running', 'Running', 'Running']);
    assert.deepEqual(await vmPids(), vmsBefore, 'the same VM processes');
    assert.deepEqual(await instanceIds(), idsBefore, 'the same VMs recorded');
    await run.waitForLine(/peer pods 4 Running, 0 Pending · PeerPods 4 · VMs 4/, 10_000);
  });

  it("killing the peerpod-controller pod's process: the kubelet restarts it, and a dangling PeerPod made meanwhile is cleaned", async () => {
    const victim = (await pods('default')).find((p) => p.status?.phase === 'Running') as PodJson;
    const node = victim.spec.nodeName as string;
    const peerPods = JSON.parse(await k(['get', 'peerpods', '-o', 'json'])) as {
      items: Array<{ metadata: { ownerReferences?: Array<{ uid: string }> }; spec?: { instanceID?: string } }>;
    };
    const instanceID = peerPods.items.find((pp) => pp.metadata.ownerReferences?.[0]?.uid === victim.metadata.uid)?.spec
      ?.instanceID as string;
    assert.ok(instanceID, `${victim.metadata.name} has a VM`);
    // The node's adaptor is down (its pod deleted; the taint keeps the DaemonSet from replacing it), so
    // only the PeerPod controller can delete the VM of a pod force-deleted there.
    await k(['taint', 'nodes', node, `${TAINT}:NoSchedule`]);
    await k([
      'delete',
      'pod',
      '-n',
      NS,
      '-l',
      `name=${ADAPTORS}`,
      '--field-selector',
      `spec.nodeName=${node}`,
      '--wait=true',
    ]);

    const [controller] = await pods(NS, 'control-plane=peerpod-controller');
    const pid = podProcess(controller.metadata.uid);
    assert.ok(pid, 'the controller pod has a process');
    process.kill(pid, 'SIGKILL');
    await k(['delete', 'pod', victim.metadata.name, '--grace-period=0', '--force']);

    await waitFor(
      async () => {
        const [c] = await pods(NS, 'control-plane=peerpod-controller');
        return (
          c.metadata.uid === controller.metadata.uid &&
          c.status?.containerStatuses?.[0]?.restartCount === 1 &&
          !!c.status.conditions?.some((x) => x.type === 'Ready' && x.status === 'True')
        );
      },
      'the same controller pod restarted once and Ready',
      60_000,
      200,
    );
    assert.notEqual(podProcess(controller.metadata.uid), pid, 'a new process');
    await waitFor(
      async () => !(await qemuProcessesUnder(dir)).some((p) => p.args.includes(instanceID)),
      `VM ${instanceID} deleted by the PeerPod controller`,
      60_000,
      200,
    );
    await waitFor(
      async () => !(await instanceIds()).includes(instanceID),
      'the dangling PeerPod released',
      30_000,
      200,
    );

    await k(['taint', 'nodes', node, `${TAINT}:NoSchedule-`]);
    await waitFor(
      async () => (await k(['get', 'ds', '-n', NS, ADAPTORS, '-o', 'jsonpath={.status.numberReady}'])) === '2',
      'the adaptor back on its node',
      60_000,
      200,
    );
  });

  it('SIGTERM with peer pods running: exit 0, no VM and no process left, the lock released', async () => {
    assert.ok((await vmPids()).length >= 1);
    run.child.kill('SIGTERM');
    const { code } = await run.exited;
    assert.equal(code, 0, run.output());
    assert.match(run.output(), /no VM process left/);
    assert.deepEqual(await qemuProcessesUnder(dir), []);
    assert.deepEqual(processesMentioning(dir), [], 'no process of the stack is left');
    assert.equal(existsSync(path.join(dir, 'peerpods.lock')), false);
  });
});

describe('peerpods start: state directories it refuses', () => {
  it('under /tmp, where the PeerPod controller pod mounts an emptyDir: exit 1 before anything starts', async () => {
    const dir = await mkdtemp('/tmp/peerpods-shadowed-');
    try {
      const refused = startRun(path.join(dir, 'kubeconfig'));
      const { code } = await refused.exited;
      assert.equal(code, 1, refused.output());
      assert.match(refused.output(), /would be under \/tmp, where the peerpod-controller pod mounts a volume/);
      assert.equal(existsSync(path.join(dir, 'kubeconfig')), false, 'no kubeconfig written');
      assert.equal(existsSync(path.join(dir, 'peerpods.lock')), false, 'the lock released');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('peerpods start: a stale state-directory lock (qemu)', { timeout: 300_000 }, () => {
  it('a killed run leaves its lock and a VM: with its store gone, the next run takes the lock over and deletes the VM', async () => {
    const dir = await mkdtemp(path.join(STATE_TMPDIR, 'peerpods-stale-'));
    const kubeconfig = path.join(dir, 'kubeconfig');
    try {
      const killed = startRun(kubeconfig);
      await killed.waitForLine(/^peerpods ready/, 90_000);
      const manifest = (await readFile(path.join(dir, 'peer-pod.yaml'), 'utf8')).replaceAll('peer-pod-1', 'left');
      const applied = await kubectl(kubeconfig, ['apply', '-f', '-'], { input: manifest });
      assert.equal(applied.code, 0, applied.stderr);
      await waitFor(async () => (await qemuProcessesUnder(dir)).length === 1, 'a VM', 60_000, 200);
      const [vm] = await qemuProcessesUnder(dir);
      killed.child.kill('SIGKILL');
      await killed.exited;
      // What a killed run leaves: the lock naming a dead PID, and the VM. Its pods' processes run in
      // process groups of their own and outlive a SIGKILL of the CLI: they are killed here too.
      assert.equal(readFileSync(path.join(dir, 'peerpods.lock'), 'utf8').trim(), String(killed.child.pid));
      for (const pid of processesMentioning(dir)) if (pid !== vm.pid) process.kill(pid, 'SIGKILL');
      await waitFor(() => processesMentioning(dir).every((pid) => pid === vm.pid), 'only the VM left', 10_000, 50);
      // Without its store the cluster is a new one that no PeerPod of the old run is part of, so the
      // VM is accounted for by nothing (a kept store resumes instead: start-resume.test.ts).
      rmSync(path.join(dir, 'cluster'), { recursive: true, force: true });

      const next = startRun(kubeconfig);
      try {
        await next.waitForLine(/^peerpods ready/, 90_000);
        assert.equal(readFileSync(path.join(dir, 'peerpods.lock'), 'utf8').trim(), String(next.child.pid));
        // At once after `peerpods ready`, as a script would: the stop still takes every pod down.
        next.child.kill('SIGTERM');
        assert.equal((await next.exited).code, 0, next.output());
        assert.match(next.output(), /deleted 1 VM\(s\) an earlier run left behind/);
        assert.deepEqual(await qemuProcessesUnder(dir), []);
        assert.deepEqual(processesMentioning(dir), [], 'no process of either run is left');
        assert.equal(existsSync(path.join(dir, 'peerpods.lock')), false);
      } finally {
        if (next.child.exitCode === null) next.child.kill('SIGKILL');
      }
    } finally {
      killProcessesMentioning(dir);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
