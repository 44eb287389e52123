// Small pieces of the PeerPod controller: the delete semaphore, per-provider settings, options.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Semaphore } from '../../../src/peerpod/controllers/semaphore.ts';
import { scopeToProvider } from '../../../src/peerpod/providers/credentials.ts';
import { resolveOptions } from '../../../src/peerpod/controllers/peerpod/options.ts';

describe('Semaphore', () => {
  it('never lets more than `limit` run, and serves waiters in order', async () => {
    const s = new Semaphore(3);
    let inFlight = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        s.run(async () => {
          inFlight++;
          assert.ok(inFlight <= 3);
          await new Promise((r) => setTimeout(r, 2));
          order.push(i);
          inFlight--;
        }),
      ),
    );
    assert.equal(s.maxObserved, 3);
    assert.equal(s.held, 0);
    assert.deepEqual(order.slice(0, 3).sort(), [0, 1, 2]);
  });

  it('rejects waiters whose signal aborts, with one listener per signal', async () => {
    const s = new Semaphore(1);
    const ac = new AbortController();
    let release!: () => void;
    const holder = s.run(() => new Promise<void>((r) => (release = r)));
    const waiters = Array.from({ length: 50 }, () => s.run(async () => 'ran', ac.signal));
    assert.equal(s.waiting, 50);
    ac.abort(new Error('stop'));
    for (const w of waiters) await assert.rejects(w, /stop/);
    assert.equal(s.waiting, 0);
    release();
    await holder;
    assert.equal(await s.run(async () => 'free'), 'free');
  });
});

describe('per-provider settings', () => {
  it('plain keys for all, `<provider>.KEY` overrides for that provider only', () => {
    const flat = {
      LIBVIRT_URI: 'qemu:///system',
      'libvirt.LIBVIRT_URI': 'qemu+ssh://h/system',
      'aws.AWS_REGION': 'eu-west-1',
    };
    assert.deepEqual(scopeToProvider(flat, 'libvirt'), { LIBVIRT_URI: 'qemu+ssh://h/system' });
    assert.deepEqual(scopeToProvider(flat, 'aws'), { LIBVIRT_URI: 'qemu:///system', AWS_REGION: 'eu-west-1' });
  });
});

describe('options', () => {
  it('defaults and per-provider delete limits', () => {
    const o = resolveOptions({ namespace: 'x', maxConcurrentDeletes: { aws: 5, '*': 7 } });
    assert.equal(o.deleteLimit('aws'), 5);
    assert.equal(o.deleteLimit('gcp'), 7);
    assert.equal(o.orphanGraceMs, 600_000);
    assert.equal(resolveOptions({ namespace: 'x' }).deleteLimit('any'), 20);
    assert.throws(() => resolveOptions({ namespace: '' }), /namespace/);
  });
});
