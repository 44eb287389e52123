// A process pod's volumes, materialised as the kubelet's volume plugins and AtomicWriter
// (pkg/volume/util/atomic_writer.go) lay them out, kept up to date when a ConfigMap changes
// (except subPath mounts, which kube bind-mounts once per container start), plus hostPath on the
// simulated node's filesystem and the service-account directory that
// plugin/pkg/admission/serviceaccount/admission.go would add.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, lstatSync, readFileSync, readdirSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import { ContainerConfigError, type VolumeMount } from '../../../../src/kube/kubelet/process/container-config.ts';
import { internalContext } from '../../../../src/kube/registry/context.ts';
import { kubectl } from '../../../helpers/kubectl.ts';
import { waitFor } from '../../../helpers/wait.ts';
import { containerOf, jwtClaims, podOf, startConfigFixture, type ConfigFixture } from './config-fixture.ts';

const NS = 'voltest';
const SA_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
let fx: ConfigFixture;

before(async () => {
  fx = await startConfigFixture(NS);
  await fx.create('configmaps', NS, {
    metadata: { name: 'app' },
    data: { 'app.yaml': 'level: info\n', other: 'x' },
    binaryData: { 'blob.bin': Buffer.from([0, 1, 2, 255]).toString('base64') },
  });
  await fx.create('secrets', NS, {
    metadata: { name: 'tls' },
    data: { 'tls.key': Buffer.from('KEY').toString('base64'), 'tls.crt': Buffer.from('CRT').toString('base64') },
  });
  await fx.create('serviceaccounts', NS, { metadata: { name: 'quiet' }, automountServiceAccountToken: false });
});
after(() => fx.stop());

function mountAt(mounts: VolumeMount[], path: string): VolumeMount {
  const m = mounts.find((x) => x.mountPath === path);
  assert.ok(m, `no mount at ${path}: ${JSON.stringify(mounts)}`);
  return m;
}

function modeOf(file: string): number {
  return statSync(file).mode & 0o777;
}

async function prepare(spec: JsonObject, meta: JsonObject = {}) {
  const pod = podOf(NS, spec, meta);
  const podDir = fx.podDir();
  const config = await fx.source.prepare(pod, containerOf(pod), podDir);
  return { pod, podDir, config };
}

