// The client against the embedded control plane over HTTPS: CRUD, every patch type, status,
// typed errors, retryOnConflict, and each way of loading the configuration.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startControlPlane } from '../../../src/kube/index.ts';
import type { ControlPlane } from '../../../src/kube/index.ts';
import { KubeClient } from '../../../src/runtime/client/client.ts';
import {
  ConfigMaps,
  CustomResourceDefinitions,
  Deployments,
  Namespaces,
  customResource,
} from '../../../src/runtime/client/resources.ts';
import type { KubeObject, Status } from '../../../src/runtime/client/types.ts';
import {
  ApiError,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
  isUnauthorized,
  retryOnConflict,
} from '../../../src/runtime/client/errors.ts';
import { silentLogger } from '../../../src/runtime/util/logger.ts';
import { eventually } from '../cache/helpers.ts';

let cp: ControlPlane;
let client: KubeClient;
const quiet = { logger: silentLogger(), metricsRegistry: null };
const saved = { ...process.env };

before(async () => {
  cp = await startControlPlane();
  client = KubeClient.fromKubeconfigString(cp.kubeconfig, quiet);
});

after(async () => {
  client?.close();
  await cp?.stop();
});

function restoreEnv(): void {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
}

let n = 0;
/** A fresh namespace, once it holds the root CA publisher's `kube-root-ca.crt` like any real one. */
async function namespace(): Promise<string> {
  const name = `client-it-${process.pid}-${++n}`;
  await client.create(Namespaces, { metadata: { name } });
  await eventually(
    async () => !!(await client.get(ConfigMaps, 'kube-root-ca.crt', name)),
    `kube-root-ca.crt in ${name}`,
  );
  return name;
}

type CM = KubeObject & { data?: Record<string, string> };

test('create, get, list, update (PUT), delete, with typed errors', async () => {
  const ns = await namespace();
  const created = await client.create<CM>(ConfigMaps, { metadata: { name: 'a', namespace: ns }, data: { k: 'v' } });
  assert.ok(created.metadata.uid);
  assert.equal(created.kind, 'ConfigMap');
  const got = await client.get<CM>(ConfigMaps, 'a', ns);
  assert.equal(got.data?.k, 'v');

  await assert.rejects(
    client.create(ConfigMaps, { metadata: { name: 'a', namespace: ns } }),
    (e: unknown) => isAlreadyExists(e) && !isConflict(e),
  );
  await assert.rejects(client.get(ConfigMaps, 'missing', ns), (e: unknown) => isNotFound(e));
  await assert.rejects(client.create(ConfigMaps, { metadata: { name: 'Not_Valid', namespace: ns } }), (e: unknown) => {
    assert.ok(isInvalid(e));
    assert.equal((e as ApiError).code, 422);
    return true;
  });

  const updated = await client.update<CM>(ConfigMaps, { ...got, data: { k: 'v2' } });
  assert.equal(updated.data?.k, 'v2');
  assert.notEqual(updated.metadata.resourceVersion, got.metadata.resourceVersion);
  // `got` is stale now: optimistic concurrency says no.
  await assert.rejects(client.update(ConfigMaps, { ...got, data: { k: 'v3' } }), (e: unknown) => isConflict(e));

  const list = await client.list<CM>(ConfigMaps, { namespace: ns });
  assert.deepEqual(
    list.items.map((i) => i.metadata.name),
    ['a', 'kube-root-ca.crt'],
  );
  assert.ok(Number(list.resourceVersion) >= Number(updated.metadata.resourceVersion));
  assert.equal(list.items[0]!.kind, 'ConfigMap', 'list items get their kind back');

  await assert.rejects(client.delete(ConfigMaps, 'a', ns, { preconditions: { uid: 'wrong' } }), (e: unknown) =>
    isConflict(e),
  );
  const dry = await client.delete(ConfigMaps, 'a', ns, { dryRun: true });
  assert.ok(dry);
  await client.get(ConfigMaps, 'a', ns);
  await client.delete(ConfigMaps, 'a', ns, { propagationPolicy: 'Background' });
  await assert.rejects(client.get(ConfigMaps, 'a', ns), (e: unknown) => isNotFound(e));
  await assert.rejects(client.delete(ConfigMaps, 'a', ns), (e: unknown) => isNotFound(e));
});

