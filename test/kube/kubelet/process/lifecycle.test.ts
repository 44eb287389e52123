// Containers of the project's image run as real processes: status from the process (running,
// terminated with exit code and reason, lastState, restartCount), restartPolicy with the kubelet's
// CrashLoopBackOff (pkg/kubelet/kuberuntime/kuberuntime_manager.go doBackOff), phase per
// restartPolicy (pkg/kubelet/kubelet_pods.go getPhase), and nothing left running after stop.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { TestCluster } from '../../../helpers/control-plane.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import {
  alive,
  condition,
  containerStatus,
  createPod,
  createProcessPod,
  getPod,
  IMAGE,
  marker,
  pidsWithMarker,
  podEvents,
  startProcessCluster,
  stateOf,
  status,
  until,
} from './helpers.ts';

describe('process runtime: container lifecycle', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startProcessCluster({ simulatedNodes: { crashLoopBackOff: { initialMs: 1000, maxMs: 4000 } } });
  });
  after(() => cp.stop());

  test('the image runs the CLI: `peerpods --help` exits 0, Completed, and the pod Succeeds (Never)', async () => {
    await createProcessPod(cp, 'help', { args: ['--help'] }, { restartPolicy: 'Never' });
    await until(() => status(cp, 'help').phase === 'Succeeded', { what: 'help Succeeded', timeoutMs: 60_000 });
    const cs = containerStatus(cp, 'help')!;
    const terminated = stateOf(cs).terminated!;
    assert.equal(terminated.exitCode, 0);
    assert.equal(terminated.reason, 'Completed');
    assert.match(String(terminated.containerID), /^process:\/\/[0-9a-f]{64}$/);
    assert.equal(terminated.containerID, cs.containerID);
    assert.equal(cs.restartCount, 0);
    assert.equal(cs.ready, false);
    assert.equal(cs.image, IMAGE);
    // A process pod's IP is the loopback twin of its node's pod CIDR (10.244.1.0/24 → 127.244.1.x, or another 127 block when another cluster on this machine holds 127.244).
    assert.match(String(status(cp, 'help').podIP), /^127\.\d+\.1\.\d+$/);
    // Its node's InternalIP, 127.<block>.0.<n> (loopback-block.ts): what hostNetwork pods listen on.
    assert.equal(status(cp, 'help').hostIP, nodeInternalIp(cp, String((spec(cp, 'help') as JsonObject).nodeName)));
    assert.match(String(status(cp, 'help').hostIP), /^127\.\d+\.0\.1$/);
    // generate.go: a succeeded pod's Ready/ContainersReady are False with reason PodCompleted.
    assert.equal(condition(cp, 'help', 'Ready')?.reason, 'PodCompleted');
    assert.equal(condition(cp, 'help', 'Initialized')?.status, 'True');
    const reasons = podEvents(cp, 'help').map((e) => `${e.reason}: ${e.message}`);
    assert.ok(reasons.includes('Created: Created container: c'), reasons.join('\n'));
    assert.ok(reasons.includes('Started: Started container c'), reasons.join('\n'));
    const started = podEvents(cp, 'help').find((e) => e.reason === 'Started')!;
    assert.deepEqual(started.source, { component: 'kubelet', host: 'node-1' });
    assert.equal((started.involvedObject as JsonObject).fieldPath, 'spec.containers{c}');
  });

  test("`sh -c 'exit 1'` under Always reaches CrashLoopBackOff with growing delays", async () => {
    await createProcessPod(cp, 'crasher', { command: ['sh', '-c', 'exit 1'] });
    const messages: string[] = [];
    await until(
      () => {
        const cs = containerStatus(cp, 'crasher');
        const waiting = stateOf(cs).waiting;
        if (waiting?.reason === 'CrashLoopBackOff' && !messages.includes(String(waiting.message)))
          messages.push(String(waiting.message));
        return messages.length >= 2 && Number(cs?.restartCount) >= 3;
      },
      { what: 'two distinct back-offs', timeoutMs: 30_000 },
    );
    const uid = String((getPod(cp, 'crasher').metadata as JsonObject).uid);
    // The first restart is immediate; then 1 s, 2 s... (shortened from 10 s doubling to 5 min).
    assert.equal(messages[0], `back-off 1s restarting failed container=c pod=crasher_default(${uid})`);
    assert.equal(messages[1], `back-off 2s restarting failed container=c pod=crasher_default(${uid})`);
    const cs = containerStatus(cp, 'crasher')!;
    const last = (cs.lastState as JsonObject).terminated as JsonObject;
    assert.equal(last.exitCode, 1);
    assert.equal(last.reason, 'Error');
    assert.equal(status(cp, 'crasher').phase, 'Running');
    const backOff = podEvents(cp, 'crasher').find((e) => e.reason === 'BackOff');
    assert.equal(backOff?.message, `Back-off restarting failed container c in pod crasher_default(${uid})`);
    assert.equal(backOff?.type, 'Warning');
  });

  test('a process SIGKILLed from outside: restartCount 1, lastState exit 137 Error, Running again', async () => {
    const m = marker();
    await createProcessPod(cp, 'victim', {
      command: ['sh', '-c', 'sleep 600'],
      env: [{ name: 'MARKER', value: m }],
    });
    const running = await until(() => stateOf(containerStatus(cp, 'victim')).running, { what: 'victim running' });
    const pids = await until(() => (pidsWithMarker(m).length > 0 ? pidsWithMarker(m) : undefined), {
      what: 'victim process',
    });
    assert.equal(status(cp, 'victim').phase, 'Running');
    assert.equal(containerStatus(cp, 'victim')!.ready, true);
    for (const pid of pids) process.kill(pid, 'SIGKILL');
    await until(
      () => containerStatus(cp, 'victim')?.restartCount === 1 && stateOf(containerStatus(cp, 'victim')).running,
      {
        what: 'victim restarted',
      },
    );
    const cs = containerStatus(cp, 'victim')!;
    const last = (cs.lastState as JsonObject).terminated as JsonObject;
    assert.equal(last.exitCode, 137);
    assert.equal(last.reason, 'Error');
    assert.equal(last.startedAt, running.startedAt);
    assert.notEqual(cs.containerID, last.containerID);
    assert.equal(status(cp, 'victim').phase, 'Running');
    await until(() => pidsWithMarker(m).some((p) => !pids.includes(p)), { what: 'a new process' });
  });

  test('OnFailure: a failing init container is retried, then the app runs and Completes', async () => {
    const flag = join(cp.dir, 'init-ran');
    await createPod(cp, 'inits', {
      restartPolicy: 'OnFailure',
      initContainers: [
        { name: 'once-fails', image: IMAGE, command: ['sh', '-c', `test -e ${flag} || { touch ${flag}; exit 3; }`] },
      ],
      containers: [
        { name: 'c', image: IMAGE, command: ['sh', '-c', `rm ${flag}`] },
        { name: 'sim', image: 'nginx' },
      ],
    });
    const initialized = await until(
      () => condition(cp, 'inits', 'Initialized')?.status === 'True' && status(cp, 'inits'),
      {
        what: 'inits Initialized',
        timeoutMs: 20_000,
      },
    );
    const init = ((initialized.initContainerStatuses ?? []) as JsonObject[])[0];
    assert.equal(init.restartCount, 1);
    assert.equal(((init.lastState as JsonObject).terminated as JsonObject).exitCode, 3);
    assert.equal(stateOf(init).terminated?.reason, 'Completed');
    // The app process exits 0 and is not restarted; the simulated container keeps running.
    await until(() => stateOf(containerStatus(cp, 'inits', 'c')).terminated?.reason === 'Completed', {
      what: 'app Completed',
    });
    assert.ok(stateOf(containerStatus(cp, 'inits', 'sim')).running);
    assert.equal(status(cp, 'inits').phase, 'Running');
    assert.equal(condition(cp, 'inits', 'ContainersReady')?.message, 'containers with unready status: [c]');
  });

  test('Never: a failing init container fails the pod; the app never starts', async () => {
    await createPod(cp, 'badinit', {
      restartPolicy: 'Never',
      initContainers: [{ name: 'init', image: IMAGE, command: ['sh', '-c', 'exit 2'] }],
      containers: [{ name: 'c', image: IMAGE, command: ['sh', '-c', 'sleep 600'] }],
    });
    await until(() => status(cp, 'badinit').phase === 'Failed', { what: 'badinit Failed' });
    const init = ((status(cp, 'badinit').initContainerStatuses ?? []) as JsonObject[])[0];
    assert.equal(stateOf(init).terminated?.exitCode, 2);
    assert.equal(stateOf(containerStatus(cp, 'badinit')).waiting?.reason, 'PodInitializing');
    assert.equal(condition(cp, 'badinit', 'Initialized')?.reason, 'ContainersNotInitialized');
    assert.equal(condition(cp, 'badinit', 'Initialized')?.message, 'containers with incomplete status: [init]');
  });

  test('a hostNetwork process pod gets the node IP', async () => {
    await createProcessPod(cp, 'hostnet', { command: ['sh', '-c', 'sleep 600'] }, { hostNetwork: true });
    await until(() => stateOf(containerStatus(cp, 'hostnet')).running, { what: 'hostnet running' });
    const ip = nodeInternalIp(cp, String((spec(cp, 'hostnet') as JsonObject).nodeName));
    assert.equal(status(cp, 'hostnet').podIP, ip);
    assert.deepEqual(status(cp, 'hostnet').podIPs, [{ ip }]);
  });

  test('a command that cannot be found: terminated StartError 128', async () => {
    await createProcessPod(cp, 'nocmd', { command: ['no-such-command-peerpods'] }, { restartPolicy: 'Never' });
    await until(() => status(cp, 'nocmd').phase === 'Failed', { what: 'nocmd Failed' });
    const terminated = stateOf(containerStatus(cp, 'nocmd')).terminated!;
    assert.equal(terminated.exitCode, 128);
    assert.equal(terminated.reason, 'StartError');
  });
});

