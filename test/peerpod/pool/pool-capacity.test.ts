// Pool VMs count against the node's `kata.peerpods.io/vm`: one node advertising 3, a pool of 2
// spares of 1 vCPU / 512Mi. Every change of the cloud is checked: the node never runs more than 3
// VMs, whether pods take spares (a claim changes nothing in the sum) or go cold (a spare is retired
// first). Also: a pod takes only a spare its size fits, and the CRD refuses a malformed pool.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Pods } from '../../../src/runtime/index.ts';
import { POOL_CLAIMED_FROM_ANNOTATION, PeerPodConfigs } from '../../../src/peerpod/api/index.ts';
import type { PeerPodConfig } from '../../../src/peerpod/api/index.ts';
import { SimulatedProvider } from '../../../src/peerpod/providers/index.ts';
import { kubectl } from '../../helpers/kubectl.ts';
import {
  SETTINGS_NS,
  createPod,
  eventsFor,
  eventually,
  getPod,
  isReady,
  peerPodsOf,
  startAdaptors,
  startEnv,
} from '../adaptor/helpers.ts';
import type { Adaptors, Env } from '../adaptor/helpers.ts';
import { advertise, createPoolConfig, podAnnotations, poolRecords, readySpares } from './helpers.ts';

const CAPACITY = 3;

describe('warm pool within the node capacity (simulated cloud, one node)', { timeout: 180_000 }, () => {
  let env: Env;
  let cloud: SimulatedProvider;
  let adaptors: Adaptors;
  let most = 0;
  const violations: string[] = [];

  before(async () => {
    env = await startEnv();
    // A little latency, so creates and deletes overlap as they would on a real cloud.
    cloud = new SimulatedProvider({ latencyMs: 50 });
    cloud.watch((c) => {
      most = Math.max(most, c.instances.length);
      if (c.instances.length > CAPACITY) violations.push(`${c.instances.length} VMs after ${c.type} ${c.instance.id}`);
    });
    await advertise(env, 'node-1', CAPACITY);
    adaptors = await startAdaptors(env, { provider: cloud }, { nodes: ['node-1'] });
  });

  after(async () => {
    await adaptors?.stop();
    await env?.stop();
  });

  it('refuses a pool with both or neither of size and sizePerNode, naming the fields', async () => {
    // The rules are the CRD's x-kubernetes-validations, evaluated as kube-apiserver does
    // (staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go).
    const both = await kubectl(env.cluster.kubeconfigPath, ['apply', '-f', '-'], {
      version: '1.33',
      input: JSON.stringify({
        apiVersion: 'confidentialcontainers.org/v1alpha1',
        kind: 'PeerPodConfig',
        metadata: { name: 'bad', namespace: SETTINGS_NS },
        spec: { limitPerNode: 1, pool: { size: 1, sizePerNode: 1 } },
      }),
    });
    assert.notEqual(both.code, 0);
    assert.match(both.stderr, /spec\.pool\.sizePerNode: Forbidden: size and sizePerNode are exclusive/);
    const neither = await kubectl(env.cluster.kubeconfigPath, ['apply', '-f', '-'], {
      version: '1.33',
      input: JSON.stringify({
        apiVersion: 'confidentialcontainers.org/v1alpha1',
        kind: 'PeerPodConfig',
        metadata: { name: 'bad', namespace: SETTINGS_NS },
        spec: { limitPerNode: 1, pool: { maxAge: '30m' } },
      }),
    });
    assert.notEqual(neither.code, 0);
    assert.match(neither.stderr, /spec\.pool\.size: Required value/);
  });

  it('keeps pods plus spares at or below the capacity through claims and cold starts', async () => {
    await createPoolConfig(env, { sizePerNode: 2, vmSizes: [{ vcpus: 1, memory: '512Mi' }] });
    await eventually(async () => (await readySpares(env)).length === 2, { what: '2 spares' });

    // Too big for a spare: cold. 1 pod + 2 spares = 3: nothing to retire.
    const big1 = await createPod(env, { name: 'big-1', nodeName: 'node-1', annotations: podAnnotations(2, 1024) });
    await eventually(async () => isReady(await getPod(env, big1)), { what: 'big-1 Running' });
    assert.equal((await peerPodsOf(env, big1))[0].metadata.annotations?.[POOL_CLAIMED_FROM_ANNOTATION], undefined);
    // The pod says why it went cold although the node has spares.
    const noFit = await eventually(
      async () => (await eventsFor(env, big1)).find((e) => e.reason === 'NoFittingSpare'),
      { what: 'a NoFittingSpare event on big-1' },
    );
    assert.equal(noFit.type, 'Normal');
    assert.match(
      noFit.message ?? '',
      /none of the 2 warm simulated spare\(s\) on node-1 fits: the pod asks for 2\/1024Mi, spares are 1\/512Mi/,
    );

    // Cold again: 2 pods + 2 spares would be 4, so a spare is retired before the VM is made.
    const big2 = await createPod(env, { name: 'big-2', nodeName: 'node-1', annotations: podAnnotations(2, 1024) });
    await eventually(async () => isReady(await getPod(env, big2)), { what: 'big-2 Running' });
    assert.equal((await poolRecords(env)).length, 1, 'one spare left');

    // Fits the spare (1 vCPU, 256 MiB ≤ 512 MiB): takes it; 3 pods, no spare.
    const small = await createPod(env, { name: 'small', nodeName: 'node-1', annotations: podAnnotations(1, 256) });
    await eventually(async () => isReady(await getPod(env, small)), { what: 'small Running' });
    assert.ok((await peerPodsOf(env, small))[0].metadata.annotations?.[POOL_CLAIMED_FROM_ANNOTATION]);
    await eventually(async () => (await poolRecords(env)).length === 0, { what: 'the claimed record gone' });
    await eventually(
      async () => {
        const cfg = await env.client.get<PeerPodConfig>(PeerPodConfigs, 'pool-config', SETTINGS_NS);
        const s = cfg.status?.pool?.nodes?.['node-1'];
        return s?.desired === 0 && s.ready === 0;
      },
      { what: 'status: desired 0 (the pods use the capacity), ready 0' },
    );

    // A pod leaves: its slot goes back to the pool.
    await env.client.delete(Pods, 'big-1', 'default');
    await eventually(async () => (await readySpares(env)).length === 1, { what: 'one spare refilled' });
    assert.equal(cloud.snapshot().length, CAPACITY);
    assert.deepEqual(violations, [], 'never more VMs than the node advertises');
    assert.equal(most, CAPACITY);
  });
});