test('patch: json, merge, strategic, server-side apply (with conflicts and force)', async () => {
  const ns = await namespace();
  await client.create(ConfigMaps, { metadata: { name: 'p', namespace: ns }, data: { a: '1', b: '2' } });
  let cm = await client.patch<CM>(ConfigMaps, 'p', ns, [{ op: 'replace', path: '/data/a', value: 'json' }], 'json');
  assert.equal(cm.data?.a, 'json');
  await assert.rejects(
    client.patch(ConfigMaps, 'p', ns, [{ op: 'test', path: '/data/a', value: 'nope' }], 'json'),
    (e: unknown) => e instanceof ApiError && e.code === 422,
  );
  cm = await client.patch<CM>(ConfigMaps, 'p', ns, { data: { b: null, c: 'merge' } }, 'merge');
  assert.deepEqual(cm.data, { a: 'json', c: 'merge' });
  await assert.rejects(
    client.patch(ConfigMaps, 'p', ns, { metadata: { resourceVersion: '1' }, data: { a: 'x' } }, 'merge'),
    (e: unknown) => isConflict(e),
  );

  const dep = {
    metadata: { name: 'd', namespace: ns },
    spec: {
      selector: { matchLabels: { app: 'd' } },
      template: {
        metadata: { labels: { app: 'd' } },
        spec: {
          containers: [
            { name: 'one', image: 'img:1' },
            { name: 'two', image: 'img:1' },
          ],
        },
      },
    },
  };
  await client.create(Deployments, dep);
  const smp = await client.patch<KubeObject>(
    Deployments,
    'd',
    ns,
    { spec: { template: { spec: { containers: [{ name: 'two', image: 'img:2' }] } } } },
    'strategic',
  );
  const containers = (smp.spec as { template: { spec: { containers: Array<{ name: string; image: string }> } } })
    .template.spec.containers;
  assert.deepEqual(
    containers.map((c) => `${c.name}=${c.image}`),
    ['one=img:1', 'two=img:2'],
    'strategic merge merges containers by name',
  );

  const applied = await client.patch<CM>(
    ConfigMaps,
    'applied',
    ns,
    { metadata: { name: 'applied', namespace: ns }, data: { owned: 'by-a' } },
    'apply',
    { fieldManager: 'manager-a' },
  );
  assert.equal(applied.data?.owned, 'by-a', 'apply creates a missing object');
  await assert.rejects(
    client.patch(
      ConfigMaps,
      'applied',
      ns,
      { metadata: { name: 'applied', namespace: ns }, data: { owned: 'by-b' } },
      'apply',
      {
        fieldManager: 'manager-b',
      },
    ),
    (e: unknown) => isConflict(e),
  );
  const forced = await client.patch<CM>(
    ConfigMaps,
    'applied',
    ns,
    { metadata: { name: 'applied', namespace: ns }, data: { owned: 'by-b' } },
    'apply',
    { fieldManager: 'manager-b', force: true },
  );
  assert.equal(forced.data?.owned, 'by-b');
});

test('status subresource on a custom resource: update and patch only touch status', async () => {
  const Widgets = customResource('example.peerpods.io', 'v1', 'Widget', 'widgets', true);
  await client.create(CustomResourceDefinitions, {
    metadata: { name: 'widgets.example.peerpods.io' },
    spec: {
      group: 'example.peerpods.io',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { size: { type: 'integer' } } },
                status: { type: 'object', properties: { phase: { type: 'string' } } },
              },
            },
          },
        },
      ],
    },
  });
  const ns = await namespace();
  type Widget = KubeObject & { spec?: { size?: number }; status?: { phase?: string } };
  let w: Widget | undefined;
  await eventually(async () => {
    try {
      w = await client.create<Widget>(Widgets, { metadata: { name: 'w', namespace: ns }, spec: { size: 1 } });
      return true;
    } catch (e) {
      if (isNotFound(e)) return false; // CRD not established yet
      throw e;
    }
  }, 'CRD established');
  assert.equal(w!.metadata.generation, 1);
  const st = await client.updateStatus<Widget>(Widgets, { ...w!, spec: { size: 99 }, status: { phase: 'Ready' } });
  assert.equal(st.status?.phase, 'Ready');
  assert.equal(st.spec?.size, 1, 'spec changes through /status are ignored');
  const patched = await client.patch<Widget>(Widgets, 'w', ns, { status: { phase: 'Done' } }, 'merge', {
    subresource: 'status',
  });
  assert.equal(patched.status?.phase, 'Done');
  const main = await client.update<Widget>(Widgets, { ...patched, spec: { size: 2 }, status: { phase: 'Ignored' } });
  assert.equal(main.status?.phase, 'Done', 'status changes through the main resource are ignored');
  assert.equal(main.metadata.generation, 2);
  await assert.rejects(
    client.create(Widgets, { metadata: { name: 'bad', namespace: ns }, spec: { size: 'big' } }),
    (e: unknown) => isInvalid(e),
  );
});

