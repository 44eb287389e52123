// A process pod driven with real kubectl, end to end through the API server's streaming endpoints
// and the kubelet's process runtime: logs (-f, --previous after a crash), exec (exit codes, the
// container's env) and port-forward to the process's port, with the oldest and newest pinned
// kubectl (1.27 speaks SPDY/3.1 for both; 1.33 WebSocket v5 for exec and the WebSocket-tunnelled
// SPDY for port-forward — cluster-runtime.md §3.3).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { eventually, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl, kubectlStream } from '../../../helpers/kubectl.ts';
import { createPod } from '../../controllers/scheduler/helpers.ts';
import { createProcessPod, marker, pidsWithMarker, startProcessCluster, status } from './helpers.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';

// Writes a numbered line every 100 ms and answers `pong <MARKER>` on port 8080 (any address).
const SCRIPT = `
let n = 0;
setInterval(() => console.log('tick ' + n++), 100);
require('node:http').createServer((_q, s) => s.end('pong ' + process.env.MARKER)).listen(8080);
`;

let cp: TestCluster;
const mark = marker();
before(async () => {
  cp = await startProcessCluster({ simulatedNodes: { crashLoopBackOff: { initialMs: 200, maxMs: 1000 } } });
  await createProcessPod(cp, 'ticker', {
    command: ['node', '-e', SCRIPT],
    env: [
      { name: 'MARKER', value: mark },
      { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
    ],
    ports: [{ containerPort: 8080 }],
  });
  await createPod(cp, 'simulated', { containers: [{ name: 'c', image: 'nginx' }] });
  await eventually(() => ((status(cp, 'ticker').containerStatuses ?? []) as JsonObject[])[0]?.ready === true, {
    what: 'ticker ready',
    timeoutMs: 30_000,
  });
});
after(() => cp.stop());

const kc = (): string => cp.kubeconfigPath;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

test('kubectl logs shows what the process wrote; -f streams new lines', async () => {
  await eventually(async () => /tick 2/.test((await kubectl(kc(), ['logs', 'ticker'])).stdout), {
    what: 'three lines',
  });
  const follow = kubectlStream(kc(), ['logs', '-f', 'ticker', '--tail=1']);
  try {
    const first = await eventually(() => /tick (\d+)/.exec(follow.output())?.[1], { what: 'a followed line' });
    await eventually(() => follow.output().includes(`tick ${Number(first) + 3}`), {
      what: 'lines written after -f started',
    });
  } finally {
    follow.stop();
  }
});

for (const version of ['1.27', '1.33']) {
  test(`kubectl ${version} exec runs in the container's environment and passes the exit code`, async () => {
    const script = 'echo "marker=$MARKER ip=$POD_IP"; exit 3';
    const r = await kubectl(kc(), ['exec', 'ticker', '--', 'sh', '-c', script], { version });
    assert.equal(r.code, 3, r.stderr);
    // The downward API sees the pod's address even on the first start, before it was stored.
    assert.equal(r.stdout.trim(), `marker=${mark} ip=${String(status(cp, 'ticker').podIP)}`);
    assert.match(r.stdout, /ip=127\.\d+\./);
    const echo = await kubectl(kc(), ['exec', '-i', 'ticker', '--', 'cat'], { version, input: 'from stdin\n' });
    assert.equal(echo.code, 0, echo.stderr);
    assert.equal(echo.stdout, 'from stdin\n');
  });

  test(`kubectl ${version} port-forward reaches the process's port`, async () => {
    const local = await freePort();
    const pf = kubectlStream(kc(), ['port-forward', 'pod/ticker', `${local}:8080`], version);
    try {
      await eventually(() => pf.output().includes('Forwarding from'), { what: 'port-forward listening' });
      const body = await (await fetch(`http://127.0.0.1:${local}/`)).text();
      assert.equal(body, `pong ${mark}`);
    } finally {
      pf.stop();
    }
  });
}

test('exec into a simulated container fails with a clear message', async () => {
  const r = await kubectl(kc(), ['exec', 'simulated', '--', 'true']);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /simulated/);
});

// Last: it restarts the container.
test('after SIGKILL the container restarts and --previous shows the killed instance', async () => {
  const before = (await kubectl(kc(), ['logs', 'ticker'])).stdout;
  for (const pid of pidsWithMarker(mark)) process.kill(pid, 'SIGKILL');
  await eventually(() => ((status(cp, 'ticker').containerStatuses ?? []) as JsonObject[])[0]?.restartCount === 1, {
    what: 'restartCount 1',
    timeoutMs: 20_000,
  });
  const cs = ((status(cp, 'ticker').containerStatuses ?? []) as JsonObject[])[0];
  const last = (cs.lastState as { terminated?: { exitCode?: number; reason?: string } }).terminated;
  assert.equal(last?.exitCode, 137);
  assert.equal(last?.reason, 'Error');
  const previous = await kubectl(kc(), ['logs', 'ticker', '--previous']);
  assert.equal(previous.code, 0, previous.stderr);
  assert.ok(previous.stdout.startsWith(before.split('\n')[0]), 'the previous instance starts with the same line');
  assert.ok(previous.stdout.length >= before.length, 'and holds at least what was read before the kill');
});
