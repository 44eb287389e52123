// pods/portforward through the real clients: kubectl 1.27 speaks SPDY/3.1, kubectl 1.33 the same
// SPDY frames tunnelled in WebSocket binary messages (SPDY/3.1+portforward.k8s.io), the Python
// client WebSocket v4 channels with `?ports=` (cluster-runtime.md §3.3, §3.7). The node forwards
// to a real TCP echo server standing in for the container's port.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { kubectlStream } from '../../../helpers/kubectl.ts';
import { runPython } from '../../../helpers/python.ts';
import { waitFor } from '../../../helpers/wait.ts';
import { startStreamingCluster, type StreamingCluster } from './cluster.ts';

let c: StreamingCluster;
let echo: Server;
const open = new Set<Socket>();

before(async () => {
  c = await startStreamingCluster();
  echo = createServer((socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => undefined);
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  const address = echo.address();
  if (!address || typeof address === 'string') throw new Error('no echo address');
  c.node.ports.set(8080, address.port);
});
after(async () => {
  await c.cp.stop();
  await new Promise<void>((resolve) => echo.close(() => resolve()));
});

/** Sends `text` through a fresh connection to the local port and returns what came back. */
async function roundTrip(port: number, text: string): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  socket.setEncoding('utf8');
  let received = '';
  socket.on('data', (d: string) => (received += d));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.write(text);
  await waitFor(() => received.length >= text.length, `echo of ${text.length} bytes`, 10_000);
  socket.end();
  return received;
}

for (const version of ['1.27', '1.33']) {
  describe(`kubectl ${version} port-forward`, () => {
    test('two concurrent connections reach the pod port and back', async () => {
      // -v=4 shows whether 1.33 negotiated the tunnel or fell back to SPDY (tunneling_dialer.go).
      const pf = kubectlStream(c.kubeconfig, ['port-forward', 'pod/one', ':8080', '-v=4'], version);
      try {
        await waitFor(() => /Forwarding from 127\.0\.0\.1:\d+ -> 8080/.test(pf.output()), 'port-forward ready', 20_000);
        const local = Number(/Forwarding from 127\.0\.0\.1:(\d+)/.exec(pf.output())?.[1]);
        const big = 'x'.repeat(200_000);
        const [a, b] = await Promise.all([roundTrip(local, `first ${big}`), roundTrip(local, 'second\n')]);
        assert.equal(a, `first ${big}`);
        assert.equal(b, 'second\n');
        // The connections were closed by the client: the node's side of them goes too.
        await waitFor(() => open.size === 0, 'forwarded connections closed', 10_000);
        assert.equal(pf.child.exitCode, null, pf.output());
        assert.doesNotMatch(pf.output(), /lost connection|an error occurred|fallback/i);
        if (version === '1.33')
          assert.match(pf.output(), /tunneling_dialer.go.*negotiated protocol: portforward\.k8s\.io/);
      } finally {
        pf.stop();
        await waitFor(() => pf.child.exitCode !== null || pf.child.signalCode !== null, 'kubectl gone', 10_000);
      }
    });
  });
}

test('a port nothing listens on: the kubelet’s error reaches kubectl', async () => {
  const pf = kubectlStream(c.kubeconfig, ['port-forward', 'pod/one', ':9999'], '1.27');
  try {
    await waitFor(() => /Forwarding from 127\.0\.0\.1:\d+ -> 9999/.test(pf.output()), 'port-forward ready', 20_000);
    const local = Number(/Forwarding from 127\.0\.0\.1:(\d+)/.exec(pf.output())?.[1]);
    const socket = connect(local, '127.0.0.1');
    socket.on('error', () => undefined);
    // portforward.go handleConnection: a non-empty error stream is logged as the forwarding error.
    await waitFor(() => /error forwarding port 9999 to pod default\/one/.test(pf.output()), 'error reported', 10_000);
    socket.destroy();
  } finally {
    pf.stop();
  }
});

test('Python client: portforward() with ports=', async () => {
  const r = await runPython(
    c.kubeconfig,
    `
import json, sys
from kubernetes import client, config
from kubernetes.stream import portforward
config.load_kube_config(sys.argv[1])
api = client.CoreV1Api()
pf = portforward(api.connect_get_namespaced_pod_portforward, 'one', 'default', ports='8080')
sock = pf.socket(8080)
sock.setblocking(True)
sock.sendall(b'hello from python')
data = b''
while len(data) < 17:
    data += sock.recv(1024)
sock.close()
print(json.dumps({'echo': data.decode(), 'error': pf.error(8080)}))
`,
  );
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.json(), { echo: 'hello from python', error: null });
});
