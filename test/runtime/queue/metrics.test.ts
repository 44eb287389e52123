import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { WorkQueue } from '../../../src/runtime/queue/index.ts';
import { FakeClock } from '../../../src/runtime/util/clock.ts';

async function value(reg: Registry, metric: string, name = 'q'): Promise<number | undefined> {
  const all = await reg.getMetricsAsJSON();
  const m = all.find((x) => x.name === metric);
  return m?.values.find((v) => v.labels.name === name && !('le' in v.labels))?.value;
}

describe('WorkQueue metrics', () => {
  it('reports controller-runtime workqueue_* metrics labelled by name', async () => {
    const clock = new FakeClock();
    const registry = new Registry();
    const q = new WorkQueue({ name: 'q', clock, metricsRegistry: registry });
    q.add('a');
    q.add('b');
    q.add('a');
    assert.equal(await value(registry, 'workqueue_adds_total'), 2);
    assert.equal(await value(registry, 'workqueue_depth'), 2);
    await clock.advance(250);
    const k = q.tryGet() as string;
    assert.equal(await value(registry, 'workqueue_depth'), 1);
    await clock.advance(1500);
    assert.equal(await value(registry, 'workqueue_longest_running_processor_seconds'), 1.5);
    assert.equal(await value(registry, 'workqueue_unfinished_work_seconds'), 1.5);
    q.done(k);
    q.addRateLimited('c');
    assert.equal(await value(registry, 'workqueue_retries_total'), 1);
    const text = await registry.metrics();
    assert.match(text, /workqueue_queue_duration_seconds_count\{name="q"\} 1/);
    assert.match(text, /workqueue_work_duration_seconds_sum\{name="q"\} 1.5/);
    // A second queue in the same registry must not throw on duplicate registration.
    new WorkQueue({ name: 'other', clock, metricsRegistry: registry }).add('x');
    assert.equal(await value(registry, 'workqueue_depth', 'other'), 1);
  });
});
