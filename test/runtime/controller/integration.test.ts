import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import {
  ConfigMaps,
  ControllerBuilder,
  Manager,
  Secrets,
  addFinalizer,
  createOrPatch,
  hasFinalizer,
  isConflict,
  isNotFound,
  removeFinalizer,
  setControllerReference,
  silentLogger,
} from '../../../src/runtime/index.ts';
import type { KubeClient, KubeObject } from '../../../src/runtime/index.ts';
import { startTestCluster } from '../../helpers/runtime-cluster.ts';
import type { TestCluster } from '../../helpers/runtime-cluster.ts';
import { waitFor } from '../../helpers/wait.ts';

type ConfigMap = KubeObject & { data?: Record<string, string> };

describe('controllers against the embedded control plane', () => {
  let cluster: TestCluster;
  let client: KubeClient;
  let registry: Registry;
  let manager: Manager;
  let running: Promise<void>;
  const conflicts: string[] = [];
  const cleanedUp: string[] = [];
  const FINALIZER = 'test.peerpods.io/cleanup';

  before(async () => {
    cluster = await startTestCluster();
    registry = new Registry();
    client = cluster.client(registry);
    manager = new Manager({
      client,
      logger: silentLogger(),
      metricsRegistry: registry,
      server: false,
      handleSignals: false,
    });

    // Counts the keys of `counter` ConfigMaps with an update that races another writer.
    new ControllerBuilder(manager, 'counter')
      .for(ConfigMaps, { scope: { namespace: 'default', labelSelector: 'role=counter' } })
      .complete(async (req) => {
        const cm = manager.cache.get<ConfigMap>(ConfigMaps, req.name, req.namespace, {
          scope: { namespace: 'default', labelSelector: 'role=counter' },
        });
        if (!cm || cm.data?.done === 'true') return;
        if (!cm.data?.raced) {
          // Someone else writes between our read and our write: our update must get a 409.
          await client.update(ConfigMaps, { ...structuredClone(cm), data: { ...cm.data, raced: 'yes' } });
        }
        try {
          await client.update(ConfigMaps, { ...structuredClone(cm), data: { ...cm.data, done: 'true' } });
        } catch (err) {
          if (isConflict(err)) conflicts.push(req.name);
          throw err; // retried with backoff; the retry reads the newer object
        }
      });

    // Finalizer flow: add ours; on deletion clean up, then remove only ours.
    new ControllerBuilder(manager, 'finalizing')
      .for(ConfigMaps, { scope: { namespace: 'default', labelSelector: 'role=finalized' } })
      .complete(async (req) => {
        const cm = await client.get<ConfigMap>(ConfigMaps, req.name, req.namespace).catch((e: unknown) => {
          if (isNotFound(e)) return undefined;
          throw e;
        });
        if (!cm) return;
        if (!cm.metadata.deletionTimestamp) {
          await addFinalizer(client, ConfigMaps, cm, FINALIZER);
          return;
        }
        if (hasFinalizer(cm, FINALIZER)) {
          cleanedUp.push(req.name);
          await removeFinalizer(client, ConfigMaps, cm, FINALIZER);
        }
      });

    // Owner flow: each `role=owner` ConfigMap owns a Secret; deleting the Secret brings it back.
    new ControllerBuilder(manager, 'owner')
      .for(ConfigMaps, { scope: { namespace: 'default', labelSelector: 'role=owner' } })
      .owns(Secrets, { scope: { namespace: 'default' } })
      .complete(async (req) => {
        const cm = manager.cache.get<ConfigMap>(ConfigMaps, req.name, req.namespace, {
          scope: { namespace: 'default', labelSelector: 'role=owner' },
        });
        if (!cm) return;
        await createOrPatch<KubeObject & { stringData?: Record<string, string>; data?: Record<string, string> }>(
          client,
          Secrets,
          { metadata: { name: `${req.name}-secret`, namespace: req.namespace } },
          (s) => {
            setControllerReference(cm, s);
            s.data = { value: Buffer.from(cm.data?.value ?? '').toString('base64') };
          },
        );
      });

    running = manager.start();
    await manager.elected();
  });

  after(async () => {
    await manager.stop();
    await running;
    await cluster.stop();
  });

  it('retries a reconcile that hit a 409 Conflict until it succeeds', async () => {
    await client.create(ConfigMaps, {
      metadata: { name: 'c1', namespace: 'default', labels: { role: 'counter' } },
      data: {},
    });
    await waitFor(
      async () => (await client.get<ConfigMap>(ConfigMaps, 'c1', 'default')).data?.done === 'true',
      'the retried write',
    );
    assert.ok(conflicts.includes('c1'), 'the first attempt conflicted');
    const cm = await client.get<ConfigMap>(ConfigMaps, 'c1', 'default');
    assert.deepEqual(cm.data, { raced: 'yes', done: 'true' });
    const text = await registry.metrics();
    assert.match(text, /controller_runtime_reconcile_errors_total\{controller="counter"\} [1-9]/);
    assert.match(text, /workqueue_retries_total\{name="counter"\} [1-9]/);
    // The client's request counter, mirrored under controller-runtime's name with the API host.
    const host = new URL(cluster.cp.url).host;
    assert.match(text, new RegExp(`rest_client_requests_total\\{code="409",method="PUT",host="${host}"\\} [1-9]`));
  });

  it('adds its finalizer, cleans up on delete, and leaves other finalizers alone', async () => {
    await client.create(ConfigMaps, { metadata: { name: 'f1', namespace: 'default', labels: { role: 'finalized' } } });
    await waitFor(async () => hasFinalizer(await client.get(ConfigMaps, 'f1', 'default'), FINALIZER), 'our finalizer');
    // Another controller's finalizer, added after ours.
    const cur = await client.get<ConfigMap>(ConfigMaps, 'f1', 'default');
    await client.patch(
      ConfigMaps,
      'f1',
      'default',
      [{ op: 'add', path: '/metadata/finalizers/-', value: 'other.io/keep' }],
      'json',
    );
    assert.ok(cur.metadata.finalizers?.includes(FINALIZER));
    await client.delete(ConfigMaps, 'f1', 'default');
    await waitFor(async () => {
      const cm = await client.get<ConfigMap>(ConfigMaps, 'f1', 'default');
      return !hasFinalizer(cm, FINALIZER);
    }, 'our finalizer removed');
    assert.deepEqual(cleanedUp, ['f1']);
    const left = await client.get<ConfigMap>(ConfigMaps, 'f1', 'default');
    assert.deepEqual(left.metadata.finalizers, ['other.io/keep']);
    assert.ok(left.metadata.deletionTimestamp);
    await removeFinalizer(client, ConfigMaps, left, 'other.io/keep');
    await waitFor(async () => {
      try {
        await client.get(ConfigMaps, 'f1', 'default');
        return false;
      } catch (e) {
        return isNotFound(e);
      }
    }, 'the ConfigMap to be gone');
  });

  it('creates an owned object and recreates it when deleted (owns → owner key)', async () => {
    await client.create(ConfigMaps, {
      metadata: { name: 'o1', namespace: 'default', labels: { role: 'owner' } },
      data: { value: 'hello' },
    });
    const secret = async (): Promise<KubeObject & { data?: Record<string, string> }> =>
      client.get(Secrets, 'o1-secret', 'default');
    await waitFor(async () => !!(await secret().catch(() => undefined)), 'the owned Secret');
    const first = await secret();
    assert.equal(first.metadata.ownerReferences?.[0]?.name, 'o1');
    assert.equal(Buffer.from(first.data?.value ?? '', 'base64').toString(), 'hello');
    await client.delete(Secrets, 'o1-secret', 'default');
    await waitFor(async () => {
      const s = await secret().catch(() => undefined);
      return !!s && s.metadata.uid !== first.metadata.uid;
    }, 'the Secret recreated through the owner mapping');
  });
});
