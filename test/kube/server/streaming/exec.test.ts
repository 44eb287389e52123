// pods/exec through the real clients: kubectl 1.27 speaks SPDY/3.1 (remotecommand v4), kubectl
// 1.33 WebSocket v5.channel.k8s.io, the Python client WebSocket v4.channel.k8s.io
// (cluster-runtime.md §3.3). The node runs the commands as real processes. Exit codes travel in
// the error channel's Status (kubelet remotecommand/exec.go, client-go remotecommand/v4.go).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { kubectl } from '../../../helpers/kubectl.ts';
import { runPython } from '../../../helpers/python.ts';
import { waitFor } from '../../../helpers/wait.ts';
import { startStreamingCluster, type StreamingCluster } from './cluster.ts';

let c: StreamingCluster;
before(async () => {
  c = await startStreamingCluster();
});
after(async () => {
  await c.cp.stop();
  await waitFor(() => c.node.running().every((pid) => !existsSync(`/proc/${pid}`)), 'exec processes gone', 5000);
});

for (const version of ['1.27', '1.33']) {
  describe(`kubectl ${version} exec`, () => {
    test('stdout and stderr reach the client; the exit code is kubectl’s', async () => {
      const r = await kubectl(c.kubeconfig, ['exec', 'one', '--', 'sh', '-c', 'echo out; echo err >&2'], { version });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, 'out\n');
      assert.equal(r.stderr, 'err\n');
    });

    test('stdin is piped with -i and ends at EOF', async () => {
      const input = 'hello\nworld\n'.repeat(2000);
      const r = await kubectl(c.kubeconfig, ['exec', '-i', 'one', '--', 'sh', '-c', 'cat; echo done'], {
        version,
        input,
      });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${input}done\n`);
    });

    test('a command exiting 3 makes kubectl exit 3', async () => {
      const r = await kubectl(c.kubeconfig, ['exec', 'one', '--', 'sh', '-c', 'echo partial; exit 3'], { version });
      assert.equal(r.code, 3, r.stderr);
      assert.equal(r.stdout, 'partial\n');
      assert.match(r.stderr, /command terminated with exit code 3/);
    });

    test('-c picks the container; a missing one is refused', async () => {
      const ok = await kubectl(c.kubeconfig, ['exec', 'two', '-c', 'b', '--', 'echo', 'in b'], { version });
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(ok.stdout, 'in b\n');
      assert.equal(c.node.execRequests.at(-1)?.container, 'b');
      const bad = await kubectl(c.kubeconfig, ['exec', 'two', '-c', 'nope', '--', 'true'], { version });
      assert.notEqual(bad.code, 0);
      // pkg/registry/core/pod/strategy.go validateContainer
      assert.match(bad.stderr, /container nope is not valid for pod two/);
    });
  });
}

test('kubectl 1.33 negotiates WebSocket v5 without falling back to SPDY', async () => {
  const r = await kubectl(c.kubeconfig, ['exec', 'one', '-v=5', '--', 'echo', 'hi'], { version: '1.33' });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'hi\n');
  // client-go tools/remotecommand/websocket.go logs the negotiated subprotocol.
  assert.match(r.stderr, /The subprotocol is v5\.channel\.k8s\.io/);
  assert.doesNotMatch(r.stderr, /fallback/i);
});

test('a container the node does not know gives the kubelet’s text', async (t) => {
  // The pod names container "app"; this node pretends it is gone.
  const original = c.node.exec.bind(c.node);
  c.node.exec = (pod, request) => original(pod, { ...request, container: 'gone' });
  t.after(() => {
    c.node.exec = original;
  });
  const old = await kubectl(c.kubeconfig, ['exec', 'one', '--', 'true'], { version: '1.27' });
  assert.notEqual(old.code, 0);
  assert.match(old.stderr, /unable to upgrade connection: container not found \("gone"\)/);
  const current = await kubectl(c.kubeconfig, ['exec', 'one', '--', 'true'], { version: '1.33' });
  assert.notEqual(current.code, 0);
  assert.match(current.stderr, /container not found \("gone"\)/);
});

test('Python client: stream() with output, stdin and returncode', async () => {
  const r = await runPython(
    c.kubeconfig,
    `
import json, sys
from kubernetes import client, config
from kubernetes.stream import stream
config.load_kube_config(sys.argv[1])
api = client.CoreV1Api()
out = stream(api.connect_get_namespaced_pod_exec, 'one', 'default',
             command=['sh', '-c', 'echo out; echo err >&2'], stderr=True, stdin=False, stdout=True, tty=False)
resp = stream(api.connect_get_namespaced_pod_exec, 'one', 'default',
              command=['sh', '-c', 'read line; echo got $line; echo oops >&2; exit 4'],
              stderr=True, stdin=True, stdout=True, tty=False, _preload_content=False)
resp.write_stdin('ping\\n')
resp.run_forever(timeout=20)
print(json.dumps({'all': out, 'stdout': resp.read_stdout(), 'stderr': resp.read_stderr(), 'rc': resp.returncode}))
`,
  );
  assert.equal(r.code, 0, r.stderr);
  const result = r.json() as { all: string; stdout: string; stderr: string; rc: number };
  assert.match(result.all, /out\n/);
  assert.match(result.all, /err\n/);
  assert.equal(result.stdout, 'got ping\n');
  assert.equal(result.stderr, 'oops\n');
  assert.equal(result.rc, 4);
});
