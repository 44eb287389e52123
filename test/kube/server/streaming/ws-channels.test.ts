// The WebSocket channel protocols no pinned client speaks here but the kubelet serves
// (apimachinery wsstream/conn.go): base64.channel.k8s.io variants, the pre-v4 error channel, and
// v5's close signal — driven with the `ws` client.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { startStreamingCluster, type StreamingCluster } from './cluster.ts';

let c: StreamingCluster;
before(async () => {
  c = await startStreamingCluster();
});
after(async () => {
  await c.cp.stop();
});

interface Session {
  protocol: string;
  messages: Array<{ data: Buffer; binary: boolean }>;
  closeCode: number;
}

function execSession(
  query: string,
  protocols: string[],
  send: (ws: WebSocket) => void = () => undefined,
): Promise<Session> {
  const url = `${c.cp.url.replace('https://', 'wss://')}/api/v1/namespaces/default/pods/one/exec?${query}`;
  const ws = new WebSocket(url, protocols, { ca: c.cp.caPem, headers: { Authorization: `Bearer ${c.cp.token}` } });
  const messages: Session['messages'] = [];
  ws.on('message', (data: Buffer, binary: boolean) => messages.push({ data, binary }));
  ws.on('open', () => send(ws));
  return new Promise((resolve, reject) => {
    ws.on('error', reject);
    ws.on('close', (closeCode) => resolve({ protocol: ws.protocol, messages, closeCode }));
  });
}

const command = (script: string): string => `command=sh&command=-c&command=${encodeURIComponent(script)}`;

test('v4.base64.channel.k8s.io: text messages, channel digit and base64 payload', async () => {
  const s = await execSession(`${command('echo hi; echo no >&2; exit 2')}&stdout=true&stderr=true`, [
    'v4.base64.channel.k8s.io',
  ]);
  assert.equal(s.protocol, 'v4.base64.channel.k8s.io');
  assert.ok(s.messages.every((m) => !m.binary));
  const decoded = s.messages.map((m) => [
    m.data.toString()[0],
    Buffer.from(m.data.toString().slice(1), 'base64').toString(),
  ]);
  assert.deepEqual(decoded[0], ['1', '']); // the "connected" message on the first output channel
  assert.ok(decoded.some(([ch, text]) => ch === '1' && text === 'hi\n'));
  assert.ok(decoded.some(([ch, text]) => ch === '2' && text === 'no\n'));
  const status = JSON.parse(decoded.find(([ch]) => ch === '3')?.[1] ?? '{}');
  assert.equal(status.reason, 'NonZeroExitCode');
  assert.deepEqual(status.details, { causes: [{ reason: 'ExitCode', message: '2' }] });
  assert.equal(
    status.message,
    'command terminated with non-zero exit code: error executing command [sh -c echo hi; echo no >&2; exit 2], exit code 2',
  );
});

test('channel.k8s.io (pre-v4): the error channel carries the bare message, nothing on success', async () => {
  const failed = await execSession(`${command('exit 5')}&stdout=true`, ['channel.k8s.io']);
  const errors = failed.messages
    .filter((m) => m.data[0] === 3 && m.data.length > 1)
    .map((m) => m.data.subarray(1).toString());
  assert.deepEqual(errors, [
    'command terminated with non-zero exit code: error executing command [sh -c exit 5], exit code 5',
  ]);
  const ok = await execSession(`${command('true')}&stdout=true`, ['channel.k8s.io']);
  assert.deepEqual(
    ok.messages.filter((m) => m.data[0] === 3 && m.data.length > 1),
    [],
  );
});

test('v5.channel.k8s.io: [255, 0] ends stdin; the Status comes before a normal close', async () => {
  const s = await execSession(
    `${command('cat; echo end')}&stdin=true&stdout=true`,
    ['v5.channel.k8s.io', 'v4.channel.k8s.io'],
    (ws) => {
      ws.send(Buffer.concat([Buffer.from([0]), Buffer.from('typed\n')]));
      ws.send(Buffer.from([255, 0]));
    },
  );
  assert.equal(s.protocol, 'v5.channel.k8s.io');
  const stdout = Buffer.concat(s.messages.filter((m) => m.data[0] === 1).map((m) => m.data.subarray(1))).toString();
  assert.equal(stdout, 'typed\nend\n');
  const status = s.messages.find((m) => m.data[0] === 3 && m.data.length > 1);
  assert.deepEqual(JSON.parse(status?.data.subarray(1).toString() ?? '{}'), { metadata: {}, status: 'Success' });
  assert.equal(s.closeCode, 1000);
});
