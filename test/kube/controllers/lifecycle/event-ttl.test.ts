// Events expire a TTL after their last write (kube-apiserver's --event-ttl).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventTtlController } from '../../../../src/kube/controllers/lifecycle/event-ttl.ts';
import { MemoryStorage } from '../../../../src/kube/storage/memory.ts';
import type { KubeObject } from '../../../../src/apimachinery/meta/index.ts';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { call } from '../../server/http.ts';

const event = (name: string, extra: Record<string, unknown> = {}): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: 'default' }, reason: 'R', ...extra }) as KubeObject;

describe('EventTtlController', () => {
  test('a write renews the TTL; an event left alone for the TTL goes', () => {
    let clock = 1_000_000;
    const storage = new MemoryStorage({});
    const c = new EventTtlController(storage, { ttlSeconds: 60, intervalMs: 3_600_000, now: () => clock });
    c.start();
    try {
      storage.create('/core/events/default/a', event('a'));
      storage.create('/core/events/default/b', event('b'));
      storage.create('/core/configmaps/default/c', event('c'));
      clock += 59_000;
      assert.equal(c.sweep(), 0);
      const b = storage.get('/core/events/default/b');
      assert.ok(b);
      storage.update(b.key, event('b', { count: 2 }), b.revision);
      clock += 2_000;
      assert.equal(c.sweep(), 1);
      assert.equal(storage.get('/core/events/default/a'), undefined);
      assert.ok(storage.get('/core/events/default/b'));
      assert.ok(storage.get('/core/configmaps/default/c'), 'only events expire');
      clock += 60_000;
      assert.equal(c.sweep(), 1);
      assert.equal(storage.get('/core/events/default/b'), undefined);
    } finally {
      c.stop();
    }
  });

  test('events already stored keep the age their timestamps give them', () => {
    const clock = Date.parse('2024-06-01T12:00:00Z');
    const storage = new MemoryStorage({});
    storage.create('/core/events/default/old', event('old', { lastTimestamp: '2024-06-01T10:00:00Z' }));
    storage.create('/core/events/default/new', event('new', { lastTimestamp: '2024-06-01T11:59:00Z' }));
    const c = new EventTtlController(storage, { ttlSeconds: 3600, intervalMs: 3_600_000, now: () => clock });
    c.start();
    try {
      assert.equal(c.sweep(), 1);
      assert.equal(storage.get('/core/events/default/old'), undefined);
      assert.ok(storage.get('/core/events/default/new'));
    } finally {
      c.stop();
    }
  });
});

describe('event TTL in the control plane', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster({ scheduler: false, eventTtlSeconds: 1 });
  });
  after(() => cp.stop());

  test('an Event is deleted once its TTL has passed, and watchers see DELETED', async () => {
    const path = '/api/v1/namespaces/default/events';
    const created = await call(cp, 'POST', path, {
      body: {
        metadata: { name: 'short-lived' },
        involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' },
        reason: 'X',
        message: 'm',
      },
    });
    assert.equal(created.status, 201, created.body);
    const rv = (JSON.parse(created.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    await eventually(async () => (await call(cp, 'GET', `${path}/short-lived`)).status === 404, {
      what: 'event expiry',
      timeoutMs: 5_000,
    });
    const events = await call(cp, 'GET', `${path}?watch=true&resourceVersion=${rv}&timeoutSeconds=1`);
    assert.match(events.body, /"type":"DELETED"/);
  });
});
