// Kubeconfig discovery order and in-cluster configuration (resolution only; the integration test
// connects for real).
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConnectionConfig } from '../../../src/runtime/client/config.ts';
import { FakeClock } from '../../../src/runtime/util/clock.ts';

const saved = { ...process.env };
afterEach(() => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
});

function kubeconfig(
  server: string,
  user: Record<string, unknown> = { token: 't' },
  extra: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: 'c', cluster: { server: `${server}/`, 'certificate-authority': 'ca.pem' } },
      { name: 'other', cluster: { server: 'https://other:6443' } },
    ],
    users: [{ name: 'u', user }],
    contexts: [
      { name: 'main', context: { cluster: 'c', user: 'u', namespace: 'ns1' } },
      { name: 'alt', context: { cluster: 'other', user: 'u' } },
    ],
    'current-context': 'main',
    ...extra,
  });
}

function tmp(): string {
  return mkdtempSync(path.join(tmpdir(), 'kcfg-'));
}

test('explicit file wins, relative CA paths resolve against its directory, context can be chosen', async () => {
  const dir = tmp();
  writeFileSync(path.join(dir, 'ca.pem'), 'CA-BYTES');
  const file = path.join(dir, 'config');
  writeFileSync(file, kubeconfig('https://explicit:6443'));
  process.env.KUBECONFIG = '/nonexistent';
  const c = loadConnectionConfig({ kubeconfigPath: file });
  assert.equal(c.server, 'https://explicit:6443');
  assert.equal(c.namespace, 'ns1');
  assert.equal(c.source, 'kubeconfig');
  assert.equal(c.tls.ca?.toString(), 'CA-BYTES');
  assert.deepEqual(await c.auth.headers(), { authorization: 'Bearer t' });
  const alt = loadConnectionConfig({ kubeconfigPath: file, context: 'alt' });
  assert.equal(alt.server, 'https://other:6443');
  assert.equal(alt.namespace, 'default');
  assert.throws(() => loadConnectionConfig({ kubeconfigPath: file, context: 'nope' }), /no context "nope"/);
});

test('KUBECONFIG is used before ~/.kube/config; several files merge with the first winning', () => {
  const dir = tmp();
  writeFileSync(path.join(dir, 'ca.pem'), 'x');
  const a = path.join(dir, 'a');
  const b = path.join(dir, 'b');
  writeFileSync(a, JSON.stringify({ clusters: [], users: [], contexts: [], 'current-context': 'main' }));
  writeFileSync(b, kubeconfig('https://from-b:1'));
  const home = tmp();
  mkdirSync(path.join(home, '.kube'));
  writeFileSync(
    path.join(home, '.kube', 'config'),
    kubeconfig('https://from-home:1').replace('ca.pem', path.join(dir, 'ca.pem')),
  );
  process.env.HOME = home;
  process.env.KUBECONFIG = [a, path.join(dir, 'missing'), b].join(path.delimiter);
  assert.equal(loadConnectionConfig().server, 'https://from-b:1');
  delete process.env.KUBECONFIG;
  assert.equal(loadConnectionConfig().server, 'https://from-home:1');
});

