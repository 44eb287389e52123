// Probes run for real against the process (pkg/kubelet/prober, pkg/probe/{http,tcp,exec}):
// readiness drives `ready` and the Ready/ContainersReady conditions (pkg/kubelet/status/generate.go),
// the startup probe gates `started`, a failing liveness probe restarts the container with the
// kubelet's `Unhealthy` and `Killing` events (pkg/kubelet/prober/prober.go, kuberuntime_manager.go).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestCluster } from '../../../helpers/control-plane.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import {
  condition,
  containerStatus,
  createProcessPod,
  podEvents,
  startProcessCluster,
  stateOf,
  until,
} from './helpers.ts';

/** A node HTTP server on `port` answering `codes[i]` to its i-th request (the last one after that). */
function server(port: number, codes: number[]): string[] {
  const script = `
    const codes = ${JSON.stringify(codes)}; let n = 0;
    require('http').createServer((req, res) => {
      console.log(JSON.stringify({ path: req.url, ua: req.headers['user-agent'], x: req.headers['x-probe'] }));
      res.statusCode = codes[Math.min(n++, codes.length - 1)]; res.end('ok');
    }).listen(${port});`;
  return ['node', '-e', script];
}

describe('process runtime: probes', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startProcessCluster({ simulatedNodes: { crashLoopBackOff: { initialMs: 1000, maxMs: 4000 } } });
  });
  after(() => cp.stop());

  test('an httpGet readiness probe against the process drives ready and the Ready condition', async () => {
    await createProcessPod(cp, 'web', {
      command: server(18431, [503, 503, 200]),
      ports: [{ name: 'http', containerPort: 18431 }],
      readinessProbe: {
        httpGet: { path: '/readyz', port: 'http', httpHeaders: [{ name: 'X-Probe', value: 'yes' }] },
        periodSeconds: 1,
      },
    });
    await until(() => stateOf(containerStatus(cp, 'web')).running, { what: 'web running' });
    // Readiness starts failed: not ready while the server answers 503.
    const notReady = condition(cp, 'web', 'Ready')!;
    assert.equal(notReady.status, 'False');
    assert.equal(notReady.reason, 'ContainersNotReady');
    assert.equal(notReady.message, 'containers with unready status: [c]');
    assert.equal(containerStatus(cp, 'web')!.started, true);
    await until(() => condition(cp, 'web', 'Ready')?.status === 'True', { what: 'web Ready', timeoutMs: 20_000 });
    assert.equal(condition(cp, 'web', 'ContainersReady')?.status, 'True');
    assert.equal(containerStatus(cp, 'web')!.ready, true);
    // Before the server listens the probe is refused; then it answers 503 twice.
    const unhealthy = podEvents(cp, 'web')
      .filter((e) => e.reason === 'Unhealthy')
      .map((e) => e.message);
    assert.ok(
      unhealthy.includes('Readiness probe failed: HTTP probe failed with statuscode: 503'),
      unhealthy.join('\n'),
    );
    for (const m of unhealthy)
      assert.match(
        String(m),
        /^Readiness probe failed: (HTTP probe failed with statuscode: 503|Get "http:\/\/127\.\d+\.1\.\d+:18431\/readyz": dial tcp 127\.\d+\.1\.\d+:18431: connect: connection refused)$/,
      );
    // The probe's request as the server saw it: kube's User-Agent and the configured header.
    const logs = cp.internals.extensions.podStreams!;
    const pod = cp.internals.store.get(cp.internals.catalog.lookup('', 'v1', 'pods')!, 'default', 'web');
    const stream = await logs.logs(
      pod,
      { container: 'c', previous: false, follow: false, timestamps: false },
      new AbortController().signal,
    );
    let text = '';
    for await (const chunk of stream) text += String(chunk);
    const first = JSON.parse(text.split('\n')[0]) as JsonObject;
    assert.deepEqual(first, { path: '/readyz', ua: 'kube-probe/1.33', x: 'yes' });
  });

  test('a failing liveness probe restarts the container with Unhealthy and Killing events', async () => {
    await createProcessPod(cp, 'sick', {
      command: server(18432, [500]),
      // The delay lets node start listening, so that the failures are the server's 500s.
      livenessProbe: {
        httpGet: { path: '/healthz', port: 18432 },
        initialDelaySeconds: 4,
        periodSeconds: 1,
        failureThreshold: 2,
      },
    });
    await until(() => Number(containerStatus(cp, 'sick')?.restartCount) >= 1, {
      what: 'sick restarted',
      timeoutMs: 30_000,
    });
    const events = podEvents(cp, 'sick');
    const unhealthy = events.find((e) => e.reason === 'Unhealthy' && String(e.message).includes('statuscode'))!;
    assert.equal(unhealthy.message, 'Liveness probe failed: HTTP probe failed with statuscode: 500');
    assert.equal(unhealthy.type, 'Warning');
    assert.ok(Number(unhealthy.count) >= 2, 'each failed attempt is reported');
    const killing = events.find((e) => e.reason === 'Killing')!;
    assert.equal(killing.message, 'Container c failed liveness probe, will be restarted');
    // node exits on SIGTERM by the signal: 128 + 15.
    const last = (containerStatus(cp, 'sick')!.lastState as JsonObject).terminated as JsonObject;
    assert.equal(last.exitCode, 143);
    assert.equal(last.reason, 'Error');
  });

  test('a tcpSocket startup probe gates started; an exec readiness probe runs in the container', async () => {
    await createProcessPod(cp, 'slow', {
      command: ['sh', '-c', 'sleep 1; exec node -e "require(\'net\').createServer().listen(18433)"'],
      env: [{ name: 'READY_FILE', value: '/dev/null' }],
      ports: [{ name: 'tcp', containerPort: 18433 }],
      startupProbe: { tcpSocket: { port: 'tcp' }, periodSeconds: 1, failureThreshold: 30 },
      readinessProbe: { exec: { command: ['sh', '-c', 'test -e "$READY_FILE"'] }, periodSeconds: 1 },
    });
    await until(() => stateOf(containerStatus(cp, 'slow')).running, { what: 'slow running' });
    assert.equal(containerStatus(cp, 'slow')!.started, false);
    await until(() => containerStatus(cp, 'slow')?.started === true, { what: 'slow started', timeoutMs: 20_000 });
    await until(() => containerStatus(cp, 'slow')?.ready === true, { what: 'slow ready', timeoutMs: 20_000 });
    assert.equal(condition(cp, 'slow', 'Ready')?.status, 'True');
    const startup = podEvents(cp, 'slow').find((e) => e.reason === 'Unhealthy');
    if (startup)
      assert.match(
        String(startup.message),
        /^Startup probe failed: dial tcp 127\.\d+\.1\.\d+:18433: connect: connection refused$/,
      );
  });
});
