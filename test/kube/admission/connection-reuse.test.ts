// The webhook client's connection pool: a burst of reviews keeps its sockets, so the next burst
// to the same webhook dials nothing. A pod create calls the webhook once; at fleet size the API
// server spent more on TLS handshakes with the webhook (new secure context, connect, handshake)
// than on storing the pod, because the pool closed all but 8 sockets after each burst.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCa, issueServingCert } from '../../../src/apimachinery/index.ts';
import { WebhookClient } from '../../../src/kube/admission/client.ts';
import type { WebhookEndpoint } from '../../../src/kube/admission/client.ts';

let server: Server;
let caPem: string;
let handshakes = 0;

before(async () => {
  const ca = createCa('reuse-test-ca');
  const serving = issueServingCert(ca, { commonName: 'hook', dnsNames: ['localhost'], ips: ['127.0.0.1'] });
  caPem = ca.certPem;
  server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    req.resume();
    // Answers a little later, so a burst's reviews are all in flight together.
    req.on('end', () => setTimeout(() => res.end('{}'), 20));
  });
  server.on('secureConnection', () => handshakes++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const burst = (client: WebhookClient, hook: WebhookEndpoint, n: number) =>
  Promise.all(Array.from({ length: n }, () => client.post(hook, '{}')));

test('a second burst of reviews reuses the connections the first one opened', async () => {
  const client = new WebhookClient(() => Promise.reject(new Error('no services here')));
  const { port } = server.address() as AddressInfo;
  const hook: WebhookEndpoint = { clientConfig: { url: `https://127.0.0.1:${port}/hook`, caPem }, timeoutSeconds: 10 };
  try {
    const first = await burst(client, hook, 48);
    assert.ok(first.every((r) => r.status === 200));
    const opened = handshakes;
    assert.ok(opened > 8 && opened <= 48, `the first burst opened ${opened} connections`);
    const second = await burst(client, hook, 48);
    assert.ok(second.every((r) => r.status === 200));
    assert.equal(handshakes - opened, 0, 'connections dialled again for the second burst');
  } finally {
    client.close();
  }
});

test('a CA bundle that does not parse fails the review and is not kept', async () => {
  const client = new WebhookClient(() => Promise.reject(new Error('no services here')));
  const { port } = server.address() as AddressInfo;
  const bad: WebhookEndpoint = {
    clientConfig: {
      url: `https://127.0.0.1:${port}/hook`,
      caPem: '-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n',
    },
    timeoutSeconds: 10,
  };
  try {
    await assert.rejects(client.post(bad, '{}'), /^Error: Post "https:\/\/127\.0\.0\.1:\d+\/hook\?timeout=10s": /);
    await assert.rejects(client.post(bad, '{}'), /Post "/);
  } finally {
    client.close();
  }
});
