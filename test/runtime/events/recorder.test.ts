import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/runtime/client/errors.ts';
import type { KubeObject, ResourceType } from '../../../src/runtime/client/types.ts';
import { COMBINED_PREFIX, EventRecorder } from '../../../src/runtime/events/index.ts';
import type { CoreEvent, EventSink } from '../../../src/runtime/events/index.ts';
import { FakeClock } from '../../../src/runtime/util/clock.ts';

class FakeSink implements EventSink {
  readonly events = new Map<string, CoreEvent>();
  readonly calls: string[] = [];
  failNext: Error[] = [];
  async create<T extends KubeObject>(_t: ResourceType, obj: T): Promise<T> {
    this.calls.push('create');
    const f = this.failNext.shift();
    if (f) throw f;
    this.events.set(obj.metadata.name as string, structuredClone(obj) as unknown as CoreEvent);
    return obj;
  }
  async patch<T extends KubeObject>(
    _t: ResourceType,
    name: string,
    _ns: string | undefined,
    patch: unknown,
  ): Promise<T> {
    this.calls.push('patch');
    const f = this.failNext.shift();
    if (f) throw f;
    const e = this.events.get(name);
    if (!e) throw new ApiError(404, 'NotFound', `events "${name}" not found`);
    Object.assign(e, patch);
    return e as unknown as T;
  }
}

const pod: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'apps', uid: 'u-1', resourceVersion: '7' },
};

function setup(opts: Partial<ConstructorParameters<typeof EventRecorder>[1]> = {}) {
  const sink = new FakeSink();
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const rec = new EventRecorder(sink, { component: 'podset-controller', instance: 'host-1', clock, ...opts });
  return { sink, clock, rec };
}

describe('EventRecorder', () => {
  it('writes a core/v1 Event about the object', async () => {
    const { sink, rec } = setup();
    rec.normal(pod, 'Created', 'created pod web-1', { action: 'Create' });
    await rec.flush();
    assert.equal(sink.events.size, 1);
    const e = [...sink.events.values()][0];
    assert.match(e.metadata.name, /^web\.[0-9a-f]+$/);
    assert.equal(e.metadata.namespace, 'apps');
    assert.deepEqual(e.involvedObject, {
      apiVersion: 'v1',
      kind: 'Pod',
      name: 'web',
      namespace: 'apps',
      uid: 'u-1',
      resourceVersion: '7',
    });
    assert.equal(e.type, 'Normal');
    assert.equal(e.reason, 'Created');
    assert.equal(e.count, 1);
    assert.equal(e.firstTimestamp, '2024-01-01T00:00:00Z');
    assert.deepEqual(e.source, { component: 'podset-controller', host: 'host-1' });
    assert.equal(e.reportingComponent, 'podset-controller');
    assert.equal(e.action, 'Create');
  });

  it('aggregates repeats into one Event by patching count and lastTimestamp', async () => {
    const { sink, clock, rec } = setup();
    rec.warning(pod, 'FailedCreate', 'quota exceeded');
    await rec.flush();
    await clock.advance(5_000);
    rec.warning(pod, 'FailedCreate', 'quota exceeded');
    await clock.advance(5_000);
    rec.warning(pod, 'FailedCreate', 'quota exceeded');
    await rec.flush();
    assert.deepEqual(sink.calls, ['create', 'patch', 'patch']);
    assert.equal(sink.events.size, 1);
    const e = [...sink.events.values()][0];
    assert.equal(e.count, 3);
    assert.equal(e.firstTimestamp, '2024-01-01T00:00:00Z');
    assert.equal(e.lastTimestamp, '2024-01-01T00:00:10Z');
    rec.warning(pod, 'FailedCreate', 'another message');
    rec.normal(pod, 'FailedCreate', 'quota exceeded');
    await rec.flush();
    assert.equal(sink.events.size, 3, 'a different message or type is a different Event');
  });

  it('combines many similar messages (same object and reason) into one', async () => {
    const { sink, rec } = setup();
    for (let i = 0; i < 15; i++) rec.warning(pod, 'BackOff', `attempt ${i} failed`);
    await rec.flush();
    // 9 distinct events, then the 10th..15th are one combined event patched 5 times.
    assert.equal(sink.events.size, 10);
    const combined = [...sink.events.values()].find((e) => e.message.startsWith(COMBINED_PREFIX));
    assert.ok(combined);
    assert.equal(combined.count, 6);
    assert.equal(combined.message, `${COMBINED_PREFIX}attempt 14 failed`);
  });

  it('drops events past the spam filter burst and lets them through again after refill', async () => {
    const { sink, clock, rec } = setup();
    for (let i = 0; i < 30; i++) rec.normal(pod, `R${i % 3}`, 'm');
    await rec.flush();
    assert.equal(sink.calls.length, 25);
    await clock.advance(300_000);
    rec.normal(pod, 'R0', 'm');
    await rec.flush();
    assert.equal(sink.calls.length, 26);
  });

  it('never throws into the caller, and recreates an expired Event', async () => {
    const { sink, clock, rec } = setup({ maxAttempts: 2, retryDelayMs: 10 });
    sink.failNext = [new ApiError(403, 'Forbidden', 'nope')];
    assert.doesNotThrow(() => rec.normal(pod, 'A', 'x'));
    await rec.flush();
    assert.equal(sink.events.size, 0);
    assert.doesNotThrow(() => rec.event({} as KubeObject, 'Normal', 'Weird', 'no metadata'));
    assert.doesNotThrow(() => rec.event(pod, 'Bogus' as 'Normal', 'R', 'm'));
    // Network error then success: retried.
    sink.failNext = [new Error('ECONNRESET')];
    rec.normal(pod, 'B', 'y');
    const flushed = rec.flush();
    await clock.advance(10);
    await flushed;
    assert.equal([...sink.events.values()].filter((e) => e.reason === 'B').length, 1);
    // The stored Event expires; the next repeat's PATCH 404s and a new one is created with the count.
    sink.events.clear();
    rec.normal(pod, 'B', 'y');
    await rec.flush();
    const e = [...sink.events.values()][0];
    assert.equal(e.count, 2);
  });
});