describe('process runtime: cluster stop', () => {
  test('a process that exits without stopping its control plane takes the container processes with it', async () => {
    const m = marker();
    const kube = new URL('../../../../src/kube/index.ts', import.meta.url).href;
    const context = new URL('../../../../src/kube/registry/context.ts', import.meta.url).href;
    const script = `
      import { startControlPlane } from ${JSON.stringify(kube)};
      import { internalContext } from ${JSON.stringify(context)};
      const cp = await startControlPlane({ nodes: 1, processRuntime: { images: ['ghcr.io/peerpods/peerpods'], entrypoint: [] } });
      const pods = cp.internals.catalog.lookup('', 'v1', 'pods');
      await cp.internals.store.create(pods, 'default', { metadata: { name: 'p' }, spec: { containers: [
        { name: 'c', image: ${JSON.stringify(IMAGE)}, command: ['sh', '-c', 'sleep 600'], env: [{ name: 'MARKER', value: ${JSON.stringify(m)} }] },
      ] } }, internalContext('test'));
      for (;;) {
        const st = cp.internals.store.get(pods, 'default', 'p').status ?? {};
        if (st.containerStatuses?.[0]?.state?.running) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      console.log('running');
      process.exit(0);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    const code = await new Promise((r) => child.once('exit', r));
    assert.equal(code, 0);
    assert.equal(out.trim(), 'running');
    await until(() => pidsWithMarker(m).length === 0, { what: 'no process left', timeoutMs: 5000 });
  });

  test('stopping the control plane leaves no container process, even one that ignores SIGTERM', async () => {
    const cp = await startProcessCluster();
    const m = marker();
    await createProcessPod(cp, 'stubborn', {
      command: ['sh', '-c', "trap '' TERM; sleep 600 & wait; sleep 600"],
      env: [{ name: 'MARKER', value: m }],
    });
    await until(() => pidsWithMarker(m).length >= 2, { what: 'stubborn processes (shell and sleep)' });
    const pids = pidsWithMarker(m);
    await cp.stop();
    assert.deepEqual(
      pids.filter((p) => alive(p)),
      [],
      'every process of the pod is gone',
    );
    assert.deepEqual(pidsWithMarker(m), []);
  });
});

function spec(cp: TestCluster, name: string): unknown {
  const pod = cp.internals.store.get(cp.internals.catalog.lookup('', 'v1', 'pods')!, 'default', name);
  return pod.spec;
}

function nodeInternalIp(cp: TestCluster, node: string): string {
  const n = cp.internals.store.get(cp.internals.catalog.lookup('', 'v1', 'nodes')!, undefined, node);
  const addresses = ((n.status as JsonObject).addresses ?? []) as JsonObject[];
  return String(addresses.find((a) => a.type === 'InternalIP')?.address);
}
