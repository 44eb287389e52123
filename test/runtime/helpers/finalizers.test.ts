import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigMaps } from '../../../src/runtime/client/resources.ts';
import {
  addFinalizer,
  addFinalizerTo,
  hasFinalizer,
  removeFinalizer,
  removeFinalizerFrom,
} from '../../../src/runtime/helpers/index.ts';
import { FakeApi } from './fake-api.ts';

const F = 'examples.peerpods.io/cleanup';

describe('finalizers', () => {
  it('in-memory add/remove report whether they changed the object', () => {
    const o = { metadata: { name: 'a', finalizers: ['other'] } };
    assert.equal(addFinalizerTo(o, F), true);
    assert.equal(addFinalizerTo(o, F), false);
    assert.deepEqual(o.metadata.finalizers, ['other', F]);
    assert.equal(removeFinalizerFrom(o, F), true);
    assert.equal(removeFinalizerFrom(o, F), false);
    assert.deepEqual(o.metadata.finalizers, ['other']);
  });

  it('adds ours with a resourceVersion-guarded JSON patch, and does not write when present', async () => {
    const api = new FakeApi();
    const cm = api.seed({ metadata: { name: 'a', namespace: 'd' } });
    const out = await addFinalizer(api, ConfigMaps, cm, F);
    assert.deepEqual(out.metadata.finalizers, [F]);
    assert.deepEqual(api.writes[0].body, [
      { op: 'test', path: '/metadata/resourceVersion', value: cm.metadata.resourceVersion },
      { op: 'add', path: '/metadata/finalizers', value: [F] },
    ]);
    await addFinalizer(api, ConfigMaps, out, F);
    assert.equal(api.writes.length, 1, 'no write when already there');
  });

  it('never drops a finalizer another controller added after our read', async () => {
    const api = new FakeApi();
    const stale = api.seed({ metadata: { name: 'a', namespace: 'd', finalizers: [F] } });
    api.touch('d', 'a', (o) => (o.metadata.finalizers = ['first.io/x', F, 'last.io/y']));
    const out = await removeFinalizer(api, ConfigMaps, stale, F);
    assert.deepEqual(out.metadata.finalizers, ['first.io/x', 'last.io/y']);
    assert.deepEqual(api.stored('d', 'a')?.metadata.finalizers, ['first.io/x', 'last.io/y']);
    assert.equal(api.writes.length, 2, 'the stale attempt was refused, the retry on fresh data applied');
    assert.equal(hasFinalizer(out, F), false);
  });

  it('adds on top of finalizers it had not seen', async () => {
    const api = new FakeApi();
    const stale = api.seed({ metadata: { name: 'a', namespace: 'd' } });
    api.touch('d', 'a', (o) => (o.metadata.finalizers = ['other.io/x']));
    const out = await addFinalizer(api, ConfigMaps, stale, F);
    assert.deepEqual(out.metadata.finalizers, ['other.io/x', F]);
  });

  it('treats a vanished object as done, and gives up after the attempts', async () => {
    const api = new FakeApi();
    const cm = api.seed({ metadata: { name: 'a', namespace: 'd', finalizers: [F] } });
    api.objects.clear();
    assert.equal(await removeFinalizer(api, ConfigMaps, cm, F), cm);
    const busy = new FakeApi();
    let obj = busy.seed({ metadata: { name: 'b', namespace: 'd' } });
    busy.beforeWrite = () => busy.touch('d', 'b', () => {});
    await assert.rejects(addFinalizer(busy, ConfigMaps, obj, F, { attempts: 3 }), /rejected/);
    obj = busy.stored('d', 'b') as typeof obj;
    assert.equal(hasFinalizer(obj, F), false);
  });
});
