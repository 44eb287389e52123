// The warm pool with real VMs: one node's adaptor (its generated RBAC, the provider from
// peer-pods-cm) keeps a running qemu-system-x86_64 spare; a peer pod takes that very process, the
// pool boots a new one, and deleting the pod and then the config leaves no QEMU process behind.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigMaps, Pods } from '../../../src/runtime/index.ts';
import { POOL_CLAIMED_FROM_ANNOTATION, PeerPodConfigs } from '../../../src/peerpod/api/index.ts';
import { installGeneratedRbac } from '../../helpers/generated-rbac.ts';
import {
  SETTINGS_NS,
  argAfter,
  cleanupQemu,
  createPod,
  eventually,
  getPod,
  isReady,
  peerPodsOf,
  qemuUnder,
  startAdaptors,
  startEnv,
  tempDir,
} from '../adaptor/helpers.ts';
import type { Adaptors, Env } from '../adaptor/helpers.ts';
import { advertise, createPoolConfig, podAnnotations, poolRecords, readySpares } from './helpers.ts';

describe('warm pool (qemu, real VMs)', { timeout: 180_000 }, () => {
  let env: Env;
  let dir: string;
  let adaptors: Adaptors | undefined;

  /** The QEMU process of a VM, by the UUID qemu gets on its command line. */
  const processOf = async (id: string) => (await qemuUnder(dir)).find((p) => argAfter(p.args, '-uuid') === id);

  before(async () => {
    env = await startEnv();
    dir = await tempDir('pp-pool-qemu');
    await env.client.create(ConfigMaps, {
      metadata: { name: 'peer-pods-cm', namespace: SETTINGS_NS },
      data: { CLOUD_PROVIDER: 'qemu', QEMU_STATE_DIR: dir },
    });
    await advertise(env, 'node-1', 3);
    const user = await installGeneratedRbac(env.client, 'peerpod-adaptor');
    adaptors = await startAdaptors(env, {}, { asUser: user, nodes: ['node-1'] });
  });

  after(async () => {
    try {
      await adaptors?.stop();
      await env?.stop();
    } finally {
      await cleanupQemu(dir);
    }
  });

  it('hands a running QEMU spare to a pod, boots a new spare, and cleans up every process', async () => {
    await createPoolConfig(env, { sizePerNode: 1, vmSizes: [{ vcpus: 1, memory: '128Mi' }] });
    const [spare] = await eventually(
      async () => {
        const s = await readySpares(env);
        return s.length === 1 && s;
      },
      { timeoutMs: 60_000, what: 'one ready qemu spare' },
    );
    const spareProcess = await processOf(spare.spec?.instanceID as string);
    assert.ok(spareProcess, 'the spare is a running QEMU process');
    assert.equal(argAfter(spareProcess.args, '-m'), '128');

    const pod = await createPod(env, {
      name: 'warm-qemu',
      nodeName: 'node-1',
      // The size the webhook writes for 1 CPU and 128Mi: it fits the spare.
      annotations: podAnnotations(1, 128),
    });
    await eventually(async () => isReady(await getPod(env, pod)), { timeoutMs: 30_000, what: 'warm-qemu Running' });
    const [pp] = await peerPodsOf(env, pod);
    assert.equal(pp.spec?.instanceID, spare.spec?.instanceID, 'the pod runs in the spare VM');
    assert.equal(pp.metadata.annotations?.[POOL_CLAIMED_FROM_ANNOTATION], spare.metadata.name);
    assert.equal((await processOf(spare.spec?.instanceID as string))?.pid, spareProcess.pid, 'the same process');

    const [next] = await eventually(
      async () => {
        const s = await readySpares(env);
        return s.length === 1 && s[0].spec?.instanceID !== spare.spec?.instanceID && s;
      },
      { timeoutMs: 60_000, what: 'a new spare' },
    );
    assert.ok(await processOf(next.spec?.instanceID as string), 'the new spare is a running QEMU process');
    assert.equal((await qemuUnder(dir)).length, 2, 'the pod VM and one spare');

    await env.client.delete(Pods, 'warm-qemu', 'default');
    await eventually(async () => !(await processOf(spare.spec?.instanceID as string)), {
      timeoutMs: 30_000,
      what: "the pod's VM process to exit",
    });
    await env.client.delete(PeerPodConfigs, 'pool-config', SETTINGS_NS);
    await eventually(async () => (await poolRecords(env)).length === 0 && (await qemuUnder(dir)).length === 0, {
      timeoutMs: 30_000,
      what: 'no pool record and no QEMU process left',
    });
  });
});
