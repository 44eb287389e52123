// Simulated containers that exit: `true`, `false`, `sleep N`, `sh -c 'sleep N; exit M'` end with
// their code after their time; the pod's phase follows restartPolicy (kubelet's getPhase,
// pkg/kubelet/kubelet_pods.go) and restartPolicy Always goes into CrashLoopBackOff with a growing
// restartCount (kubelet's doBackOff, pkg/kubelet/kuberuntime/kuberuntime_manager.go). The
// readiness conditions follow pkg/kubelet/status/generate.go.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { kubectl } from '../../helpers/kubectl.ts';
import type { JsonObject } from '../../../src/apimachinery/meta/index.ts';
import { exitPlan } from '../../../src/kube/kubelet/container-exit.ts';
import { createPod, getPod, until } from '../controllers/scheduler/helpers.ts';

describe('container exit plans', () => {
  test('commands whose outcome reads from their text', () => {
    assert.deepEqual(exitPlan({ command: ['true'] }), { afterMs: 0, exitCode: 0 });
    assert.deepEqual(exitPlan({ command: ['/bin/false'] }), { afterMs: 0, exitCode: 1 });
    assert.deepEqual(exitPlan({ command: ['sleep'], args: ['1.5'] }), { afterMs: 1500, exitCode: 0 });
    assert.deepEqual(exitPlan({ command: ['sh', '-c', 'exit 3'] }), { afterMs: 0, exitCode: 3 });
    assert.deepEqual(exitPlan({ command: ['/bin/sh', '-c'], args: ['sleep 2; exit 4'] }), {
      afterMs: 2000,
      exitCode: 4,
    });
    assert.deepEqual(exitPlan({ command: ['bash', '-c', 'sleep 1'] }), { afterMs: 1000, exitCode: 0 });
    assert.deepEqual(exitPlan({ command: ['sh', '-c', 'false && sleep 9'] }), { afterMs: 0, exitCode: 1 });
    assert.deepEqual(exitPlan({ args: ['sh', '-c', 'exit 0'] }), { afterMs: 0, exitCode: 0 });
  });

  test('anything else runs forever', () => {
    for (const c of [
      {},
      { command: ['nginx'] },
      { command: ['sleep', 'infinity'] },
      { command: ['sh', '-c', 'echo hi; exit 0'] },
      { command: ['sh', '-c', 'while true; do sleep 1; done'] },
      { command: ['sh', '-c', 'exit $X'] },
    ])
      assert.equal(exitPlan(c), undefined, JSON.stringify(c));
  });
});

