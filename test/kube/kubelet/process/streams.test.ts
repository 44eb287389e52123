// The kubelet's side of pods/log, exec and port-forward for the embedded cluster (PodStreams):
// captured stdout/stderr per container instance with kube's ContainerLogQuery semantics and texts
// (pkg/kubelet/kubelet_pods.go validateContainerLogStatus, pkg/kubelet/kuberuntime/
// kuberuntime_logs.go), exec with the container's env, port-forward to the pod's address, and a
// clear 400 for simulated containers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { TestCluster } from '../../../helpers/control-plane.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import type { ContainerLogQuery, PodStreams } from '../../../../src/kube/kubelet/streams.ts';
import {
  ContainerConfigError,
  type ContainerConfigSource,
} from '../../../../src/kube/kubelet/process/container-config.ts';
import { literalEnvConfigSource } from '../../../../src/kube/kubelet/process/runtime.ts';
import {
  containerStatus,
  createPod,
  createProcessPod,
  getPod,
  IMAGE,
  startProcessCluster,
  stateOf,
  until,
} from './helpers.ts';

async function text(stream: Readable): Promise<string> {
  let out = '';
  for await (const chunk of stream) out += String(chunk);
  return out;
}

/** Fails containers that ask for the env var NEEDS_CONFIG, as a missing ConfigMap would. */
const configSource: ContainerConfigSource = {
  prepare(pod, container, podDir) {
    if (((container.env ?? []) as JsonObject[]).some((e) => e.name === 'NEEDS_CONFIG'))
      return Promise.reject(new ContainerConfigError('configmap "missing" not found'));
    return literalEnvConfigSource.prepare(pod, container, podDir);
  },
  release() {},
};

