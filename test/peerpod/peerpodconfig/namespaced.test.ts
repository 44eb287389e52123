// The PeerPodConfig controller as `run peerpodconfig-controller` runs it: honouring only the
// PeerPodConfigs of its own namespace, acting as its ServiceAccount with nothing but the RBAC
// `peerpods manifests` generates for it (config/rbac/*_peerpodconfig-controller.yaml). Every stage
// (capacity, adaptor, webhook) and the cleanup succeed there, so no rule it needs is missing; a
// PeerPodConfig of another namespace is left alone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  DaemonSets,
  Deployments,
  MutatingWebhookConfigurations,
  Namespaces,
  Secrets,
  Services,
  isNotFound,
} from '../../../src/runtime/index.ts';
import type { ResourceType } from '../../../src/runtime/index.ts';
import { PeerPodConfigs } from '../../../src/peerpod/api/index.ts';
import type { PeerPodConfig } from '../../../src/peerpod/api/index.ts';
import { installGeneratedRbac } from '../../helpers/generated-rbac.ts';
import { NS, createConfig, eventually, startController, startEnv, vmCapacity, waitForCapacity } from './helpers.ts';
import type { Env, Running } from './helpers.ts';

const OBJECTS: Array<[ResourceType, string, string | undefined]> = [
  [DaemonSets, 'peerpodconfig-ctrl-caa-daemon', NS],
  [Deployments, 'peer-pods-webhook', NS],
  [Services, 'peer-pods-webhook-svc', NS],
  [Secrets, 'peer-pods-webhook-svc-secret', NS],
  [MutatingWebhookConfigurations, `peer-pods-webhook-${NS}`, undefined],
];

async function readyAt(env: Env, name: string, generation: number): Promise<PeerPodConfig> {
  return eventually(
    async () => {
      const c = await env.client.get<PeerPodConfig>(PeerPodConfigs, name, NS);
      const r = c.status?.conditions?.find((x) => x.type === 'Ready');
      return r?.status === 'True' && r.observedGeneration === generation ? c : undefined;
    },
    { what: `${name} Ready at generation ${generation}`, timeoutMs: 20_000 },
  );
}

describe('PeerPodConfig controller in its namespace, with only its generated RBAC', () => {
  let env: Env;
  let ctrl: Running;
  before(async () => {
    env = await startEnv(2);
    const user = await installGeneratedRbac(env.client, 'peerpodconfig-controller');
    assert.equal(user, `system:serviceaccount:${NS}:peerpodconfig-controller`);
    ctrl = await startController(env, { namespace: NS, adaptorImage: 'example.com/caa:1' }, user);
  });
  after(async () => {
    await ctrl.stop();
    await env.stop();
  });

  it('advertises capacity and deploys the adaptor and the webhook', async () => {
    const cfg = await createConfig(env, 'main', { limit: 4, nodeSelector: { 'node.kubernetes.io/worker': '' } });
    await readyAt(env, 'main', cfg.metadata.generation as number);
    for (const [type, name, ns] of OBJECTS) await env.client.get(type, name, ns);
    assert.deepEqual(await vmCapacity(env), { 'node-1': '2', 'node-2': '2' });
  });

  it('leaves a PeerPodConfig of another namespace alone', async () => {
    await env.client.create(Namespaces, { metadata: { name: 'elsewhere' } });
    await env.client.create<PeerPodConfig>(PeerPodConfigs, {
      apiVersion: 'confidentialcontainers.org/v1alpha1',
      kind: 'PeerPodConfig',
      metadata: { name: 'other', namespace: 'elsewhere' },
      spec: { limit: 8 },
    });
    // A change to its own config reconciled after the other one exists: the other was seen, or never will be.
    const bumped = await env.client.patch<PeerPodConfig>(PeerPodConfigs, 'main', NS, { spec: { limit: 2 } }, 'merge');
    await readyAt(env, 'main', bumped.metadata.generation as number);
    await waitForCapacity(env, { 'node-1': '1', 'node-2': '1' });
    const other = await env.client.get<PeerPodConfig>(PeerPodConfigs, 'other', 'elsewhere');
    assert.equal(other.status, undefined);
    assert.equal(other.metadata.finalizers, undefined);
  });

  it('cleans up on delete: capacity withdrawn, webhook configuration deleted, finalizer released', async () => {
    await env.client.delete(PeerPodConfigs, 'main', NS);
    await waitForCapacity(env, {});
    await eventually(
      async () => {
        for (const [type, name, ns] of [
          [PeerPodConfigs, 'main', NS],
          [MutatingWebhookConfigurations, `peer-pods-webhook-${NS}`, undefined],
        ] as const) {
          try {
            await env.client.get(type, name, ns);
            return false;
          } catch (err) {
            if (!isNotFound(err)) throw err;
          }
        }
        return true;
      },
      { what: 'the PeerPodConfig and its webhook configuration gone' },
    );
  });
});