describe('simulated containers that exit', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster({ nodes: 1, simulatedNodes: { crashLoopBackOff: { initialMs: 300, maxMs: 1200 } } });
  });
  after(() => cp.stop());

  const status = (name: string): JsonObject => getPod(cp, name).status as JsonObject;
  const container = (name: string): JsonObject => ((status(name).containerStatuses ?? []) as JsonObject[])[0];
  const condition = (name: string, type: string): JsonObject | undefined =>
    ((status(name).conditions ?? []) as JsonObject[]).find((c) => c.type === type);

  test('a pod of `sleep 1` goes Succeeded after about a second', async () => {
    // Every phase the pod is written with, from a watch: polling can miss a one-second Running.
    const phases: string[] = [];
    const watcher = cp.internals.storage.watch('/', cp.internals.storage.currentRevision(), (c) => {
      if (c.type === 'DELETED' || !c.key.endsWith('/pods/default/sleeper')) return;
      const phase = String(((JSON.parse(c.json) as JsonObject).status as JsonObject | undefined)?.phase ?? '');
      if (phase && phases.at(-1) !== phase) phases.push(phase);
    });
    await createPod(cp, 'sleeper', {
      restartPolicy: 'Never',
      containers: [{ name: 'c', image: 'busybox', command: ['sleep', '1'] }],
    });
    await until(() => status('sleeper').phase === 'Succeeded', { what: 'sleeper Succeeded' });
    watcher.stop();
    assert.deepEqual(
      phases.filter((p) => p !== 'Pending'),
      ['Running', 'Succeeded'],
    );
    const terminated = (container('sleeper').state as JsonObject).terminated as JsonObject;
    assert.equal(terminated.exitCode, 0);
    assert.equal(terminated.reason, 'Completed');
    const ran = Date.parse(String(terminated.finishedAt)) - Date.parse(String(terminated.startedAt));
    assert.ok(ran >= 0 && ran <= 2000, `ran ${ran} ms`);
    assert.equal(container('sleeper').ready, false);
    assert.equal(container('sleeper').restartCount, 0);
    // generate.go: a succeeded pod's Ready/ContainersReady are False with reason PodCompleted.
    for (const type of ['Ready', 'ContainersReady']) {
      assert.equal(condition('sleeper', type)?.status, 'False');
      assert.equal(condition('sleeper', type)?.reason, 'PodCompleted');
    }
    assert.equal(condition('sleeper', 'PodReadyToStartContainers')?.status, 'False');
  });

  test("`sh -c 'exit 2'` with restartPolicy Never fails with reason Error", async () => {
    await createPod(cp, 'exit2', {
      restartPolicy: 'Never',
      containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', 'exit 2'] }],
    });
    await until(() => status('exit2').phase === 'Failed', { what: 'exit2 Failed' });
    const terminated = (container('exit2').state as JsonObject).terminated as JsonObject;
    assert.equal(terminated.exitCode, 2);
    assert.equal(terminated.reason, 'Error');
    assert.equal(condition('exit2', 'Ready')?.reason, 'PodFailed');
  });

  test('restartPolicy OnFailure does not restart a container that exited 0', async () => {
    await createPod(cp, 'onfailure-ok', {
      restartPolicy: 'OnFailure',
      containers: [{ name: 'c', image: 'busybox', command: ['true'] }],
    });
    await until(() => status('onfailure-ok').phase === 'Succeeded', { what: 'onfailure-ok Succeeded' });
    assert.equal(container('onfailure-ok').restartCount, 0);
  });

  test('restartPolicy Always of `false` reaches CrashLoopBackOff with restartCount growing', async () => {
    await createPod(cp, 'crasher', { containers: [{ name: 'c', image: 'busybox', command: ['false'] }] });
    const waiting = await until(
      () => {
        const w = (container('crasher')?.state as JsonObject | undefined)?.waiting as JsonObject | undefined;
        return w?.reason === 'CrashLoopBackOff' ? w : undefined;
      },
      { what: 'CrashLoopBackOff' },
    );
    const pod = getPod(cp, 'crasher');
    const meta = pod.metadata as JsonObject;
    const uid = String(meta.uid);
    assert.equal(waiting.message, `back-off 0s restarting failed container=c pod=crasher_default(${uid})`);
    assert.equal(status('crasher').phase, 'Running');
    const last = (container('crasher').lastState as JsonObject).terminated as JsonObject;
    assert.equal(last.exitCode, 1);
    assert.equal(last.reason, 'Error');
    assert.equal(condition('crasher', 'Ready')?.status, 'False');
    assert.equal(condition('crasher', 'Ready')?.reason, 'ContainersNotReady');
    assert.equal(condition('crasher', 'Ready')?.message, 'containers with unready status: [c]');
    await until(() => Number(container('crasher').restartCount) >= 3, { what: 'restartCount 3', timeoutMs: 15_000 });

    // kubectl shows the waiting reason as the STATUS and the restarts.
    for (const version of ['1.27', '1.33']) {
      const out = await eventually(
        async () => {
          const r = await kubectl(cp.kubeconfigPath, ['get', 'pod', 'crasher', '--no-headers'], { version });
          return r.stdout.includes('CrashLoopBackOff') ? r.stdout : undefined;
        },
        { what: `kubectl ${version} shows CrashLoopBackOff`, timeoutMs: 15_000 },
      );
      assert.match(out ?? '', /^crasher\s+0\/1\s+CrashLoopBackOff\s+\d+ \(.+ ago\)/);
    }
  });
});
