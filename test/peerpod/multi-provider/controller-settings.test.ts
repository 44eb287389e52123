// The PeerPod controller deletes a dangling VM on the provider its PeerPod names, with the settings of
// the PeerPodConfig that serves that provider: its own ConfigMap and Secret (configMapName,
// cloudSecretName), not peer-pods-cm. Run first as the cluster's admin, then as the controller's
// ServiceAccount with the RBAC `peerpods manifests` generates: the default Roles alone cannot read a
// further provider's objects (its PeerPod stays), and the rules of the Role `--extra-provider` adds let it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigMaps, RoleBindings, Roles, Secrets } from '../../../src/runtime/index.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import { PEERPOD_FINALIZER, PeerPodConfigs, PeerPods } from '../../../src/peerpod/api/index.ts';
import type { CloudProvider } from '../../../src/peerpod/providers/index.ts';
import { peerPodProviderRules } from '../../../src/peerpod/controllers/index.ts';
import { installGeneratedRbac } from '../../helpers/generated-rbac.ts';
import { NS, eventually, startController, startEnv } from '../controllers/helpers.ts';
import type { Env, Running } from '../controllers/helpers.ts';

interface Deleted {
  provider: string;
  id: string;
  /** The settings the provider was built with. */
  settings: Record<string, string>;
}

/** A provider that records each delete with the settings it was built from. */
function recordingFactory(deleted: Deleted[]) {
  return async (name: string, settings: Record<string, string>): Promise<CloudProvider> => ({
    name,
    createInstance: () => Promise.reject(new Error('not in this test')),
    async deleteInstance(id) {
      deleted.push({ provider: name, id, settings });
      return true;
    },
    listInstances: async () => [],
    verifyConfig: async () => undefined,
  });
}

let seq = 0;
async function danglingPeerPod(env: Env, provider: string): Promise<{ name: string; id: string }> {
  const name = `dangling-${++seq}`;
  const id = `vm-${seq}`;
  await env.client.create(PeerPods, {
    metadata: { name, namespace: 'default', finalizers: [PEERPOD_FINALIZER] },
    spec: { cloudProvider: provider, instanceID: id },
  } as KubeObject);
  await env.client.delete(PeerPods, name, 'default');
  return { name, id };
}

async function released(env: Env, name: string): Promise<boolean> {
  try {
    await env.client.get(PeerPods, name, 'default');
    return false;
  } catch {
    return true;
  }
}

async function settings(env: Env): Promise<void> {
  const cm = (name: string, data: Record<string, string>) =>
    env.client.create(ConfigMaps, { metadata: { name, namespace: NS }, data } as KubeObject);
  const secret = (name: string, stringData: Record<string, string>) =>
    env.client.create(Secrets, { metadata: { name, namespace: NS }, stringData } as KubeObject);
  await cm('peer-pods-cm', { CLOUD_PROVIDER: 'qemu', WHERE: 'peer-pods-cm' });
  await secret('peer-pods-secret', { TOKEN: 'default-token' });
  await cm('sim-cm', { CLOUD_PROVIDER: 'simulated', WHERE: 'sim-cm' });
  await secret('sim-secret', { TOKEN: 'sim-token' });
  const config = (name: string, spec: Record<string, unknown>) =>
    env.client.create(PeerPodConfigs, {
      apiVersion: 'confidentialcontainers.org/v1alpha1',
      kind: 'PeerPodConfig',
      metadata: { name, namespace: NS },
      spec: { limitPerNode: 1, ...spec },
    } as KubeObject);
  await config('qemu', {});
  await config('sim', {
    runtimeClassName: 'kata-remote-sim',
    extendedResource: 'simulated.kata.peerpods.io/vm',
    cloudProvider: 'simulated',
    configMapName: 'sim-cm',
    cloudSecretName: 'sim-secret',
  });
}

describe("the PeerPod controller uses each provider's PeerPodConfig settings", () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
    await settings(env);
  });
  after(() => env.stop());

  it("deletes a simulated VM with the simulated config's ConfigMap and Secret, a qemu VM with peer-pods-cm", async () => {
    const deleted: Deleted[] = [];
    const ctrl: Running = await startController(env, {
      providerFactory: recordingFactory(deleted),
      sweepIntervalMs: 0,
    });
    try {
      const sim = await danglingPeerPod(env, 'simulated');
      const qemu = await danglingPeerPod(env, 'qemu');
      await eventually(async () => (await released(env, sim.name)) && (await released(env, qemu.name)), {
        what: 'both PeerPods released',
      });
      const of = (id: string) => deleted.find((d) => d.id === id);
      assert.equal(of(sim.id)?.provider, 'simulated');
      assert.equal(of(sim.id)?.settings.WHERE, 'sim-cm');
      assert.equal(of(sim.id)?.settings.TOKEN, 'sim-token');
      assert.equal(of(qemu.id)?.provider, 'qemu');
      assert.equal(of(qemu.id)?.settings.WHERE, 'peer-pods-cm');
      assert.equal(of(qemu.id)?.settings.TOKEN, 'default-token');
    } finally {
      await ctrl.stop();
    }
  });

  it('as its ServiceAccount: needs the Role `--extra-provider` generates to read the further objects', async () => {
    const user = await installGeneratedRbac(env.client, 'peerpod-controller');
    const deleted: Deleted[] = [];
    const ctrl = await startController(
      env,
      { providerFactory: recordingFactory(deleted), sweepIntervalMs: 0 },
      { asUser: user },
    );
    try {
      // The default provider works with the default Roles.
      const qemu = await danglingPeerPod(env, 'qemu');
      await eventually(() => released(env, qemu.name), { what: 'the qemu PeerPod released' });
      assert.equal(deleted.find((d) => d.id === qemu.id)?.settings.WHERE, 'peer-pods-cm');

      // sim-cm and sim-secret are not readable: the simulated VM is not deleted with wrong settings.
      const sim = await danglingPeerPod(env, 'simulated');
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(await released(env, sim.name), false, 'held until its settings can be read');
      assert.equal(
        deleted.find((d) => d.id === sim.id && d.settings.WHERE !== 'sim-cm'),
        undefined,
        'never deleted with settings other than its config’s',
      );

      // The rules of the Role `peerpods manifests --extra-provider kata-remote-sim:sim-cm:sim-secret`
      // generates for it (test/cli/manifests/extra-provider.test.ts checks the generated objects).
      const role = 'peerpod-controller-kata-remote-sim';
      await env.client.create(Roles, {
        metadata: { name: role, namespace: NS },
        rules: peerPodProviderRules({ configMap: 'sim-cm', secret: 'sim-secret' }),
      } as KubeObject);
      await env.client.create(RoleBindings, {
        metadata: { name: role, namespace: NS },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role },
        subjects: [{ kind: 'ServiceAccount', name: user.split(':').pop(), namespace: NS }],
      } as KubeObject);
      await eventually(() => released(env, sim.name), { what: 'the simulated PeerPod released', timeoutMs: 60_000 });
      const done = deleted.find((d) => d.id === sim.id);
      assert.equal(done?.settings.WHERE, 'sim-cm');
      assert.equal(done?.settings.TOKEN, 'sim-token');
    } finally {
      await ctrl.stop();
    }
  });
});