describe('API-backed volumes', () => {
  test('configMap and secret: items, modes, binary data, decoded secrets, atomic layout', async () => {
    const { podDir, config } = await prepare({
      volumes: [
        { name: 'all', configMap: { name: 'app', defaultMode: 0o600 } },
        { name: 'some', configMap: { name: 'app', items: [{ key: 'app.yaml', path: 'conf/app.yaml', mode: 0o400 }] } },
        { name: 'keys', secret: { secretName: 'tls', items: [{ key: 'tls.key', path: 'key.pem' }] } },
      ],
      containers: [
        {
          name: 'c',
          image: 'x',
          volumeMounts: [
            { name: 'all', mountPath: '/etc/app/' },
            { name: 'some', mountPath: '/etc/some' },
            { name: 'keys', mountPath: '/etc/tls', readOnly: false },
          ],
        },
      ],
    });
    const all = mountAt(config.mounts, '/etc/app');
    assert.equal(all.hostPath, join(podDir, 'volumes', 'all'));
    // configMap, secret, downwardAPI and projected volumes are read-only whatever the mount says.
    assert.equal(all.readOnly, true);
    assert.equal(mountAt(config.mounts, '/etc/tls').readOnly, true);

    assert.deepEqual(
      readdirSync(all.hostPath)
        .filter((n) => !n.startsWith('..'))
        .sort(),
      ['app.yaml', 'blob.bin', 'other'],
    );
    assert.equal(readFileSync(join(all.hostPath, 'app.yaml'), 'utf8'), 'level: info\n');
    assert.deepEqual([...readFileSync(join(all.hostPath, 'blob.bin'))], [0, 1, 2, 255]);
    assert.equal(modeOf(join(all.hostPath, 'app.yaml')), 0o600);
    // User-visible entries are symlinks through ..data, which names a timestamped directory.
    assert.equal(readlinkSync(join(all.hostPath, 'app.yaml')), '..data/app.yaml');
    assert.match(readlinkSync(join(all.hostPath, '..data')), /^\.\.\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d\.\w+$/);

    const some = mountAt(config.mounts, '/etc/some').hostPath;
    assert.equal(readFileSync(join(some, 'conf/app.yaml'), 'utf8'), 'level: info\n');
    assert.equal(modeOf(join(some, 'conf/app.yaml')), 0o400);
    assert.equal(existsSync(join(some, 'other')), false);

    const tls = mountAt(config.mounts, '/etc/tls').hostPath;
    assert.equal(readFileSync(join(tls, 'key.pem'), 'utf8'), 'KEY');
    assert.equal(modeOf(join(tls, 'key.pem')), 0o644);
    assert.equal(existsSync(join(tls, 'tls.crt')), false);
  });

  test('downwardAPI and projected volumes', async () => {
    const { pod, config } = await prepare(
      {
        volumes: [
          {
            name: 'info',
            downwardAPI: {
              items: [
                { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
                { path: 'name', fieldRef: { fieldPath: 'metadata.name' } },
                { path: 'mem', resourceFieldRef: { containerName: 'c', resource: 'limits.memory', divisor: '1Mi' } },
              ],
            },
          },
          {
            name: 'bundle',
            projected: {
              defaultMode: 0o440,
              sources: [
                { configMap: { name: 'app', items: [{ key: 'other', path: 'other.txt' }] } },
                { secret: { name: 'tls' } },
                { serviceAccountToken: { path: 'sa-token' } },
                { downwardAPI: { items: [{ path: 'ns', fieldRef: { fieldPath: 'metadata.namespace' } }] } },
              ],
            },
          },
        ],
        containers: [
          {
            name: 'c',
            image: 'x',
            resources: { limits: { memory: '128Mi' } },
            volumeMounts: [
              { name: 'info', mountPath: '/etc/info' },
              { name: 'bundle', mountPath: '/etc/bundle' },
            ],
          },
        ],
      },
      { labels: { tier: 'web', app: 'a"b' } },
    );
    const info = mountAt(config.mounts, '/etc/info').hostPath;
    // fieldpath.FormatMap: sorted key="value" lines, Go-quoted.
    assert.equal(readFileSync(join(info, 'labels'), 'utf8'), 'app="a\\"b"\ntier="web"');
    assert.equal(readFileSync(join(info, 'name'), 'utf8'), 'web');
    assert.equal(readFileSync(join(info, 'mem'), 'utf8'), '128');
    const bundle = mountAt(config.mounts, '/etc/bundle').hostPath;
    const files = readdirSync(bundle).filter((n) => !n.startsWith('..'));
    assert.deepEqual(files.sort(), ['ns', 'other.txt', 'sa-token', 'tls.crt', 'tls.key']);
    // A token of the pod's ServiceAccount bound to the pod (pkg/serviceaccount/claims.go).
    const claims = jwtClaims(readFileSync(join(bundle, 'sa-token'), 'utf8'));
    assert.equal(claims.sub, `system:serviceaccount:${NS}:default`);
    assert.deepEqual((claims['kubernetes.io'] as JsonObject).pod, {
      name: 'web',
      uid: (pod.metadata as JsonObject).uid,
    });
    assert.equal(readFileSync(join(bundle, 'ns'), 'utf8'), NS);
    assert.equal(modeOf(join(bundle, 'tls.crt')), 0o440);
  });

  test('a ConfigMap update reaches the volume, not a subPath mount', async () => {
    await fx.create('configmaps', NS, { metadata: { name: 'live' }, data: { 'app.yaml': 'v: 1\n' } });
    const { config } = await prepare({
      volumes: [{ name: 'cfg', configMap: { name: 'live' } }],
      containers: [
        {
          name: 'c',
          image: 'x',
          volumeMounts: [
            { name: 'cfg', mountPath: '/etc/live' },
            { name: 'cfg', mountPath: '/etc/pinned.yaml', subPath: 'app.yaml' },
          ],
        },
      ],
    });
    const dir = mountAt(config.mounts, '/etc/live').hostPath;
    const pinned = mountAt(config.mounts, '/etc/pinned.yaml').hostPath;
    assert.equal(readFileSync(pinned, 'utf8'), 'v: 1\n');
    const oldData = readlinkSync(join(dir, '..data'));

    // The real client, as a user would change it.
    const res = await kubectl(fx.cp.kubeconfigPath, [
      '-n',
      NS,
      'patch',
      'configmap',
      'live',
      '-p',
      '{"data":{"app.yaml":"v: 2\\n","new":"n"}}',
    ]);
    assert.equal(res.code, 0, res.stderr);
    await waitFor(
      () => readFileSync(join(dir, 'app.yaml'), 'utf8') === 'v: 2\n',
      'the volume to show the update',
      10_000,
    );
    assert.equal(readFileSync(join(dir, 'new'), 'utf8'), 'n');
    assert.notEqual(readlinkSync(join(dir, '..data')), oldData);
    assert.equal(existsSync(join(dir, oldData)), false, 'the old data directory is removed');
    assert.equal(readFileSync(pinned, 'utf8'), 'v: 1\n', 'subPath mounts are not refreshed');
  });

  test("downwardAPI files follow the pod's labels", async () => {
    const podsDef = fx.cp.internals.catalog.lookup('', 'v1', 'pods')!;
    const stored = await fx.cp.internals.store.create(
      podsDef,
      NS,
      {
        metadata: { name: 'labelled', labels: { tier: 'web' } },
        spec: {
          volumes: [
            { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
          ],
          containers: [{ name: 'c', image: 'x', volumeMounts: [{ name: 'info', mountPath: '/etc/info' }] }],
        },
      },
      internalContext('test'),
    );
    const config = await fx.source.prepare(stored, containerOf(stored), fx.podDir());
    const file = join(mountAt(config.mounts, '/etc/info').hostPath, 'labels');
    assert.equal(readFileSync(file, 'utf8'), 'tier="web"');
    const res = await kubectl(fx.cp.kubeconfigPath, ['-n', NS, 'label', 'pod', 'labelled', 'tier=api', '--overwrite']);
    assert.equal(res.code, 0, res.stderr);
    await waitFor(() => readFileSync(file, 'utf8') === 'tier="api"', 'the labels file to follow', 10_000);
  });

  test('release stops the refresh of that pod only', async () => {
    await fx.create('configmaps', NS, { metadata: { name: 'gone' }, data: { k: '1' } });
    await fx.create('configmaps', NS, { metadata: { name: 'kept' }, data: { k: '1' } });
    const spec = (cm: string): JsonObject => ({
      volumes: [{ name: 'v', configMap: { name: cm } }],
      containers: [{ name: 'c', image: 'x', volumeMounts: [{ name: 'v', mountPath: '/v' }] }],
    });
    const released = await prepare(spec('gone'));
    const live = await prepare(spec('kept'));
    fx.source.release(String((released.pod.metadata as JsonObject).uid));
    const cmDef = fx.cp.internals.catalog.lookup('', 'v1', 'configmaps')!;
    // The live pod's refresh, after both writes, proves the refresher saw both changes.
    for (const name of ['gone', 'kept'])
      await fx.cp.internals.store.patch(cmDef, NS, name, 'merge', { data: { k: '2' } }, internalContext('test'));
    const liveDir = mountAt(live.config.mounts, '/v').hostPath;
    await waitFor(() => readFileSync(join(liveDir, 'k'), 'utf8') === '2', 'the live pod refresh', 10_000);
    assert.equal(readFileSync(join(mountAt(released.config.mounts, '/v').hostPath, 'k'), 'utf8'), '1');
  });

  test('a missing ConfigMap fails the mount; an optional one is an empty directory', async () => {
    const spec = (optional: boolean): JsonObject => ({
      volumes: [{ name: 'cfg', configMap: { name: 'absent', optional } }],
      containers: [{ name: 'c', image: 'x', volumeMounts: [{ name: 'cfg', mountPath: '/etc/absent' }] }],
    });
    await assert.rejects(
      prepare(spec(false)),
      (e: unknown) =>
        e instanceof ContainerConfigError &&
        e.message === 'MountVolume.SetUp failed for volume "cfg" : configmap "absent" not found',
    );
    const { config } = await prepare(spec(true));
    const dir = mountAt(config.mounts, '/etc/absent').hostPath;
    assert.deepEqual(
      readdirSync(dir).filter((n) => !n.startsWith('..')),
      [],
    );
  });
});

describe('local volumes', () => {
  test('emptyDir is a writable directory shared by mounts; subPath into it is live', async () => {
    const { podDir, config } = await prepare({
      volumes: [{ name: 'scratch', emptyDir: {} }],
      containers: [
        {
          name: 'c',
          image: 'x',
          volumeMounts: [
            { name: 'scratch', mountPath: '/scratch' },
            { name: 'scratch', mountPath: '/cache', subPath: 'cache' },
          ],
        },
      ],
    });
    const dir = mountAt(config.mounts, '/scratch');
    assert.deepEqual(dir, { mountPath: '/scratch', hostPath: join(podDir, 'volumes', 'scratch'), readOnly: false });
    const cache = mountAt(config.mounts, '/cache').hostPath;
    assert.equal(cache, join(dir.hostPath, 'cache'));
    writeFileSync(join(cache, 'f'), 'x');
    assert.equal(readFileSync(join(dir.hostPath, 'cache', 'f'), 'utf8'), 'x');
  });

  test("hostPath lives under the node's rootfs, never on this machine's path", async () => {
    const path = `/var/lib/peerpods-hostpath-test-${process.pid}`;
    const { config } = await prepare({
      volumes: [{ name: 'state', hostPath: { path, type: 'DirectoryOrCreate' } }],
      containers: [{ name: 'c', image: 'x', volumeMounts: [{ name: 'state', mountPath: '/state', readOnly: true }] }],
    });
    const m = mountAt(config.mounts, '/state');
    assert.deepEqual(m, {
      mountPath: '/state',
      hostPath: join(fx.stateDir, 'nodes', 'node-1', 'rootfs', path),
      readOnly: true,
    });
    assert.ok(statSync(m.hostPath).isDirectory());
    assert.equal(existsSync(path), false);
    await assert.rejects(
      prepare({
        volumes: [{ name: 'must', hostPath: { path: `${path}-missing`, type: 'Directory' } }],
        containers: [{ name: 'c', image: 'x' }],
      }),
      {
        message: `MountVolume.SetUp failed for volume "must" : hostPath type check failed: ${path}-missing is not a directory`,
      },
    );
  });

  test('other volume types are refused with a clear message', async () => {
    await assert.rejects(
      prepare({
        volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'pvc' } }],
        containers: [{ name: 'c', image: 'x' }],
      }),
      (e: unknown) =>
        e instanceof ContainerConfigError &&
        e.message.startsWith(
          'MountVolume.SetUp failed for volume "data" : persistentVolumeClaim volumes are not supported',
        ),
    );
  });
});

