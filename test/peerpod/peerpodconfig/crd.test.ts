// The PeerPodConfig CRD: defaults, limit as an integer or a string of digits, exactly one of limit
// and limitPerNode — all enforced by the API server (422 naming the field).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../../../src/runtime/index.ts';
import { PeerPodConfigs, peerPodConfigCrd } from '../../../src/peerpod/api/index.ts';
import type { PeerPodConfig } from '../../../src/peerpod/api/index.ts';
import { NS, createConfig, startEnv } from './helpers.ts';
import type { Env } from './helpers.ts';

async function rejected(p: Promise<unknown>, field: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.code, 422);
    assert.match(err.message, field);
    return true;
  });
}

describe('PeerPodConfig CRD', () => {
  let env: Env;
  before(async () => (env = await startEnv(0)));
  after(() => env.stop());

  it('has printer columns and the status subresource', () => {
    const v = (peerPodConfigCrd().spec as { versions: Array<Record<string, unknown>> }).versions[0];
    assert.deepEqual(v.subresources, { status: {} });
    assert.deepEqual(
      (v.additionalPrinterColumns as Array<{ name: string }>).map((c) => c.name),
      ['Limit', 'Per-Node', 'Nodes', 'VMs', 'Ready', 'Age'],
    );
  });

  it('defaults the secret, config map and node selector', async () => {
    const c = await createConfig(env, 'defaults', { limit: '10' });
    assert.equal(c.spec.cloudSecretName, 'peer-pods-secret');
    assert.equal(c.spec.configMapName, 'peer-pods-cm');
    assert.deepEqual(c.spec.nodeSelector, { 'node.kubernetes.io/worker': '' });
    await env.client.delete(PeerPodConfigs, 'defaults', NS);
  });

  it('accepts limit as an integer or as a string of digits (upstream), and limitPerNode', async () => {
    for (const [name, spec] of [
      ['int', { limit: 5 }],
      ['str', { limit: '5' }],
      ['zero', { limit: 0 }],
      ['pernode', { limitPerNode: 3 }],
    ] as const) {
      const c = await createConfig(env, name, spec);
      assert.deepEqual(
        { limit: c.spec.limit, limitPerNode: c.spec.limitPerNode },
        { limit: (spec as { limit?: unknown }).limit, limitPerNode: (spec as { limitPerNode?: unknown }).limitPerNode },
      );
      await env.client.delete(PeerPodConfigs, name, NS);
    }
  });

  it('rejects a limit that is not a non-negative integer with 422 naming spec.limit', async () => {
    for (const limit of ['abc', '-1', '1.5', '', -1, 1_000_000]) {
      await rejected(createConfig(env, 'bad', { limit }), /spec\.limit/);
    }
    await rejected(createConfig(env, 'bad', { limitPerNode: -2 }), /spec\.limitPerNode/);
    await rejected(
      createConfig(env, 'bad', { limitPerNode: 'x' } as unknown as PeerPodConfig['spec']),
      /spec\.limitPerNode/,
    );
  });

  it('requires exactly one of limit and limitPerNode (oneOf)', async () => {
    await rejected(createConfig(env, 'both', { limit: 2, limitPerNode: 2 }), /spec.*oneOf/);
    await rejected(createConfig(env, 'none', {}), /spec.*oneOf/);
  });
});
