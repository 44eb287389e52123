// Conformance through @kubernetes/client-node 1.x: typed APIs, Watch and informers, the way
// TypeScript operators talk to the server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ApiException,
  ApiextensionsV1Api,
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  Watch,
  makeInformer,
  setHeaderOptions,
  type KubernetesObject,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import { eventually, startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { createNamespace } from '../../helpers/https.ts';

let cp: TestCluster;
let kc: KubeConfig;
let core: CoreV1Api;
let apps: AppsV1Api;
let custom: CustomObjectsApi;
let ext: ApiextensionsV1Api;
const NS = 'default';
const G = 'example.com';

const patchAs = (type: string) => setHeaderOptions('Content-Type', type);

interface StatusBody {
  kind: string;
  status: string;
  reason: string;
  code: number;
  message: string;
  details?: { name?: string; kind?: string; causes?: Array<{ reason?: string; message?: string; field?: string }> };
}

/** Awaits a call that must fail, and returns its HTTP code and parsed Status body. */
async function failure(p: Promise<unknown>): Promise<{ code: number; body: StatusBody }> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ApiException, `not an ApiException: ${String(e)}`);
    const raw: unknown = e.body;
    const body = (typeof raw === 'string' ? JSON.parse(raw) : raw) as StatusBody;
    return { code: e.code, body };
  }
  assert.fail('call succeeded');
}

async function expectStatus(p: Promise<unknown>, code: number, reason?: string): Promise<StatusBody> {
  const f = await failure(p);
  assert.equal(f.code, code, JSON.stringify(f.body));
  assert.equal(f.body.kind, 'Status');
  assert.equal(f.body.status, 'Failure');
  assert.equal(f.body.code, code);
  if (reason) assert.equal(f.body.reason, reason, f.body.message);
  return f.body;
}

interface WatchEvent {
  type: string;
  // Watch objects are arbitrary kinds (and Status on ERROR).
  object: KubernetesObject & Record<string, unknown>;
}

/** Starts a watch and collects its events; `done` resolves when the server ends it. */
async function collect(path: string, query: Record<string, string | number | boolean | undefined>) {
  const events: WatchEvent[] = [];
  let ended: unknown = false;
  const controller = await new Watch(kc).watch(
    path,
    query,
    (type, object) => events.push({ type, object }),
    (err) => (ended = err ?? true),
  );
  return { events, controller, ended: () => ended !== false, stop: () => controller.abort() };
}

const rv = (o: KubernetesObject) => Number(o.metadata?.resourceVersion);

function cm(
  name: string,
  extra: Partial<V1ConfigMap['metadata']> = {},
  data: Record<string, string> = { a: '1' },
): V1ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data };
}

type Gadget = KubernetesObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> };

function gadget(name: string, spec: Record<string, unknown> = { replicas: 1, color: 'red' }): Gadget {
  return { apiVersion: `${G}/v1`, kind: 'Gadget', metadata: { name }, spec };
}