describe('service-account directory', () => {
  test('mounted read-only with token, ca.crt and namespace', async () => {
    const { pod, config } = await prepare({ containers: [{ name: 'c', image: 'x' }] });
    const sa = mountAt(config.mounts, SA_PATH);
    assert.equal(sa.readOnly, true);
    const claims = jwtClaims(readFileSync(join(sa.hostPath, 'token'), 'utf8'));
    assert.equal(claims.sub, `system:serviceaccount:${NS}:default`);
    assert.equal(((claims['kubernetes.io'] as JsonObject).pod as JsonObject).uid, (pod.metadata as JsonObject).uid);
    assert.equal(readFileSync(join(sa.hostPath, 'ca.crt'), 'utf8'), fx.cp.caPem);
    assert.equal(readFileSync(join(sa.hostPath, 'namespace'), 'utf8'), NS);
    assert.ok(lstatSync(join(sa.hostPath, 'token')).isSymbolicLink());
  });

  test('absent when the pod or its ServiceAccount opts out, or the path is already mounted', async () => {
    const none = async (spec: JsonObject) => {
      const { config } = await prepare({ containers: [{ name: 'c', image: 'x' }], ...spec });
      return config.mounts.filter((m) => m.mountPath === SA_PATH);
    };
    assert.deepEqual(await none({ automountServiceAccountToken: false }), []);
    assert.deepEqual(await none({ serviceAccountName: 'quiet' }), []);
    // The pod's own field wins over its ServiceAccount's.
    assert.equal((await none({ serviceAccountName: 'quiet', automountServiceAccountToken: true })).length, 1);
    const own = await none({
      volumes: [{ name: 'mine', emptyDir: {} }],
      containers: [{ name: 'c', image: 'x', volumeMounts: [{ name: 'mine', mountPath: SA_PATH }] }],
    });
    assert.equal(own.length, 1);
    assert.equal(own[0].readOnly, false);
  });
});
