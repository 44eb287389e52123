// The gcp provider's capacity: the region's INSTANCES, CPUS and machine-family vCPU quotas
// (regions.get `quotas[]`) over the machine type's vCPUs (machineTypes.get) — through the real
// compute clients in REST mode with a fake fetch.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProviderError } from '../../../src/peerpod/providers/errors.ts';
import type { GcpProvider } from '../../../src/peerpod/providers/gcp/provider.ts';
import { familyQuotaMetric, regionOf } from '../../../src/peerpod/providers/gcp/quota.ts';
import { createProvider } from '../../../src/peerpod/providers/registry.ts';
import { FakeGce, gceError } from './fake-gce.ts';
import { silent } from './helpers.ts';

const CONFIG = {
  GCP_PROJECT_ID: 'proj-1',
  GCP_ZONE: 'europe-west4-a',
  GCP_NETWORK: 'global/networks/default',
  PODVM_IMAGE_NAME: 'podvm-image',
};
const REGION = /^\/compute\/v1\/projects\/proj-1\/regions\/europe-west4$/;
const MACHINE_TYPE = /^\/compute\/v1\/projects\/proj-1\/zones\/europe-west4-a\/machineTypes\/([a-z0-9-]+)$/;
const CPUS: Record<string, number> = { 'e2-medium': 2, 'n2d-standard-8': 8 };

function region(quotas: Array<{ metric: string; limit: number; usage: number }>) {
  return { body: { kind: 'compute#region', name: 'europe-west4', status: 'UP', quotas } };
}

function withMachineTypes(fake: FakeGce): FakeGce {
  return fake.on('GET', MACHINE_TYPE, (c) => {
    const name = MACHINE_TYPE.exec(c.url.pathname)?.[1] ?? '';
    return { body: { kind: 'compute#machineType', name, guestCpus: CPUS[name], memoryMb: 4096 } };
  });
}

async function provider(fake: FakeGce, config: Record<string, string> = CONFIG): Promise<GcpProvider> {
  return (await createProvider('gcp', config, {
    logger: silent,
    gcp: { clientOptions: { authClient: fake.authClient as never } },
  })) as GcpProvider;
}

describe('gcp capacity (compute REST clients, fake fetch)', () => {
  it('takes the quota that holds fewest VMs of the default machine type', async () => {
    const fake = withMachineTypes(new FakeGce()).on(
      'GET',
      REGION,
      region([
        { metric: 'CPUS', limit: 24, usage: 20 },
        { metric: 'INSTANCES', limit: 960, usage: 7 },
        { metric: 'E2_CPUS', limit: 100, usage: 10 },
        { metric: 'N2D_CPUS', limit: 0, usage: 0 },
        { metric: 'DISKS_TOTAL_GB', limit: 4096, usage: 100 },
      ]),
    );
    const p = await provider(fake);
    try {
      assert.deepEqual(await p.capacity({ vcpus: 0, memoryMiB: 0 }), {
        available: 2,
        reason: 'Quota',
        message:
          'INSTANCES 7/960 used in europe-west4: 953 more; ' +
          'CPUS 20/24 used in europe-west4, 2 per e2-medium: 2 more; ' +
          'E2_CPUS 10/100 used in europe-west4, 2 per e2-medium: 45 more',
      });
      assert.deepEqual(fake.summary().sort(), [
        'GET /regions/europe-west4',
        'GET /zones/europe-west4-a/machineTypes/e2-medium',
      ]);
    } finally {
      await p.close();
    }
  });

  it("counts a requested machine type against its family's quota, asking its vCPUs once", async () => {
    const fake = withMachineTypes(new FakeGce()).on(
      'GET',
      REGION,
      region([
        { metric: 'CPUS', limit: 24, usage: 0 },
        { metric: 'INSTANCES', limit: 960, usage: 0 },
        { metric: 'N2D_CPUS', limit: 20, usage: 4 },
      ]),
    );
    const p = await provider(fake, { ...CONFIG, GCP_INSTANCE_TYPES: 'e2-medium,n2d-standard-8' });
    try {
      const req = { vcpus: 0, memoryMiB: 0, instanceType: 'n2d-standard-8' };
      const answer = await p.capacity(req);
      assert.equal(answer.available, 2);
      assert.match(answer.message, /; N2D_CPUS 4\/20 used in europe-west4, 8 per n2d-standard-8: 2 more$/);
      await p.capacity(req);
      assert.equal(fake.summary().filter((c) => c.includes('machineTypes')).length, 1);
    } finally {
      await p.close();
    }
  });

  it('a refused regions.get is a provider error naming the call and the region', async () => {
    const fake = withMachineTypes(new FakeGce()).on(
      'GET',
      REGION,
      gceError(
        403,
        'forbidden',
        "Required 'compute.regions.get' permission for 'projects/proj-1/regions/europe-west4'",
      ),
    );
    const p = await provider(fake);
    try {
      await assert.rejects(p.capacity({ vcpus: 0, memoryMiB: 0 }), (err: Error) => {
        assert.ok(err instanceof ProviderError);
        assert.match(err.message, /regions\.get europe-west4: .*compute\.regions\.get/);
        return true;
      });
    } finally {
      await p.close();
    }
  });

  it('names the region and the family quota from the zone and the machine type', () => {
    assert.equal(regionOf('europe-west4-a'), 'europe-west4');
    assert.equal(regionOf('us-central1-f'), 'us-central1');
    assert.equal(familyQuotaMetric('n2d-standard-4'), 'N2D_CPUS');
    assert.equal(familyQuotaMetric('c3-highcpu-22'), 'C3_CPUS');
    assert.equal(familyQuotaMetric('e2-micro'), 'E2_CPUS');
    assert.equal(familyQuotaMetric('custom-2-4096'), undefined);
  });
});