describe('process runtime: logs, exec, port-forward', () => {
  let cp: TestCluster;
  let streams: PodStreams;
  before(async () => {
    cp = await startProcessCluster({
      simulatedNodes: { crashLoopBackOff: { initialMs: 1000, maxMs: 4000 } },
      processRuntime: {
        images: ['ghcr.io/peerpods/peerpods'],
        entrypoint: [process.execPath, 'unused'],
        configSource,
      },
    });
    streams = cp.internals.extensions.podStreams!;
  });
  after(() => cp.stop());

  const logs = (name: string, query: Partial<ContainerLogQuery> = {}): Promise<string> =>
    streams
      .logs(
        getPod(cp, name),
        { container: 'c', previous: false, follow: false, timestamps: false, ...query },
        new AbortController().signal,
      )
      .then(text);

  test('stdout and stderr lines, timestamps, tailLines, limitBytes, since', async () => {
    await createProcessPod(cp, 'talker', {
      command: ['sh', '-c', 'echo out1; sleep 0.2; echo err1 >&2; sleep 0.2; echo out2; exec sleep 600'],
    });
    // The two streams are read separately, so a loaded machine may merge them in another order:
    // what is asserted is that every line arrives once and each stream keeps its own order.
    const full: string = await until(
      async () => {
        const t = await logs('talker').catch(() => '');
        return t.split('\n').length === 4 ? t : '';
      },
      { what: 'three lines', timeoutMs: 30_000 },
    );
    const lines = full.split('\n').slice(0, 3);
    assert.deepEqual([...lines].sort(), ['err1', 'out1', 'out2']);
    assert.ok(lines.indexOf('out1') < lines.indexOf('out2'), full);
    assert.equal(await logs('talker', { tailLines: 1 }), `${lines[2]}\n`);
    assert.equal(await logs('talker', { tailLines: 0 }), '');
    assert.equal(await logs('talker', { limitBytes: 7 }), full.slice(0, 7));
    assert.equal(await logs('talker', { since: new Date(Date.now() + 60_000) }), '');
    const stamped = (await logs('talker', { timestamps: true })).split('\n');
    // RFC 3339 with nanoseconds, fixed width, UTC (kuberuntime_logs.go timeFormatOut).
    assert.match(stamped[0], new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{9}Z ${lines[0]}$`));
    assert.match(stamped[1], new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{9}Z ${lines[1]}$`));
    const firstAt = Date.parse(stamped[0].slice(0, 23) + 'Z');
    assert.ok(Math.abs(Date.now() - firstAt) < 60_000);
    // since: lines at or after that moment (to the millisecond here, as sinceTime is to the second in kube).
    const secondAt = Date.parse(stamped[1].slice(0, 23) + 'Z');
    const fromSecond = await logs('talker', { since: new Date(secondAt) });
    assert.equal(fromSecond, firstAt === secondAt ? full : `${lines[1]}\n${lines[2]}\n`);
    await assert.rejects(logs('talker', { previous: true }), {
      code: 400,
      message: 'previous terminated container "c" in pod "talker" not found',
    });
  });

  test('previous: the instance before the restart', async () => {
    const counter = join(cp.dir, 'runs');
    await createProcessPod(cp, 'again', {
      command: [
        'sh',
        '-c',
        `n=$(( $(cat ${counter} 2>/dev/null || echo 0) + 1 )); echo $n > ${counter}; echo run $n; sleep 1; exit 1`,
      ],
    });
    await until(
      () => containerStatus(cp, 'again')?.restartCount === 1 && stateOf(containerStatus(cp, 'again')).running,
      {
        what: 'restarted once',
      },
    );
    assert.equal(await logs('again', { previous: true }), 'run 1\n');
    await until(async () => (await logs('again')) === 'run 2\n', { what: 'current instance' });
  });

  test('a container waiting on its configuration: CreateContainerConfigError, and the 400 for its logs', async () => {
    await createProcessPod(cp, 'noconfig', {
      command: ['sh', '-c', 'sleep 600'],
      env: [{ name: 'NEEDS_CONFIG', value: 'x' }],
    });
    const waiting = await until(
      () =>
        stateOf(containerStatus(cp, 'noconfig')).waiting?.reason === 'CreateContainerConfigError' &&
        stateOf(containerStatus(cp, 'noconfig')).waiting,
      {
        what: 'config error',
      },
    );
    assert.equal(waiting.message, 'configmap "missing" not found');
    assert.equal(((getPod(cp, 'noconfig').status ?? {}) as JsonObject).phase, 'Pending');
    await assert.rejects(logs('noconfig'), {
      code: 400,
      message: 'container "c" in pod "noconfig" is waiting to start: CreateContainerConfigError',
    });
  });

  test('exec runs in the container with its env; the exit code comes back', async () => {
    await createProcessPod(cp, 'shell', {
      command: ['sh', '-c', 'sleep 600'],
      env: [{ name: 'GREETING', value: 'hello' }],
    });
    await until(() => stateOf(containerStatus(cp, 'shell')).running, { what: 'shell running' });
    const session = await streams.exec(getPod(cp, 'shell'), {
      container: 'c',
      command: ['sh', '-c', 'read x; echo "$GREETING $x"; echo oops >&2; exit 3'],
      stdin: true,
      stdout: true,
      stderr: true,
      tty: false,
    });
    session.stdin!.end('world\n');
    const [out, err, exit] = await Promise.all([text(session.stdout!), text(session.stderr!), session.exited]);
    assert.equal(out, 'hello world\n');
    assert.equal(err, 'oops\n');
    assert.deepEqual(exit, { exitCode: 3 });
  });

  test('port-forward reaches the process on its pod address', async () => {
    await createProcessPod(cp, 'echo', {
      command: ['node', '-e', "require('net').createServer((s) => s.pipe(s)).listen(18434)"],
      readinessProbe: { tcpSocket: { port: 18434 }, periodSeconds: 1 },
    });
    await until(() => containerStatus(cp, 'echo')?.ready === true, { what: 'echo ready', timeoutMs: 20_000 });
    const conn = await streams.portForward(getPod(cp, 'echo'), 18434);
    conn.end('ping');
    assert.equal(await text(conn), 'ping');
    await assert.rejects(streams.portForward(getPod(cp, 'echo'), 18435), /connect: connection refused/);
    // The address really is the pod's own.
    const ip = String(((getPod(cp, 'echo').status ?? {}) as JsonObject).podIP);
    await new Promise<void>((resolve, reject) =>
      connect({ host: ip, port: 18434 }, resolve).on('error', reject).unref(),
    );
  });

  test('simulated containers: empty logs; exec and port-forward answer 400 naming the image', async () => {
    await createPod(cp, 'mixed', {
      containers: [
        { name: 'c', image: IMAGE, command: ['sh', '-c', 'sleep 600'] },
        { name: 'web', image: 'nginx:1.27' },
      ],
    });
    await createPod(cp, 'plain', { containers: [{ name: 'web', image: 'nginx:1.27' }] });
    await until(
      () =>
        stateOf(containerStatus(cp, 'mixed', 'web')).running && stateOf(containerStatus(cp, 'plain', 'web')).running,
      {
        what: 'pods running',
      },
    );
    assert.equal(await logs('plain', { container: 'web' }), '');
    assert.equal(await logs('mixed', { container: 'web', follow: true }), '');
    const exec = { command: ['sh'], stdin: false, stdout: true, stderr: true, tty: false };
    await assert.rejects(streams.exec(getPod(cp, 'mixed'), { container: 'web', ...exec }), {
      code: 400,
      message:
        'container "web" in pod "mixed" is simulated (image "nginx:1.27"): only containers of the images ghcr.io/peerpods/peerpods run as processes',
    });
    await assert.rejects(streams.portForward(getPod(cp, 'plain'), 80), {
      code: 400,
      message:
        'pod "plain" is simulated (images: nginx:1.27): only containers of the images ghcr.io/peerpods/peerpods run as processes',
    });
  });
});