async function createCrd(plural: string, kind: string): Promise<void> {
  await ext.createCustomResourceDefinition({
    body: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.${G}` },
      spec: {
        group: G,
        scope: 'Namespaced',
        names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: {
              status: {},
              scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
            },
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', properties: { replicas: { type: 'integer' }, color: { type: 'string' } } },
                  status: { type: 'object', properties: { replicas: { type: 'integer' }, phase: { type: 'string' } } },
                },
              },
            },
          },
        ],
      },
    },
  });
  await eventually(
    async () => {
      const crd = await ext.readCustomResourceDefinition({ name: `${plural}.${G}` });
      if (!crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return false;
      await custom.listNamespacedCustomObject({ group: G, version: 'v1', namespace: NS, plural });
      return true;
    },
    { what: `${plural} established` },
  );
}

const gadgets = { group: G, version: 'v1', namespace: NS, plural: 'gadgets' };

describe('@kubernetes/client-node', () => {
  before(async () => {
    cp = await startTestCluster({ bookmarkIntervalMs: 200 });
    kc = new KubeConfig();
    kc.loadFromFile(cp.kubeconfigPath);
    core = kc.makeApiClient(CoreV1Api);
    apps = kc.makeApiClient(AppsV1Api);
    custom = kc.makeApiClient(CustomObjectsApi);
    ext = kc.makeApiClient(ApiextensionsV1Api);
    await createCrd('gadgets', 'Gadget');
  });
  after(async () => {
    await cp?.stop();
  });

  test('CRUD with typed errors: 404, 409 AlreadyExists, 422 with causes', async () => {
    const created = await core.createNamespacedConfigMap({ namespace: NS, body: cm('crud') });
    assert.ok(created.metadata?.uid);
    assert.match(created.metadata?.resourceVersion ?? '', /^\d+$/);
    assert.ok(created.metadata?.creationTimestamp instanceof Date);
    const dup = await expectStatus(
      core.createNamespacedConfigMap({ namespace: NS, body: cm('crud') }),
      409,
      'AlreadyExists',
    );
    assert.equal(dup.message, 'configmaps "crud" already exists');
    assert.equal(dup.details?.kind, 'configmaps');
    assert.equal(dup.details?.name, 'crud');
    const nf = await expectStatus(core.readNamespacedConfigMap({ name: 'missing', namespace: NS }), 404, 'NotFound');
    assert.equal(nf.message, 'configmaps "missing" not found');
    const inv = await expectStatus(
      core.createNamespacedConfigMap({ namespace: NS, body: cm('Bad_Name', { labels: { 'in valid': 'x' } }) }),
      422,
      'Invalid',
    );
    const fields = (inv.details?.causes ?? []).map((c) => c.field);
    assert.ok(fields.includes('metadata.name'), JSON.stringify(inv.details));
    assert.ok(fields.includes('metadata.labels'), JSON.stringify(inv.details));
    const updated = await core.replaceNamespacedConfigMap({
      name: 'crud',
      namespace: NS,
      body: { ...created, data: { a: '2' } },
    });
    assert.deepEqual(updated.data, { a: '2' });
    await expectStatus(
      core.replaceNamespacedConfigMap({ name: 'crud', namespace: NS, body: { ...created, data: { a: '3' } } }),
      409,
      'Conflict',
    );
    await core.deleteNamespacedConfigMap({ name: 'crud', namespace: NS });
    await expectStatus(core.readNamespacedConfigMap({ name: 'crud', namespace: NS }), 404, 'NotFound');
  });

  test('resourceVersion rises on every write; list RV is at least every item RV', async () => {
    const a = await core.createNamespacedConfigMap({ namespace: NS, body: cm('rv-a') });
    const b = await core.createNamespacedConfigMap({ namespace: NS, body: cm('rv-b') });
    assert.ok(rv(b) > rv(a));
    const a2 = await core.patchNamespacedConfigMap(
      { name: 'rv-a', namespace: NS, body: { data: { a: '9' } } },
      patchAs(PatchStrategy.MergePatch),
    );
    assert.ok(rv(a2) > rv(b));
    const list = await core.listNamespacedConfigMap({ namespace: NS });
    const listRv = Number(list.metadata?.resourceVersion);
    assert.ok(list.items.length >= 2);
    for (const item of list.items) assert.ok(listRv >= rv(item), `${listRv} < ${rv(item)}`);
    const empty = await core.listNamespacedSecret({ namespace: 'kube-public' });
    assert.deepEqual(empty.items, []);
    assert.ok(Number(empty.metadata?.resourceVersion) >= listRv);
  });

  test('a no-op PUT keeps the resourceVersion and emits no watch event', async () => {
    const obj = await core.createNamespacedConfigMap({ namespace: NS, body: cm('noop') });
    const w = await collect(`/api/v1/namespaces/${NS}/configmaps`, {
      resourceVersion: obj.metadata?.resourceVersion,
      fieldSelector: 'metadata.name=noop',
    });
    try {
      const same = await core.replaceNamespacedConfigMap({ name: 'noop', namespace: NS, body: obj });
      assert.equal(same.metadata?.resourceVersion, obj.metadata?.resourceVersion);
      const changed = await core.replaceNamespacedConfigMap({
        name: 'noop',
        namespace: NS,
        body: { ...obj, data: { a: 'changed' } },
      });
      await eventually(() => w.events.length >= 1, { what: 'the real change' });
      assert.equal(w.events[0].type, 'MODIFIED');
      assert.equal(w.events[0].object.metadata?.resourceVersion, changed.metadata?.resourceVersion);
      assert.equal(w.events.length, 1);
    } finally {
      w.stop();
    }
  });

  test('CR generation starts at 1 and bumps only on spec changes', async () => {
    const g = (await custom.createNamespacedCustomObject({ ...gadgets, body: gadget('gen') })) as Gadget;
    assert.equal(g.metadata?.generation, 1);
    const labeled = (await custom.patchNamespacedCustomObject(
      { ...gadgets, name: 'gen', body: { metadata: { labels: { x: 'y' } } } },
      patchAs(PatchStrategy.MergePatch),
    )) as Gadget;
    assert.equal(labeled.metadata?.generation, 1);
    assert.ok(rv(labeled) > rv(g));
    const status = (await custom.patchNamespacedCustomObjectStatus(
      { ...gadgets, name: 'gen', body: { status: { phase: 'Ready' } } },
      patchAs(PatchStrategy.MergePatch),
    )) as Gadget;
    assert.equal(status.metadata?.generation, 1);
    const spec = (await custom.patchNamespacedCustomObject(
      { ...gadgets, name: 'gen', body: { spec: { color: 'blue' } } },
      patchAs(PatchStrategy.MergePatch),
    )) as Gadget;
    assert.equal(spec.metadata?.generation, 2);
  });

  test('status subresource: main endpoint keeps status, /status keeps spec and metadata', async () => {
    await custom.createNamespacedCustomObject({ ...gadgets, body: gadget('iso') });
    let cur = (await custom.replaceNamespacedCustomObjectStatus({
      ...gadgets,
      name: 'iso',
      body: { ...(await custom.getNamespacedCustomObject({ ...gadgets, name: 'iso' })), status: { phase: 'A' } },
    })) as Gadget;
    assert.deepEqual(cur.status, { phase: 'A' });
    cur = (await custom.replaceNamespacedCustomObject({
      ...gadgets,
      name: 'iso',
      body: { ...cur, spec: { replicas: 2, color: 'red' }, status: { phase: 'HACKED' } },
    })) as Gadget;
    assert.deepEqual(cur.status, { phase: 'A' });
    assert.equal(cur.spec?.replicas, 2);
    cur = (await custom.replaceNamespacedCustomObjectStatus({
      ...gadgets,
      name: 'iso',
      body: {
        ...cur,
        metadata: { ...cur.metadata, labels: { sneaky: 'yes' } },
        spec: { replicas: 99, color: 'x' },
        status: { phase: 'B' },
      },
    })) as Gadget;
    assert.deepEqual(cur.status, { phase: 'B' });
    assert.deepEqual(cur.spec, { replicas: 2, color: 'red' });
    assert.equal(cur.metadata?.labels?.sneaky, undefined);
  });

  test('PUT without resourceVersion: 422 for a CR, accepted for a ConfigMap', async () => {
    const g = (await custom.createNamespacedCustomObject({ ...gadgets, body: gadget('norv') })) as Gadget;
    const body = { ...g, metadata: { ...g.metadata, resourceVersion: undefined }, spec: { replicas: 5 } };
    const st = await expectStatus(
      custom.replaceNamespacedCustomObject({ ...gadgets, name: 'norv', body }),
      422,
      'Invalid',
    );
    assert.match(st.message, /metadata\.resourceVersion: Invalid value: 0x0: must be specified for an update/);
    await core.createNamespacedConfigMap({ namespace: NS, body: cm('norv') });
    const ok = await core.replaceNamespacedConfigMap({ name: 'norv', namespace: NS, body: cm('norv', {}, { b: '2' }) });
    assert.deepEqual(ok.data, { b: '2' });
  });

  test('merge patch null deletes a field', async () => {
    await core.createNamespacedConfigMap({
      namespace: NS,
      body: cm('mp', { labels: { keep: '1', drop: '2' } }, { a: '1', b: '2' }),
    });
    const p = await core.patchNamespacedConfigMap(
      { name: 'mp', namespace: NS, body: { metadata: { labels: { drop: null } }, data: { b: null } } },
      patchAs(PatchStrategy.MergePatch),
    );
    assert.deepEqual(p.data, { a: '1' });
    assert.deepEqual(p.metadata?.labels, { keep: '1' });
  });

  test('strategic merge patch merges containers by name; $patch: delete removes one', async () => {
    await apps.createNamespacedDeployment({
      namespace: NS,
      body: {
        metadata: { name: 'smp' },
        spec: {
          selector: { matchLabels: { app: 'smp' } },
          template: {
            metadata: { labels: { app: 'smp' } },
            spec: {
              containers: [
                { name: 'a', image: 'a:1' },
                { name: 'b', image: 'b:1' },
              ],
            },
          },
        },
      },
    });
    let d = await apps.patchNamespacedDeployment(
      {
        name: 'smp',
        namespace: NS,
        body: {
          spec: {
            template: {
              spec: {
                containers: [
                  { name: 'b', image: 'b:2' },
                  { name: 'c', image: 'c:1' },
                ],
              },
            },
          },
        },
      },
      patchAs(PatchStrategy.StrategicMergePatch),
    );
    assert.deepEqual(
      d.spec?.template.spec?.containers.map((c) => `${c.name}=${c.image}`),
      ['a=a:1', 'b=b:2', 'c=c:1'],
    );
    d = await apps.patchNamespacedDeployment(
      {
        name: 'smp',
        namespace: NS,
        body: { spec: { template: { spec: { containers: [{ name: 'a', $patch: 'delete' }] } } } },
      },
      patchAs(PatchStrategy.StrategicMergePatch),
    );
    assert.deepEqual(
      d.spec?.template.spec?.containers.map((c) => c.name),
      ['b', 'c'],
    );
  });

  test('strategic merge patch on a custom resource is 415', async () => {
    await custom.createNamespacedCustomObject({ ...gadgets, body: gadget('smp415') });
    const f = await failure(
      custom.patchNamespacedCustomObject(
        { ...gadgets, name: 'smp415', body: { spec: { replicas: 2 } } },
        patchAs(PatchStrategy.StrategicMergePatch),
      ),
    );
    assert.equal(f.code, 415);
    assert.equal(f.body.reason, 'UnsupportedMediaType');
    assert.match(
      f.body.message,
      /the body of the request was in an unknown format - accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/apply-patch\+yaml/,
    );
  });

  test('JSON patch on node /status/capacity/example.com~1foo persists', async () => {
    await core.createNode({ body: { metadata: { name: 'node-a' }, status: { capacity: { cpu: '2' } } } });
    const patched = await core.patchNodeStatus(
      { name: 'node-a', body: [{ op: 'add', path: '/status/capacity/example.com~1foo', value: '4' }] },
      patchAs(PatchStrategy.JsonPatch),
    );
    assert.equal(patched.status?.capacity?.['example.com/foo'], '4');
    const read = await core.readNode({ name: 'node-a' });
    assert.equal(read.status?.capacity?.['example.com/foo'], '4');
  });

  test('makeInformer sees add/update/delete and survives dropped watches', async () => {
    const ns = 'informer-ns';
    await createNamespace(cp, ns);
    const informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${ns}/configmaps`, () =>
      core.listNamespacedConfigMap({ namespace: ns }),
    );
    const seen: string[] = [];
    informer.on('add', (o) => seen.push(`add:${o.metadata?.name}`));
    informer.on('update', (o) => seen.push(`update:${o.metadata?.name}:${o.data?.v}`));
    informer.on('delete', (o) => seen.push(`delete:${o.metadata?.name}`));
    // client-node stops on a watch error; restarting is the caller's job.
    let stopped = false;
    informer.on('error', () => {
      if (!stopped) void informer.start();
    });
    await informer.start();
    try {
      await core.createNamespacedConfigMap({ namespace: ns, body: cm('i1', {}, { v: '1' }) });
      await eventually(() => seen.includes('add:i1'), { what: `add in ${seen}` });
      await core.patchNamespacedConfigMap(
        { name: 'i1', namespace: ns, body: { data: { v: '2' } } },
        patchAs(PatchStrategy.MergePatch),
      );
      await eventually(() => seen.includes('update:i1:2'), { what: `update in ${seen}` });
      await core.deleteNamespacedConfigMap({ name: 'i1', namespace: ns });
      await eventually(() => seen.includes('delete:i1'), { what: `delete in ${seen}` });
      cp.dropWatches();
      // Changes made while the watch is down must still arrive.
      await core.createNamespacedConfigMap({ namespace: ns, body: cm('i2', {}, { v: '1' }) });
      await core.createNamespacedConfigMap({ namespace: ns, body: cm('i3', {}, { v: '1' }) });
      await core.patchNamespacedConfigMap(
        { name: 'i2', namespace: ns, body: { data: { v: '7' } } },
        patchAs(PatchStrategy.MergePatch),
      );
      await eventually(
        async () => {
          const server = await core.listNamespacedConfigMap({ namespace: ns });
          const want = server.items
            .map((i) => `${i.metadata?.name}:${i.metadata?.resourceVersion}:${i.data?.v}`)
            .sort();
          const have = informer
            .list(ns)
            .map((i) => `${i.metadata?.name}:${i.metadata?.resourceVersion}:${i.data?.v}`)
            .sort();
          assert.deepEqual(have, want);
          // The root CA publisher's ConfigMap is part of every namespace, so of the informer's cache.
          return want.map((w) => w.split(':')[0]).join() === 'i2,i3,kube-root-ca.crt';
        },
        { what: 'informer cache equals the server' },
      );
    } finally {
      stopped = true;
      await informer.stop();
    }
  });

  test('Watch with allowWatchBookmarks gets BOOKMARK events carrying the RV', async () => {
    const list = await core.listNamespacedConfigMap({ namespace: NS });
    const w = await collect(`/api/v1/namespaces/${NS}/configmaps`, {
      allowWatchBookmarks: true,
      resourceVersion: list.metadata?.resourceVersion,
    });
    try {
      await eventually(() => w.events.some((e) => e.type === 'BOOKMARK'), { what: 'a bookmark' });
      const bm = w.events.find((e) => e.type === 'BOOKMARK')!;
      assert.equal(bm.object.kind, 'ConfigMap');
      assert.ok(Number(bm.object.metadata?.resourceVersion) >= Number(list.metadata?.resourceVersion));
    } finally {
      w.stop();
    }
    const plain = await collect(`/api/v1/namespaces/${NS}/configmaps`, {
      resourceVersion: list.metadata?.resourceVersion,
    });
    try {
      await core.createNamespacedConfigMap({ namespace: NS, body: cm('bm-probe') });
      await eventually(() => plain.events.some((e) => e.object.metadata?.name === 'bm-probe'), { what: 'probe event' });
      assert.ok(!plain.events.some((e) => e.type === 'BOOKMARK'));
    } finally {
      plain.stop();
    }
  });

  test('sendInitialEvents ends with the initial-events-end bookmark', async () => {
    await createNamespace(cp, 'sie');
    await core.createNamespacedConfigMap({ namespace: 'sie', body: cm('s1') });
    await core.createNamespacedConfigMap({ namespace: 'sie', body: cm('s2') });
    const w = await collect('/api/v1/namespaces/sie/configmaps', {
      sendInitialEvents: true,
      resourceVersionMatch: 'NotOlderThan',
      allowWatchBookmarks: true,
    });
    try {
      await eventually(() => w.events.some((e) => e.type === 'BOOKMARK'), { what: 'end bookmark' });
      const firstBm = w.events.findIndex((e) => e.type === 'BOOKMARK');
      assert.deepEqual(
        w.events
          .slice(0, firstBm)
          .map((e) => `${e.type}:${e.object.metadata?.name}`)
          .sort(),
        ['ADDED:kube-root-ca.crt', 'ADDED:s1', 'ADDED:s2'],
      );
      assert.equal(w.events[firstBm].object.metadata?.annotations?.['k8s.io/initial-events-end'], 'true');
    } finally {
      w.stop();
    }
    const bad = await collect('/api/v1/namespaces/sie/configmaps', { sendInitialEvents: true });
    await eventually(() => bad.ended(), { what: 'rejected watch' });
  });

  test('a watch with a label selector: exit is DELETED, entry is ADDED', async () => {
    const obj = await core.createNamespacedConfigMap({ namespace: NS, body: cm('sel', { labels: { team: 'a' } }) });
    const w = await collect(`/api/v1/namespaces/${NS}/configmaps`, {
      labelSelector: 'team=a',
      resourceVersion: obj.metadata?.resourceVersion,
    });
    try {
      const left = await core.patchNamespacedConfigMap(
        { name: 'sel', namespace: NS, body: { metadata: { labels: { team: 'b' } } } },
        patchAs(PatchStrategy.MergePatch),
      );
      const back = await core.patchNamespacedConfigMap(
        { name: 'sel', namespace: NS, body: { metadata: { labels: { team: 'a' } } } },
        patchAs(PatchStrategy.MergePatch),
      );
      await eventually(() => w.events.length >= 2, { what: 'two events' });
      // Like the cacher: the DELETED carries the last state that matched, at the new RV.
      assert.deepEqual(
        w.events.map((e) => `${e.type}:${e.object.metadata?.labels?.team}:${e.object.metadata?.resourceVersion}`),
        [`DELETED:a:${left.metadata?.resourceVersion}`, `ADDED:a:${back.metadata?.resourceVersion}`],
      );
    } finally {
      w.stop();
    }
  });

  test('timeoutSeconds closes the watch', async () => {
    const started = Date.now();
    const w = await collect(`/api/v1/namespaces/${NS}/configmaps`, { timeoutSeconds: 1, resourceVersion: '0' });
    await eventually(() => w.ended(), { timeoutMs: 5000, what: 'watch closed by the server' });
    assert.ok(Date.now() - started >= 900);
  });

  test('paging: limit/continue at a stable RV; an expired continue is 410', async () => {
    await createNamespace(cp, 'pages');
    for (let i = 0; i < 5; i++) await core.createNamespacedConfigMap({ namespace: 'pages', body: cm(`p${i}`) });
    const first = await core.listNamespacedConfigMap({ namespace: 'pages', limit: 2 });
    assert.equal(first.items.length, 2);
    assert.ok(first.metadata?._continue);
    await core.createNamespacedConfigMap({ namespace: 'pages', body: cm('p9-late') });
    const names = first.items.map((i) => i.metadata?.name);
    let cont: string | undefined = first.metadata?._continue;
    while (cont) {
      const page = await core.listNamespacedConfigMap({ namespace: 'pages', limit: 2, _continue: cont });
      assert.equal(page.metadata?.resourceVersion, first.metadata?.resourceVersion);
      names.push(...page.items.map((i) => i.metadata?.name));
      cont = page.metadata?._continue;
    }
    assert.deepEqual(names, ['kube-root-ca.crt', 'p0', 'p1', 'p2', 'p3', 'p4']);
    const again = await core.listNamespacedConfigMap({ namespace: 'pages', limit: 2 });
    await core.createNamespacedConfigMap({ namespace: 'pages', body: cm('p9-later') });
    cp.compactHistory();
    const st = await expectStatus(
      core.listNamespacedConfigMap({ namespace: 'pages', limit: 2, _continue: again.metadata?._continue }),
      410,
      'Expired',
    );
    assert.ok(st.message.length > 0);
  });

  test('a watch from a compacted resourceVersion gets ERROR 410', async () => {
    const obj = await core.createNamespacedConfigMap({ namespace: NS, body: cm('old-rv') });
    await core.patchNamespacedConfigMap(
      { name: 'old-rv', namespace: NS, body: { data: { a: '2' } } },
      patchAs(PatchStrategy.MergePatch),
    );
    cp.compactHistory();
    const w = await collect(`/api/v1/namespaces/${NS}/configmaps`, { resourceVersion: obj.metadata?.resourceVersion });
    try {
      await eventually(() => w.events.length > 0 || w.ended(), { what: 'an ERROR event' });
      // client-node surfaces a streamed ERROR event as an event (type ERROR) with a Status object.
      const err = w.events[0];
      assert.ok(err, 'no event before close');
      assert.equal(err.type, 'ERROR');
      assert.equal(err.object.kind, 'Status');
      assert.equal(err.object.code, 410);
      assert.equal(err.object.reason, 'Expired');
      assert.match(String(err.object.message), /too old resource version: \d+ \(\d+\)/);
      await eventually(() => w.ended(), { what: 'close after ERROR' });
    } finally {
      w.stop();
    }
  });

  test('finalizers: deletionTimestamp + MODIFIED, new finalizer is 422, last removal gives one DELETED', async () => {
    const obj = await core.createNamespacedConfigMap({
      namespace: NS,
      body: cm('fin', { finalizers: ['example.com/a', 'example.com/b'] }),
    });
    const w = await collect(`/api/v1/namespaces/${NS}/configmaps`, {
      resourceVersion: obj.metadata?.resourceVersion,
      fieldSelector: 'metadata.name=fin',
    });
    try {
      await core.deleteNamespacedConfigMap({ name: 'fin', namespace: NS });
      const cur = await core.readNamespacedConfigMap({ name: 'fin', namespace: NS });
      assert.ok(cur.metadata?.deletionTimestamp);
      assert.equal(cur.metadata?.deletionGracePeriodSeconds, 0);
      await eventually(() => w.events.some((e) => e.type === 'MODIFIED' && e.object.metadata?.deletionTimestamp), {
        what: 'MODIFIED with deletionTimestamp',
      });
      await expectStatus(
        core.patchNamespacedConfigMap(
          {
            name: 'fin',
            namespace: NS,
            body: { metadata: { finalizers: ['example.com/a', 'example.com/b', 'example.com/new'] } },
          },
          patchAs(PatchStrategy.MergePatch),
        ),
        422,
        'Invalid',
      );
      await core.patchNamespacedConfigMap(
        { name: 'fin', namespace: NS, body: { metadata: { finalizers: ['example.com/b'] } } },
        patchAs(PatchStrategy.MergePatch),
      );
      await core.patchNamespacedConfigMap(
        { name: 'fin', namespace: NS, body: { metadata: { finalizers: null } } },
        patchAs(PatchStrategy.MergePatch),
      );
      await eventually(() => w.events.some((e) => e.type === 'DELETED'), { what: 'DELETED' });
      await expectStatus(core.readNamespacedConfigMap({ name: 'fin', namespace: NS }), 404, 'NotFound');
      // A later event would have arrived by the time a fresh write round-trips.
      await core.createNamespacedConfigMap({ namespace: NS, body: cm('fin') });
      await eventually(() => w.events.some((e) => e.type === 'ADDED'), { what: 'recreate seen' });
      assert.equal(w.events.filter((e) => e.type === 'DELETED').length, 1);
    } finally {
      w.stop();
    }
  });

  test('DELETE with mismatched preconditions is 409', async () => {
    const obj = await core.createNamespacedConfigMap({ namespace: NS, body: cm('precond') });
    await expectStatus(
      core.deleteNamespacedConfigMap({
        name: 'precond',
        namespace: NS,
        body: { preconditions: { uid: 'not-the-uid' } },
      }),
      409,
      'Conflict',
    );
    await expectStatus(
      core.deleteNamespacedConfigMap({
        name: 'precond',
        namespace: NS,
        body: { preconditions: { resourceVersion: '1' } },
      }),
      409,
      'Conflict',
    );
    await core.deleteNamespacedConfigMap({
      name: 'precond',
      namespace: NS,
      body: { preconditions: { uid: obj.metadata?.uid, resourceVersion: obj.metadata?.resourceVersion } },
    });
    await expectStatus(core.readNamespacedConfigMap({ name: 'precond', namespace: NS }), 404);
  });

  test('garbage collection: Background, Foreground (blockOwnerDeletion) and Orphan', async () => {
    const owner = async (name: string) => core.createNamespacedConfigMap({ namespace: NS, body: cm(name) });
    const dependent = async (name: string, o: V1ConfigMap, extra: { finalizers?: string[]; block?: boolean } = {}) =>
      core.createNamespacedConfigMap({
        namespace: NS,
        body: cm(name, {
          finalizers: extra.finalizers,
          ownerReferences: [
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              name: o.metadata!.name!,
              uid: o.metadata!.uid!,
              blockOwnerDeletion: extra.block,
            },
          ],
        }),
      });
    const gone = (name: string) =>
      eventually(async () => (await failure(core.readNamespacedConfigMap({ name, namespace: NS }))).code === 404, {
        what: `${name} gone`,
      });

    const bg = await owner('gc-bg');
    await dependent('gc-bg-dep', bg);
    await core.deleteNamespacedConfigMap({ name: 'gc-bg', namespace: NS, propagationPolicy: 'Background' });
    await expectStatus(core.readNamespacedConfigMap({ name: 'gc-bg', namespace: NS }), 404);
    await gone('gc-bg-dep');

    const fg = await owner('gc-fg');
    await dependent('gc-fg-dep', fg, { block: true, finalizers: ['example.com/slow'] });
    await core.deleteNamespacedConfigMap({ name: 'gc-fg', namespace: NS, propagationPolicy: 'Foreground' });
    const held = await eventually(
      async () => {
        const o = await core.readNamespacedConfigMap({ name: 'gc-fg', namespace: NS });
        const dep = await core.readNamespacedConfigMap({ name: 'gc-fg-dep', namespace: NS });
        return o.metadata?.finalizers?.includes('foregroundDeletion') && dep.metadata?.deletionTimestamp
          ? o
          : undefined;
      },
      { what: 'foreground deletion in progress' },
    );
    assert.ok(held?.metadata?.deletionTimestamp);
    await core.patchNamespacedConfigMap(
      { name: 'gc-fg-dep', namespace: NS, body: { metadata: { finalizers: null } } },
      patchAs(PatchStrategy.MergePatch),
    );
    await gone('gc-fg-dep');
    await gone('gc-fg');

    const or = await owner('gc-or');
    await dependent('gc-or-dep', or);
    await core.deleteNamespacedConfigMap({ name: 'gc-or', namespace: NS, propagationPolicy: 'Orphan' });
    await gone('gc-or');
    await eventually(
      async () =>
        (await core.readNamespacedConfigMap({ name: 'gc-or-dep', namespace: NS })).metadata?.ownerReferences ===
        undefined,
      { what: 'ownerReference stripped' },
    );
  });

  test('two controller ownerReferences are 422', async () => {
    const st = await expectStatus(
      core.createNamespacedConfigMap({
        namespace: NS,
        body: cm('two-ctl', {
          ownerReferences: [
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              name: 'o1',
              uid: '11111111-1111-1111-1111-111111111111',
              controller: true,
            },
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              name: 'o2',
              uid: '22222222-2222-2222-2222-222222222222',
              controller: true,
            },
          ],
        }),
      }),
      422,
      'Invalid',
    );
    assert.ok(
      st.details?.causes?.some((c) => c.field === 'metadata.ownerReferences'),
      JSON.stringify(st.details),
    );
  });

  test('a Terminating namespace refuses creates with 403', async () => {
    await core.createNamespace({ body: { metadata: { name: 'term' } } });
    // The finalizer keeps the namespace Terminating until the test releases it.
    await core.createNamespacedConfigMap({
      namespace: 'term',
      body: cm('blocker', { finalizers: ['example.com/hold'] }),
    });
    await core.deleteNamespace({ name: 'term' });
    await eventually(async () => (await core.readNamespace({ name: 'term' })).status?.phase === 'Terminating', {
      what: 'Terminating',
    });
    const st = await expectStatus(
      core.createNamespacedConfigMap({ namespace: 'term', body: cm('late') }),
      403,
      'Forbidden',
    );
    assert.match(st.message, /because it is being terminated/);
    await eventually(
      async () =>
        !!(await core.readNamespacedConfigMap({ name: 'blocker', namespace: 'term' })).metadata?.deletionTimestamp,
      { what: 'contents being deleted' },
    );
    await core.patchNamespacedConfigMap(
      { name: 'blocker', namespace: 'term', body: { metadata: { finalizers: null } } },
      patchAs(PatchStrategy.MergePatch),
    );
    await eventually(async () => (await failure(core.readNamespace({ name: 'term' }))).code === 404, {
      what: 'namespace gone',
    });
  });

  test('deleting a CRD removes its custom resources', async () => {
    await createCrd('doomeds', 'Doomed');
    const d = { group: G, version: 'v1', namespace: NS, plural: 'doomeds' };
    await custom.createNamespacedCustomObject({
      ...d,
      body: { apiVersion: `${G}/v1`, kind: 'Doomed', metadata: { name: 'd1' }, spec: {} },
    });
    await ext.deleteCustomResourceDefinition({ name: `doomeds.${G}` });
    await eventually(
      async () => (await failure(ext.readCustomResourceDefinition({ name: `doomeds.${G}` }))).code === 404,
      { what: 'CRD gone' },
    );
    await createCrd('doomeds', 'Doomed');
    const list = (await custom.listNamespacedCustomObject(d)) as { items: unknown[] };
    assert.deepEqual(list.items, []);
  });

  test('scale subresource on a CR maps specReplicasPath', async () => {
    await custom.createNamespacedCustomObject({ ...gadgets, body: gadget('scaled', { replicas: 2 }) });
    const scale = (await custom.getNamespacedCustomObjectScale({ ...gadgets, name: 'scaled' })) as {
      kind: string;
      spec: { replicas: number };
    };
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.spec.replicas, 2);
    await custom.patchNamespacedCustomObjectScale(
      { ...gadgets, name: 'scaled', body: { spec: { replicas: 7 } } },
      patchAs(PatchStrategy.MergePatch),
    );
    const g = (await custom.getNamespacedCustomObject({ ...gadgets, name: 'scaled' })) as Gadget;
    assert.equal(g.spec?.replicas, 7);
    assert.equal(g.metadata?.generation, 2);
  });

  test('dryRun=All persists nothing and emits no event', async () => {
    const base = await core.createNamespacedConfigMap({ namespace: NS, body: cm('dry-base') });
    const w = await collect(`/api/v1/namespaces/${NS}/configmaps`, { resourceVersion: base.metadata?.resourceVersion });
    try {
      const created = await core.createNamespacedConfigMap({ namespace: NS, body: cm('dry-new'), dryRun: 'All' });
      assert.equal(created.metadata?.name, 'dry-new');
      await expectStatus(core.readNamespacedConfigMap({ name: 'dry-new', namespace: NS }), 404);
      await core.patchNamespacedConfigMap(
        { name: 'dry-base', namespace: NS, body: { data: { a: 'dry' } }, dryRun: 'All' },
        patchAs(PatchStrategy.MergePatch),
      );
      await core.deleteNamespacedConfigMap({ name: 'dry-base', namespace: NS, dryRun: 'All' });
      const still = await core.readNamespacedConfigMap({ name: 'dry-base', namespace: NS });
      assert.deepEqual(still.data, { a: '1' });
      assert.equal(still.metadata?.resourceVersion, base.metadata?.resourceVersion);
      const marker = await core.createNamespacedConfigMap({ namespace: NS, body: cm('dry-marker') });
      await eventually(() => w.events.length > 0, { what: 'marker event' });
      assert.deepEqual(
        w.events.map((e) => `${e.type}:${e.object.metadata?.name}`),
        ['ADDED:dry-marker'],
      );
      assert.equal(w.events[0].object.metadata?.resourceVersion, marker.metadata?.resourceVersion);
    } finally {
      w.stop();
    }
  });

  test('server-side apply: create, 409 FieldManagerConflict, force takes ownership, fieldManager required', async () => {
    const apply = (body: object, fieldManager: string | undefined, force?: boolean) =>
      core.patchNamespacedConfigMap(
        { name: 'ssa', namespace: NS, body, fieldManager, force },
        patchAs(PatchStrategy.ServerSideApply),
      );
    const created = await apply(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { x: '1', y: '1' } },
      'mgr',
    );
    assert.deepEqual(created.data, { x: '1', y: '1' });
    assert.ok(created.metadata?.managedFields?.some((m) => m.manager === 'mgr' && m.operation === 'Apply'));
    const st = await expectStatus(
      apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { x: '2' } }, 'other'),
      409,
      'Conflict',
    );
    assert.match(st.message, /Apply failed with 1 conflict: conflict with "mgr".*\.data\.x/);
    assert.ok(
      st.details?.causes?.some((c) => c.reason === 'FieldManagerConflict' && c.field === '.data.x'),
      JSON.stringify(st.details),
    );
    const forced = await apply(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { x: '2' } },
      'other',
      true,
    );
    assert.deepEqual(forced.data, { x: '2', y: '1' });
    // mgr no longer owns x; re-applying without x must not remove other's value.
    const again = await apply(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { y: '1' } },
      'mgr',
    );
    assert.deepEqual(again.data, { x: '2', y: '1' });
    await expectStatus(
      apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { z: '1' } }, undefined),
      422,
      'Invalid',
    );
  });
});