test('in-cluster: service host/port env, CA, namespace and a token file re-read after rotation', async () => {
  const home = tmp();
  process.env.HOME = home; // no ~/.kube/config
  delete process.env.KUBECONFIG;
  const sa = tmp();
  writeFileSync(path.join(sa, 'token'), 'tok-1\n');
  writeFileSync(path.join(sa, 'ca.crt'), 'CA');
  writeFileSync(path.join(sa, 'namespace'), 'operators');
  process.env.PEERPODS_SERVICEACCOUNT_DIR = sa;
  assert.throws(() => loadConnectionConfig(), /no Kubernetes configuration found/);
  process.env.KUBERNETES_SERVICE_HOST = 'fd00::1';
  process.env.KUBERNETES_SERVICE_PORT = '6443';
  const clock = new FakeClock(0);
  const c = loadConnectionConfig({ tokenRefreshMs: 60_000, clock });
  assert.equal(c.source, 'in-cluster');
  assert.equal(c.server, 'https://[fd00::1]:6443');
  assert.equal(c.namespace, 'operators');
  assert.equal(c.tls.ca?.toString(), 'CA');
  assert.deepEqual(await c.auth.headers(), { authorization: 'Bearer tok-1' });
  writeFileSync(path.join(sa, 'token'), 'tok-2\n');
  assert.deepEqual(await c.auth.headers(), { authorization: 'Bearer tok-1' }, 'cached within the refresh period');
  clock.advanceSync(60_000);
  assert.deepEqual(await c.auth.headers(), { authorization: 'Bearer tok-2' }, 're-read after it');
  writeFileSync(path.join(sa, 'token'), 'tok-3\n');
  assert.equal(await c.auth.refresh!(), true, 'a 401 forces a re-read');
  assert.deepEqual(await c.auth.headers(), { authorization: 'Bearer tok-3' });
  assert.equal(await c.auth.refresh!(), false, 'unchanged file: no point retrying');
  // inCluster: true skips kubeconfig discovery even when one exists.
  process.env.KUBECONFIG = '/nonexistent';
  assert.equal(loadConnectionConfig({ inCluster: true, serviceAccountDir: sa }).source, 'in-cluster');
});

test("in a pod, the service account wins over a kubeconfig in the home directory (controller-runtime's order)", () => {
  const home = tmp();
  mkdirSync(path.join(home, '.kube'));
  writeFileSync(path.join(home, '.kube', 'config'), kubeconfig('https://from-home:1'));
  writeFileSync(path.join(home, '.kube', 'ca.pem'), 'CA');
  process.env.HOME = home;
  delete process.env.KUBECONFIG;
  const sa = tmp();
  writeFileSync(path.join(sa, 'token'), 'tok\n');
  process.env.PEERPODS_SERVICEACCOUNT_DIR = sa;
  delete process.env.KUBERNETES_SERVICE_HOST;
  assert.equal(loadConnectionConfig().server, 'https://from-home:1', 'outside a pod: ~/.kube/config');
  process.env.KUBERNETES_SERVICE_HOST = '127.0.0.1';
  process.env.KUBERNETES_SERVICE_PORT = '6443';
  const c = loadConnectionConfig();
  assert.equal(c.source, 'in-cluster');
  assert.equal(c.server, 'https://127.0.0.1:6443');
});

test('basic auth, impersonation, skip-verify and tls-server-name are honoured', async () => {
  const dir = tmp();
  const file = path.join(dir, 'config');
  writeFileSync(
    file,
    JSON.stringify({
      clusters: [
        { name: 'c', cluster: { server: 'https://h:1', 'insecure-skip-tls-verify': true, 'tls-server-name': 'api' } },
      ],
      users: [{ name: 'u', user: { username: 'admin', password: 'pw', as: 'someone' } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
  const c = loadConnectionConfig({ kubeconfigPath: file });
  assert.equal(c.tls.rejectUnauthorized, false);
  assert.equal(c.tls.servername, 'api');
  assert.deepEqual(await c.auth.headers(), {
    authorization: `Basic ${Buffer.from('admin:pw').toString('base64')}`,
    'impersonate-user': 'someone',
  });
  assert.doesNotMatch(c.auth.description, /pw/);
});

// Issue #16: a user learns which file is broken and what to do, in terms of files and commands
// rather than the library's option names.
test('kubeconfig errors name the file and say what to set', () => {
  const dir = tmp();
  const broken = path.join(dir, 'broken');
  writeFileSync(broken, 'apiVersion: v1\nclusters: [\n  - bad: : :\n');
  assert.throws(
    () => loadConnectionConfig({ kubeconfigPath: broken }),
    (e: Error) => e.message.startsWith(`cannot load kubeconfig ${broken}: `),
  );
  const noContext = path.join(dir, 'no-context');
  writeFileSync(noContext, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
  assert.throws(
    () => loadConnectionConfig({ kubeconfigPath: noContext }),
    (e: Error) =>
      e.message === `kubeconfig ${noContext} has no current-context: set one with \`kubectl config use-context NAME\``,
  );
  const home = tmp();
  process.env.HOME = home;
  delete process.env.KUBECONFIG;
  assert.throws(
    () => loadConnectionConfig(),
    (e: Error) => !/kubeconfigPath|`context`/.test(e.message),
  );
});
