// The advertised kata.peerpods.io/vm never exceeds what the provider can hold (CAA#1847): qemu asks
// this host's /proc/meminfo and CPUs, azure its regional quota through the real compute SDK over a
// fake ARM transport. The effective limit, the CapacityLimited condition and its Event show why.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Counter, Registry } from 'prom-client';
import { ConfigMaps, Events, Namespaces } from '../../../src/runtime/index.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import { PeerPodConfigs } from '../../../src/peerpod/api/index.ts';
import type { PeerPodConfig } from '../../../src/peerpod/api/index.ts';
import { FakeArm, fakeCredential } from '../providers/fake-arm.ts';
import { NS, createConfig, eventually, startController, startEnv, waitForCapacity } from './helpers.ts';
import type { Env, Running } from './helpers.ts';

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

async function configWhere(env: Env, name: string, ok: (c: PeerPodConfig) => boolean): Promise<PeerPodConfig> {
  let last: PeerPodConfig | undefined;
  try {
    return await eventually(
      async () => {
        last = await env.client.get<PeerPodConfig>(PeerPodConfigs, name, NS);
        return ok(last) ? last : undefined;
      },
      { what: `PeerPodConfig ${name}`, timeoutMs: 20_000 },
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; status: ${JSON.stringify(last?.status)}`);
  }
}

function limitedCondition(c: PeerPodConfig): Condition | undefined {
  return (c.status?.conditions as Condition[] | undefined)?.find((x) => x.type === 'CapacityLimited');
}

async function eventsOf(env: Env, name: string, reason: string): Promise<Array<KubeObject & { message?: string }>> {
  const { items } = await env.client.list<KubeObject & { reason?: string; involvedObject?: { name?: string } }>(
    Events,
    { namespace: NS },
  );
  return items.filter((e) => e.involvedObject?.name === name && e.reason === reason);
}

async function reconciles(registry: Registry): Promise<number> {
  const metric = registry.getSingleMetric('controller_runtime_reconcile_total') as Counter | undefined;
  const values = (await metric?.get())?.values ?? [];
  return values.filter((v) => v.labels.controller === 'peerpodconfig').reduce((a, v) => a + v.value, 0);
}

async function patches(registry: Registry): Promise<number> {
  const metric = registry.getSingleMetric('peerpods_rest_client_requests_total') as Counter | undefined;
  const values = (await metric?.get())?.values ?? [];
  return values.filter((v) => v.labels.method === 'PATCH').reduce((a, v) => a + v.value, 0);
}

async function memAvailableMiB(): Promise<number> {
  const m = /^MemAvailable:\s+(\d+)\s+kB$/m.exec(await readFile('/proc/meminfo', 'utf8'));
  assert.ok(m, 'MemAvailable in /proc/meminfo');
  return Math.floor(Number(m[1]) / 1024);
}

describe('PeerPodConfig capacity from a qemu host', () => {
  let env: Env;
  let ctrl: Running;
  let stateDir: string;
  before(async () => {
    stateDir = await mkdtemp(path.join(tmpdir(), 'ppc-capacity-'));
    env = await startEnv(2);
    ctrl = await startController(env, { webhook: false, deployAdaptor: false, capacity: { recheckMs: 1000 } });
  });
  after(async () => {
    await ctrl.stop();
    await env.stop();
    await rm(stateDir, { recursive: true, force: true });
  });

  it('lowers a limit the host memory cannot hold, says why, and does not rewrite it at each recheck', async () => {
    // 1 TiB VMs: this host holds none, whatever else runs on it meanwhile.
    const perVm = 1024 * 1024;
    assert.ok((await memAvailableMiB()) < perVm);
    await env.client.create(ConfigMaps, {
      metadata: { name: 'peer-pods-cm', namespace: NS },
      data: { CLOUD_PROVIDER: 'qemu', QEMU_STATE_DIR: stateDir, QEMU_DEFAULT_MEMORY: String(perVm) },
    });
    await createConfig(env, 'host', { limit: '10' });
    const cfg = await configWhere(env, 'host', (c) => limitedCondition(c)?.status === 'True');
    const cond = limitedCondition(cfg) as Condition;
    assert.equal(cond.reason, 'HostMemory');
    assert.match(cond.message, /^limit 10 lowered to 0: qemu: MemAvailable \d+ MiB \/ 1048576 MiB per VM = 0 \(/);
    assert.match(cond.message, /; 0 VM\(s\) of this cluster running$/);
    assert.equal(cfg.status?.configuredLimit, 10);
    assert.equal(cfg.status?.effectiveLimit, 0);
    assert.equal(cfg.status?.totalVMs, 0);
    await waitForCapacity(env, { 'node-1': '0', 'node-2': '0' });
    const warned = await eventually(async () => {
      const e = await eventsOf(env, 'host', 'CapacityLimited');
      return e.length > 0 ? e : undefined;
    });
    assert.match(warned[0].message ?? '', /effective limit 10 -> 0 \(configured 10; HostMemory: MemAvailable /);

    // Rechecks (every second here) that find the same answer write nothing: no PATCH of a node or
    // of the status (node resourceVersions move with the kubelets' heartbeats, so the controller's
    // own requests are counted).
    // Counted from the steady state: one recheck after the decision has settled in the cache.
    const rechecks = async (n: number) => {
      const start = await reconciles(ctrl.registry);
      await eventually(async () => (await reconciles(ctrl.registry)) >= start + n, {
        what: `${n} rechecks`,
        timeoutMs: 15_000,
      });
    };
    await rechecks(1);
    const patchesBefore = await patches(ctrl.registry);
    await rechecks(3);
    assert.equal(await patches(ctrl.registry), patchesBefore);
    assert.equal((await eventsOf(env, 'host', 'CapacityLimited')).length, 1);
  });

  it('keeps a limit the host can hold, and restores it when the VM size shrinks', async () => {
    // The same config with the default 128 MiB VMs: 10 fit on any host this suite runs on.
    await env.client.patch(ConfigMaps, 'peer-pods-cm', NS, { data: { QEMU_DEFAULT_MEMORY: '128' } }, 'merge');
    const cfg = await configWhere(env, 'host', (c) => c.status?.effectiveLimit === 10);
    const cond = limitedCondition(cfg) as Condition;
    assert.equal(cond.status, 'False');
    assert.equal(cond.reason, 'WithinCapacity');
    assert.match(cond.message, /^limit 10 fits \(\d+ can be held\): qemu: .*MemAvailable \d+ MiB \/ 128 MiB per VM/);
    await waitForCapacity(env, { 'node-1': '5', 'node-2': '5' });
    const restored = await eventually(async () => {
      const e = await eventsOf(env, 'host', 'CapacityRestored');
      return e.length > 0 ? e : undefined;
    });
    assert.match(restored[0].message ?? '', /-> 10 \(configured 10; the configured limit\)/);
  });
});

describe('PeerPodConfig capacity from the Azure quota (compute SDK, fake ARM transport)', () => {
  const SUB = '11111111-2222-3333-4444-555555555555';
  const RG = 'peerpods-rg';
  const fake = new FakeArm();
  let env: Env;
  let ctrl: Running;
  before(async () => {
    env = await startEnv(2);
    const uid = (await env.client.get(Namespaces, 'kube-system')).metadata.uid as string;
    const VMS = `/subscriptions/${SUB}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachines`;
    // 348 of 350 VMs used (CAA#1847's wall), 10 of 100 regional vCPUs; one pod VM of this cluster runs.
    fake
      .on('GET', new RegExp(`^/subscriptions/${SUB}/providers/Microsoft.Compute/locations/eastus/usages$`), {
        status: 200,
        body: {
          value: [
            { unit: 'Count', currentValue: 348, limit: 350, name: { value: 'virtualMachines' } },
            { unit: 'Count', currentValue: 10, limit: 100, name: { value: 'cores' } },
          ],
        },
      })
      .on('GET', new RegExp(`^/subscriptions/${SUB}/providers/Microsoft.Compute/locations/eastus/vmSizes$`), {
        status: 200,
        body: { value: [{ name: 'Standard_DC2as_v5', numberOfCores: 2, memoryInMB: 8192 }] },
      })
      .on('GET', new RegExp(`^${VMS}$`), {
        status: 200,
        body: {
          value: [
            {
              id: `${VMS}/podvm-web-0-12345678`,
              name: 'podvm-web-0-12345678',
              location: 'eastus',
              tags: { 'caa-cluster-uid': uid },
              properties: { provisioningState: 'Succeeded', timeCreated: '2026-03-04T05:06:07Z' },
            },
          ],
        },
      });
    ctrl = await startController(env, {
      webhook: false,
      deployAdaptor: false,
      capacity: {
        providerOptions: {
          azure: {
            credential: fakeCredential,
            clientOptions: { httpClient: fake.httpClient, retryOptions: { maxRetries: 0 } },
          },
        },
      },
    });
  });
  after(async () => {
    await ctrl.stop();
    await env.stop();
  });

  it('lowers the limit to the free quota plus the VMs this cluster already runs', async () => {
    await env.client.create(ConfigMaps, {
      metadata: { name: 'peer-pods-cm', namespace: NS },
      data: {
        CLOUD_PROVIDER: 'azure',
        AZURE_SUBSCRIPTION_ID: SUB,
        AZURE_REGION: 'eastus',
        AZURE_RESOURCE_GROUP: RG,
        AZURE_SUBNET_ID: `/subscriptions/${SUB}/resourceGroups/${RG}/providers/Microsoft.Network/virtualNetworks/vnet/subnets/default`,
        AZURE_IMAGE_ID: '/CommunityGalleries/cocopodvm-d0e4f35f/Images/podvm_image0/Versions/0.13.0',
      },
    });
    await createConfig(env, 'quota', { limit: '5' });
    const cfg = await configWhere(env, 'quota', (c) => limitedCondition(c)?.status === 'True');
    const cond = limitedCondition(cfg) as Condition;
    assert.equal(cond.reason, 'Quota');
    assert.equal(
      cond.message,
      'limit 5 lowered to 3: azure: virtualMachines 348/350 used in eastus: 2 more; ' +
        'cores 10/100 used in eastus, 2 per Standard_DC2as_v5: 45 more; 1 VM(s) of this cluster running',
    );
    assert.equal(cfg.status?.configuredLimit, 5);
    assert.equal(cfg.status?.effectiveLimit, 3);
    await waitForCapacity(env, { 'node-1': '2', 'node-2': '1' });
    const usage = fake.calls.find((c) => c.url.pathname.endsWith('/locations/eastus/usages'));
    assert.ok(usage?.url.searchParams.get('api-version'), 'the SDK sent its api-version');
    assert.equal(usage?.authorization, 'Bearer fake-token');
  });
});
