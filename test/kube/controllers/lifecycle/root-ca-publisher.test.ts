// The root CA publisher (kube's pkg/controller/certificates/rootcacertpublisher/publisher.go):
// by default, as on every real cluster, every namespace holds `kube-root-ca.crt` with the cluster CA,
// put back when deleted or edited; ControlPlaneOptions.publishRootCaConfigMaps: false turns it off.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, eventually, type TestCluster } from '../../../helpers/control-plane.ts';
import { api } from '../../admission/helpers.ts';

/** eventually, typed for checks that answer a value or nothing yet. */
const until = <T>(check: () => Promise<T | undefined | false>, opts: { what?: string } = {}): Promise<T> =>
  eventually(check, opts) as Promise<T>;

// publisher.go's Description constant, word for word.
const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

interface ConfigMap {
  metadata: { resourceVersion: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  data?: Record<string, string>;
}

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster({ nodes: 0 });
});
after(() => cp?.stop());

const path = (ns: string) => `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`;

async function rootCa(ns: string): Promise<ConfigMap | undefined> {
  const r = await api(cp, 'GET', path(ns));
  return r.status === 200 ? (r.body as unknown as ConfigMap) : undefined;
}

test('every namespace gets kube-root-ca.crt with the cluster CA', async () => {
  for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
    const cm = await until(() => rootCa(ns), { what: `${ns}/kube-root-ca.crt` });
    assert.equal(cm.data?.['ca.crt'], cp.caPem);
  }
  assert.equal((await api(cp, 'POST', '/api/v1/namespaces', { metadata: { name: 'fresh' } })).status, 201);
  const cm = await until(() => rootCa('fresh'), { what: 'fresh/kube-root-ca.crt' });
  assert.deepEqual(cm.data, { 'ca.crt': cp.caPem });
  assert.deepEqual(cm.metadata.annotations, { 'kubernetes.io/description': DESCRIPTION });
});

test('a deleted kube-root-ca.crt comes back', async () => {
  const old = await until(() => rootCa('fresh'));
  assert.equal((await api(cp, 'DELETE', path('fresh'))).status, 200);
  const back = await until(async () => {
    const cm = await rootCa('fresh');
    return cm && cm.metadata.resourceVersion !== old.metadata.resourceVersion ? cm : undefined;
  });
  assert.deepEqual(back.data, { 'ca.crt': cp.caPem });
});

test('edited data is put back; other metadata is kept', async () => {
  const r = await api(
    cp,
    'PATCH',
    path('fresh'),
    { metadata: { labels: { mine: 'yes' } }, data: { 'ca.crt': 'not a CA', extra: 'x' } },
    'application/merge-patch+json',
  );
  assert.equal(r.status, 200);
  const fixed = await until(async () => {
    const cm = await rootCa('fresh');
    return cm?.data?.['ca.crt'] === cp.caPem ? cm : undefined;
  });
  assert.deepEqual(fixed.data, { 'ca.crt': cp.caPem });
  assert.deepEqual(fixed.metadata.labels, { mine: 'yes' });
  // Fixed once: no further writes while nothing changes.
  const rv = fixed.metadata.resourceVersion;
  assert.equal((await api(cp, 'POST', '/api/v1/namespaces', { metadata: { name: 'later' } })).status, 201);
  await until(() => rootCa('later'));
  assert.equal((await rootCa('fresh'))!.metadata.resourceVersion, rv);
});

test('publishRootCaConfigMaps: false leaves namespaces without ConfigMaps', async () => {
  const plain = await startTestCluster({ nodes: 0, publishRootCaConfigMaps: false });
  try {
    assert.equal((await api(plain, 'POST', '/api/v1/namespaces', { metadata: { name: 'bare' } })).status, 201);
    // The same namespace made in the publishing cluster gets its ConfigMap: by then the other would have one too.
    assert.equal((await api(cp, 'POST', '/api/v1/namespaces', { metadata: { name: 'bare' } })).status, 201);
    await until(() => rootCa('bare'), { what: 'bare/kube-root-ca.crt in the publishing cluster' });
    for (const ns of ['default', 'bare']) {
      const r = await api(plain, 'GET', `/api/v1/namespaces/${ns}/configmaps`);
      assert.deepEqual((r.body as { items: unknown[] }).items, [], ns);
    }
  } finally {
    await plain.stop();
  }
});
