// The host's answer for local providers: memory against the VM size, CPUs with the allocation
// ratio, and what a missing /dev/kvm or an unreadable /proc/meminfo turns into.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  cpuAllocationRatio,
  hostCapacity,
  localHostCapacity,
  readHostResources,
} from '../../../src/peerpod/providers/capacity.ts';
import { SimulatedProvider } from '../../../src/peerpod/providers/simulated.ts';

describe('host capacity', () => {
  const host = { memAvailableMiB: 4096, onlineCpus: 2, kvm: true };

  it('is bound by memory when memory holds fewer VMs', () => {
    assert.deepEqual(hostCapacity(host, { vcpus: 1, memoryMiB: 1024 }, 16), {
      available: 4,
      reason: 'HostMemory',
      message: 'MemAvailable 4096 MiB / 1024 MiB per VM = 4 (2 online CPU(s) x 16 / 1 vCPU(s) per VM = 32)',
    });
  });

  it('is bound by CPUs with the allocation ratio, and by a VM wider than the host', () => {
    const cpu = hostCapacity(host, { vcpus: 2, memoryMiB: 128 }, 2);
    assert.equal(cpu.available, 2);
    assert.equal(cpu.reason, 'HostCPU');
    assert.match(cpu.message, /^2 online CPU\(s\) x 2 \/ 2 vCPU\(s\) per VM = 2 \(MemAvailable 4096 MiB/);
    assert.equal(hostCapacity(host, { vcpus: 3, memoryMiB: 128 }, 16).available, 0);
  });

  it('says when /dev/kvm is missing', () => {
    assert.match(
      hostCapacity({ ...host, kvm: false }, { vcpus: 1, memoryMiB: 1024 }, 16).message,
      /; no \/dev\/kvm: VMs run emulated \(TCG\), slowly$/,
    );
  });

  it('reads MemAvailable, the online CPUs and /dev/kvm', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'capacity-'));
    try {
      const meminfo = path.join(dir, 'meminfo');
      await writeFile(meminfo, 'MemTotal:       8000000 kB\nMemFree:         100 kB\nMemAvailable:    2097152 kB\n');
      assert.deepEqual(await readHostResources({ meminfo, kvm: path.join(dir, 'kvm') }), {
        memAvailableMiB: 2048,
        onlineCpus: availableParallelism(),
        kvm: false,
      });
      await writeFile(path.join(dir, 'kvm'), '');
      assert.equal((await readHostResources({ meminfo, kvm: path.join(dir, 'kvm') })).kvm, true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is unknown, with the reason, when the host cannot be read', async () => {
    const answer = await localHostCapacity({ vcpus: 1, memoryMiB: 128 }, {}, () =>
      Promise.reject(new Error('no MemAvailable line in /proc/meminfo')),
    );
    assert.deepEqual(answer, {
      available: undefined,
      reason: 'Unknown',
      message: "cannot read the host's resources: no MemAvailable line in /proc/meminfo",
    });
  });

  it('takes HOST_CPU_ALLOCATION_RATIO from the settings, 16 otherwise', () => {
    assert.equal(cpuAllocationRatio({ HOST_CPU_ALLOCATION_RATIO: '4' }), 4);
    assert.equal(cpuAllocationRatio({ HOST_CPU_ALLOCATION_RATIO: '-1' }), 16);
    assert.equal(cpuAllocationRatio({}), 16);
  });

  it('counts the simulated quota (SIMULATED_MAX_INSTANCES) against the VMs it holds', async () => {
    const sim = new SimulatedProvider({ maxInstances: 3 });
    const size = { vcpus: 0, memoryMiB: 0 };
    assert.deepEqual(await sim.capacity(size), {
      available: 3,
      reason: 'Quota',
      message: '0 of 3 simulated instances in use: 3 more',
    });
    await sim.createInstance({
      podName: 'p',
      podNamespace: 'default',
      sandboxId: 's1',
      vcpus: 0,
      memoryMiB: 0,
      tags: {},
    });
    assert.equal((await sim.capacity(size)).available, 2);
    assert.equal((await new SimulatedProvider({}).capacity(size)).available, undefined);
  });
});