test('retryOnConflict converges when writers race on one object', async () => {
  const ns = await namespace();
  await client.create(ConfigMaps, { metadata: { name: 'counter', namespace: ns }, data: { n: '0' } });
  let conflicts = 0;
  const increment = (): Promise<CM> =>
    retryOnConflict(
      async () => {
        const cur = await client.get<CM>(ConfigMaps, 'counter', ns);
        try {
          return await client.update<CM>(ConfigMaps, { ...cur, data: { n: String(Number(cur.data?.n) + 1) } });
        } catch (e) {
          if (isConflict(e)) conflicts++;
          throw e;
        }
      },
      { attempts: 50 },
    );
  await Promise.all(Array.from({ length: 10 }, increment));
  const final = await client.get<CM>(ConfigMaps, 'counter', ns);
  assert.equal(final.data?.n, '10');
  assert.ok(conflicts > 0, 'the race produced conflicts that were retried');
});

test('raw request escape hatch', async () => {
  const res = await client.request('GET', '/api/v1/namespaces/default');
  assert.equal(res.statusCode, 200);
  assert.equal((res.body as KubeObject).metadata.name, 'default');
  await assert.rejects(client.request('GET', '/api/v1/namespaces/nope-nope'), (e: unknown) => isNotFound(e));
  const st = (await client.delete(ConfigMaps, 'x', 'default').catch((e: ApiError) => e.status)) as Status;
  assert.equal(st.reason, 'NotFound');
});

test('kubeconfig from a file, from KUBECONFIG, and in-cluster with token rotation', async () => {
  try {
    const dir = mkdtempSync(path.join(tmpdir(), 'kc-'));
    const file = path.join(dir, 'config');
    writeFileSync(file, cp.kubeconfig);
    const fromFile = await KubeClient.load({ kubeconfigPath: file, ...quiet });
    assert.equal((await fromFile.get(Namespaces, 'default')).metadata.name, 'default');
    fromFile.close();

    process.env.KUBECONFIG = file;
    process.env.HOME = dir;
    const fromEnv = await KubeClient.load(quiet);
    assert.equal(fromEnv.server, cp.url.replace(/\/$/, ''));
    await fromEnv.get(Namespaces, 'default');
    fromEnv.close();

    // In-cluster: service env + a service-account directory of temp files.
    delete process.env.KUBECONFIG;
    const sa = mkdtempSync(path.join(tmpdir(), 'sa-'));
    writeFileSync(path.join(sa, 'ca.crt'), cp.caPem);
    writeFileSync(path.join(sa, 'token'), 'stale-token\n');
    writeFileSync(path.join(sa, 'namespace'), 'kube-system');
    const url = new URL(cp.url);
    process.env.KUBERNETES_SERVICE_HOST = url.hostname;
    process.env.KUBERNETES_SERVICE_PORT = url.port;
    process.env.PEERPODS_SERVICEACCOUNT_DIR = sa;
    const inCluster = await KubeClient.load(quiet);
    assert.equal(inCluster.connection.source, 'in-cluster');
    assert.equal(inCluster.namespace, 'kube-system');
    await assert.rejects(inCluster.get(Namespaces, 'default'), (e: unknown) => isUnauthorized(e));
    // The kubelet rotates the token: the next 401 re-reads the file and the retry succeeds.
    writeFileSync(path.join(sa, 'token'), `${cp.token}\n`);
    assert.equal((await inCluster.get(Namespaces, 'default')).metadata.name, 'default');
    inCluster.close();
  } finally {
    restoreEnv();
  }
});

test('client-side rate limit paces requests', async () => {
  const limited = KubeClient.fromKubeconfigString(cp.kubeconfig, { ...quiet, rateLimit: { qps: 20, burst: 2 } });
  const t0 = Date.now();
  await Promise.all(Array.from({ length: 8 }, () => limited.get(Namespaces, 'default')));
  // 2 at once, then 6 more at 20/s: at least ~300 ms.
  assert.ok(Date.now() - t0 >= 280, `took ${Date.now() - t0} ms`);
  limited.close();
});
