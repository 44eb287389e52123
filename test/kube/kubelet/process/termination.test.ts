// Graceful deletion of a process pod as the kubelet does it (pkg/kubelet/kuberuntime/
// kuberuntime_container.go killContainer): SIGTERM to the container, SIGKILL once the grace period
// is over (never before 2 s), the terminated statuses written, then the pod deleted with grace 0.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestCluster } from '../../../helpers/control-plane.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import { internalContext } from '../../../../src/kube/registry/context.ts';
import {
  alive,
  CLI,
  containerStatus,
  createProcessPod,
  defs,
  marker,
  pidsWithMarker,
  podEvents,
  podGone,
  startProcessCluster,
  stateOf,
  until,
} from './helpers.ts';

const ctx = internalContext('test');

describe('process runtime: graceful deletion', () => {
  let cp: TestCluster;
  const stateDir = mkdtempSync(join(tmpdir(), 'peerpods-kubelet-test-'));
  before(async () => {
    cp = await startProcessCluster({
      processRuntime: { images: ['ghcr.io/peerpods/peerpods'], entrypoint: [process.execPath, CLI], stateDir },
    });
  });
  after(async () => {
    await cp.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });

  /** The pod's last status before it left storage. */
  function lastStatus(name: string): { status?: JsonObject } {
    const seen: { status?: JsonObject } = {};
    cp.internals.storage.watch('/core/pods/default/', cp.internals.storage.currentRevision(), (c) => {
      if (c.key === `/core/pods/default/${name}` && c.type !== 'DELETED')
        seen.status = (JSON.parse(c.json) as JsonObject).status as JsonObject;
    });
    return seen;
  }

  test('SIGTERM reaches the process, which logs and exits within the grace period', async () => {
    const m = marker();
    await createProcessPod(
      cp,
      'polite',
      {
        command: [
          'node',
          '-e',
          "process.on('SIGTERM', () => { console.log('got SIGTERM'); process.exit(0); }); console.log('up'); setInterval(() => {}, 1000);",
        ],
        env: [{ name: 'MARKER', value: m }],
      },
      { terminationGracePeriodSeconds: 30 },
    );
    await until(() => stateOf(containerStatus(cp, 'polite')).running && pidsWithMarker(m).length > 0, {
      what: 'polite running',
    });
    const pod = cp.internals.store.get(defs(cp).pods, 'default', 'polite');
    const podDir = join(stateDir, 'pods', String((pod.metadata as JsonObject).uid));
    assert.ok(existsSync(podDir), 'the pod has its directory');
    const stream = await cp.internals.extensions.podStreams!.logs(
      pod,
      { container: 'c', previous: false, follow: true, timestamps: false },
      new AbortController().signal,
    );
    let text = '';
    stream.on('data', (d) => (text += String(d)));
    const ended = new Promise((r) => stream.once('end', r));
    await until(() => text.includes('up'), { what: 'first line' });
    const seen = lastStatus('polite');
    const t0 = Date.now();
    await cp.internals.store.delete(defs(cp).pods, 'default', 'polite', {}, ctx);
    await until(() => podGone(cp, 'polite'), { what: 'polite deleted', timeoutMs: 20_000 });
    assert.ok(Date.now() - t0 < 20_000, 'well within the 30 s grace');
    // follow ends when the instance exits; the handler's line is there.
    await ended;
    assert.equal(text, 'up\ngot SIGTERM\n');
    const terminated = stateOf(((seen.status?.containerStatuses ?? []) as JsonObject[])[0]).terminated!;
    assert.equal(terminated.exitCode, 0);
    assert.equal(terminated.reason, 'Completed');
    assert.equal(seen.status?.phase, 'Succeeded');
    assert.ok(podEvents(cp, 'polite').some((e) => e.reason === 'Killing' && e.message === 'Stopping container c'));
    assert.deepEqual(pidsWithMarker(m), []);
    await until(() => !existsSync(podDir), { what: 'pod directory removed' });
  });

  test('a process that ignores SIGTERM is SIGKILLed once the grace period is over', async () => {
    const m = marker();
    await createProcessPod(
      cp,
      'stubborn',
      { command: ['sh', '-c', "trap '' TERM; while :; do sleep 0.2; done"], env: [{ name: 'MARKER', value: m }] },
      { terminationGracePeriodSeconds: 3 },
    );
    await until(() => stateOf(containerStatus(cp, 'stubborn')).running && pidsWithMarker(m).length > 0, {
      what: 'stubborn running',
    });
    const pids = pidsWithMarker(m);
    const seen = lastStatus('stubborn');
    const t0 = Date.now();
    await cp.internals.store.delete(defs(cp).pods, 'default', 'stubborn', {}, ctx);
    await until(() => podGone(cp, 'stubborn'), { what: 'stubborn deleted', timeoutMs: 20_000 });
    const took = Date.now() - t0;
    assert.ok(took >= 2900, `waited out the 3 s grace (${took} ms)`);
    assert.ok(took < 10_000, `then SIGKILL (${took} ms)`);
    const terminated = stateOf(((seen.status?.containerStatuses ?? []) as JsonObject[])[0]).terminated!;
    assert.equal(terminated.exitCode, 137);
    assert.equal(terminated.reason, 'Error');
    assert.equal(seen.status?.phase, 'Failed');
    assert.deepEqual(pids.filter(alive), []);
  });

  test('a later delete with a shorter grace period brings SIGKILL forward, not before 2 s', async () => {
    await createProcessPod(
      cp,
      'hurried',
      { command: ['sh', '-c', "trap '' TERM; while :; do sleep 0.2; done"] },
      { terminationGracePeriodSeconds: 60 },
    );
    await until(() => stateOf(containerStatus(cp, 'hurried')).running, { what: 'hurried running' });
    const t0 = Date.now();
    await cp.internals.store.delete(defs(cp).pods, 'default', 'hurried', {}, ctx);
    await cp.internals.store.delete(defs(cp).pods, 'default', 'hurried', { gracePeriodSeconds: 1 }, ctx);
    await until(() => podGone(cp, 'hurried'), { what: 'hurried deleted', timeoutMs: 20_000 });
    const took = Date.now() - t0;
    assert.ok(took >= 1900 && took < 10_000, `${took} ms`);
  });
});
