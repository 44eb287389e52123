import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { certInfo, createCa, issueServingCert, renewAt, verifyPair } from '../../../src/apimachinery/certs/index.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2030, 0, 1);

test('createCa: a self-signed CA, LF-only PEM, valid from a little before now', () => {
  const ca = createCa('unit-ca', { validMs: 10 * DAY, now: NOW });
  assert.equal(ca.certPem.includes('\r'), false);
  const x = new X509Certificate(ca.certPem);
  assert.equal(x.ca, true);
  assert.equal(x.subject, 'CN=unit-ca');
  assert.equal(x.issuer, 'CN=unit-ca');
  assert.ok(x.checkIssued(x));
  const info = certInfo(ca.certPem)!;
  assert.ok(info.notBefore < NOW && info.notBefore >= NOW - 10 * 60_000);
  assert.equal(info.notAfter, NOW + 10 * DAY);
});

test('issueServingCert: DNS and IP SANs, common name, signed by the CA', () => {
  const ca = createCa('unit-ca');
  const s = issueServingCert(ca, { commonName: 'api', dnsNames: ['localhost', 'svc.ns.svc'], ips: ['127.0.0.1'] });
  const x = new X509Certificate(s.certPem);
  assert.equal(x.subject, 'CN=api');
  assert.equal(x.ca, false);
  assert.equal(x.subjectAltName, 'DNS:localhost, DNS:svc.ns.svc, IP Address:127.0.0.1');
  assert.ok(verifyPair(ca.certPem, s.certPem, s.keyPem));
  assert.equal(verifyPair(createCa('other').certPem, s.certPem, s.keyPem), false);
  assert.deepEqual(certInfo(s.certPem)?.dnsNames, ['localhost', 'svc.ns.svc']);
  // Without a common name the first DNS name is used.
  assert.equal(
    new X509Certificate(issueServingCert(ca, { dnsNames: ['hook.ns.svc'] }).certPem).subject,
    'CN=hook.ns.svc',
  );
});

test('renewAt: after the given fraction of the validity', () => {
  assert.equal(renewAt({ notBefore: 0, notAfter: 300, dnsNames: [] }), 200);
  assert.equal(renewAt({ notBefore: 100, notAfter: 200, dnsNames: [] }, 0.5), 150);
  assert.equal(certInfo('not a certificate'), undefined);
});

test('a TLS client trusting the CA verifies the serving certificate', async () => {
  const ca = createCa('unit-ca');
  const s = issueServingCert(ca, { dnsNames: ['localhost'], ips: ['127.0.0.1'] });
  const server = createServer({ cert: s.certPem, key: s.keyPem }, (_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const body = await new Promise<string>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, ca: ca.certPem, path: '/' }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(body, 'ok');
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
