// The create-retry guard with real processes: the qemu provider is configured (ConfigMap
// peer-pods-cm, as a cluster configures it) with a "QEMU" that starts and never answers QMP — the
// local form of CAA#1737's corrupt pod-VM image: each create launches a process and records it,
// then fails. The guard must give up after maxAttempts with the provider's error on the pod, leave
// no process and no record behind, and run the next pod once the settings are fixed.
import assert from 'node:assert/strict';
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { ConfigMaps, Pods } from '../../../src/runtime/index.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import { POD_UID_TAG } from '../../../src/peerpod/adaptor/index.ts';
import { createProvider } from '../../../src/peerpod/providers/index.ts';
import type { CloudProvider } from '../../../src/peerpod/providers/index.ts';
import { installGeneratedRbac } from '../../helpers/generated-rbac.ts';
import {
  SETTINGS_NS,
  cleanupQemu,
  createPod,
  eventsFor,
  eventually,
  getPod,
  isReady,
  qemuUnder,
  startAdaptors,
  startEnv,
  tempDir,
} from './helpers.ts';
import type { Adaptors, Env } from './helpers.ts';

const CONDITION = 'peerpods.io/VMCreateFailed';
const RETRY = { maxAttempts: 3, initialBackoffMs: 300, maxBackoffMs: 2_000, timeoutMs: 20_000 };

describe('create-retry guard (qemu)', { timeout: 180_000 }, () => {
  let env: Env;
  let dir: string;
  let adaptors: Adaptors | undefined;
  let qemu: CloudProvider;

  before(async () => {
    env = await startEnv();
    dir = await tempDir('pp-guard-qemu');
    // Passes the provider's `--version` check, then never opens its QMP socket. Python rather than
    // sh: no child process outlives the SIGKILL the provider sends it.
    const hang = path.join(dir, 'qemu-that-never-boots');
    await writeFile(
      hang,
      [
        '#!/usr/bin/python3',
        'import sys, time',
        "if '--version' in sys.argv: print('QEMU emulator version 8.2.2'); sys.exit(0)",
        'time.sleep(120)',
        '',
      ].join('\n'),
    );
    await chmod(hang, 0o755);
    qemu = await createProvider('qemu', { QEMU_STATE_DIR: dir }, { logger: pino({ level: 'silent' }) });
    await env.client.create(ConfigMaps, {
      metadata: { name: 'peer-pods-cm', namespace: SETTINGS_NS },
      data: { CLOUD_PROVIDER: 'qemu', QEMU_STATE_DIR: dir, QEMU_BINARY: hang },
    });
    const user = await installGeneratedRbac(env.client, 'peerpod-adaptor');
    adaptors = await startAdaptors(
      env,
      { createRetry: RETRY, providerOptions: { qemu: { startTimeoutMs: 1_000, stopTimeoutMs: 500 } } },
      { asUser: user },
    );
  });

  after(async () => {
    try {
      await adaptors?.stop();
      await env?.stop();
    } finally {
      await cleanupQemu(dir);
    }
  });

  it('gives up on a VM that never boots, leaving nothing behind; a fixed config runs the next pod', async () => {
    const pod = await createPod(env, { name: 'never-boots' });
    let most = 0;
    await eventually(
      async () => {
        // Sampled while the attempts run: the pod never has two VM processes.
        most = Math.max(most, (await qemuUnder(dir)).length);
        const cur = await getPod(env, pod);
        return (cur?.status?.conditions ?? []).some((c) => c.type === CONDITION && c.status === 'True');
      },
      { timeoutMs: 60_000, intervalMs: 50, what: 'the pod to be marked' },
    );
    assert.equal(most, 1, `each attempt launched a VM process, never two at a time (saw ${most})`);
    const failed = (await eventsFor(env, pod)).filter((e) => e.reason === 'VMCreateFailed');
    assert.ok(
      failed.some((e) => e.message?.includes(`attempt ${RETRY.maxAttempts} of ${RETRY.maxAttempts}`)),
      JSON.stringify(failed),
    );
    const exhausted = (await eventsFor(env, pod)).find((e) => e.reason === 'VMCreateRetriesExhausted');
    assert.equal(exhausted?.type, 'Warning');
    assert.match(exhausted?.message ?? '', /qemu: starting VM podvm-never-boots-.*QMP/);
    await eventually(async () => (await qemuUnder(dir)).length === 0, { what: 'no VM process left' });
    assert.deepEqual(await qemu.listInstances({ [POD_UID_TAG]: pod.metadata.uid as string }), []);

    // The fix: the default QEMU binary. Settings changes rebuild the provider; a new pod runs.
    await env.client.patch(ConfigMaps, 'peer-pods-cm', SETTINGS_NS, { data: { QEMU_BINARY: null } }, 'merge');
    const next = await createPod(env, { name: 'boots' });
    await eventually(async () => isReady(await getPod(env, next)), { timeoutMs: 60_000, what: 'the new pod to run' });
    assert.equal((await qemu.listInstances({ [POD_UID_TAG]: next.metadata.uid as string })).length, 1);
    const marked = await getPod(env, pod);
    assert.notEqual(marked?.status?.phase, 'Running', 'the marked pod stays marked');

    for (const p of [pod, next] as KubeObject[]) await env.client.delete(Pods, p.metadata.name as string, 'default');
    await eventually(async () => !(await getPod(env, pod)) && !(await getPod(env, next)), {
      timeoutMs: 30_000,
      what: 'both pods to be gone',
    });
    await eventually(async () => (await qemuUnder(dir)).length === 0, { what: 'the VM to exit' });
    assert.deepEqual(await qemu.listInstances({}), []);
  });
});
