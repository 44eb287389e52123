// The libvirt provider against a real libvirtd (started by ensureLibvirtd when not running, and
// stopped again if this suite started it): domains, metadata tags, volumes, missing domains.
import assert from 'node:assert/strict';
import { chmod, readdir, rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { ensureLibvirtd, type LibvirtdHandle } from '../../../src/peerpod/providers/libvirt/daemon.ts';
import { parseInstanceMetadata, buildDomainXml } from '../../../src/peerpod/providers/libvirt/domain-xml.ts';
import { LibvirtProvider } from '../../../src/peerpod/providers/libvirt/provider.ts';
import { Virsh } from '../../../src/peerpod/providers/libvirt/virsh.ts';
import { InvalidInstanceIdError, ProviderConfigError } from '../../../src/peerpod/providers/errors.ts';
import { request, silent, tempDir } from './helpers.ts';

const URI = 'qemu:///system';
const run = (args: string[]) => new Virsh({ uri: URI }).run(args);
const suffix = Math.random().toString(16).slice(2, 8);

describe('libvirt provider (real libvirtd)', { timeout: 120_000 }, () => {
  let daemon: LibvirtdHandle | undefined;
  let poolDir: string;
  const pool = `pp-test-${suffix}`;
  let diskless: LibvirtProvider;
  const created: string[] = [];
  const timings: string[] = [];

  before(async () => {
    const t0 = performance.now();
    daemon = await ensureLibvirtd({ uri: URI });
    timings.push(`ensureLibvirtd ${(performance.now() - t0).toFixed(0)} ms (started ${daemon.startedPids.length})`);
    poolDir = await tempDir('pp-pool');
    // QEMU runs as libvirt-qemu and must reach the volumes.
    await chmod(poolDir, 0o755);
    await run(['pool-create-as', pool, 'dir', '--target', poolDir]);
    await run(['vol-create-as', pool, 'podvm-base.qcow2', '16M', '--format', 'qcow2']);
    diskless = new LibvirtProvider(
      { LIBVIRT_URI: URI, LIBVIRT_VOL_NAME: 'none', LIBVIRT_NET: 'none' },
      { logger: silent },
    );
  });

  after(async () => {
    try {
      for (const id of created) await diskless.deleteInstance(id).catch(() => undefined);
      await run(['pool-destroy', pool]).catch(() => undefined);
      await rm(poolDir, { recursive: true, force: true });
    } finally {
      await daemon?.stop();
      if (timings.length) console.log(`libvirt timings: ${timings.join(', ')}`);
    }
  });

  let a: string;

  it('ensureLibvirtd is idempotent: a second call starts nothing', async () => {
    const again = await ensureLibvirtd({ uri: URI });
    assert.deepEqual(again.startedPids, []);
  });

  it('creates a running domain named per upstream, sized as asked, with tags in its metadata', async () => {
    const t0 = performance.now();
    const vm = await diskless.createInstance(
      request(`lv-${suffix}`, 'aaaaaaaa99', {
        vcpus: 2,
        memoryMiB: 96,
        tags: { cluster: `c-${suffix}`, 'odd<&>"': "q'" },
      }),
    );
    timings.push(`create (define+start) ${(performance.now() - t0).toFixed(0)} ms`);
    a = vm.id;
    created.push(a);
    assert.equal(vm.name, `podvm-lv-${suffix}-aaaaaaaa`);
    assert.match(a, /^[0-9a-f-]{36}$/);
    assert.equal((await run(['domuuid', vm.name])).trim(), a);
    assert.equal((await run(['domstate', a])).trim(), 'running');
    const xml = await run(['dumpxml', a]);
    assert.match(xml, /<vcpu placement='static'>2<\/vcpu>/);
    assert.match(xml, /<memory unit='KiB'>98304<\/memory>/);
    assert.deepEqual(vm.ips, []);
  });

  it('lists by tags, reading them back from the metadata', async () => {
    const [vm, ...rest] = await diskless.listInstances({ cluster: `c-${suffix}` });
    assert.equal(rest.length, 0);
    assert.equal(vm.id, a);
    assert.deepEqual(vm.tags, { cluster: `c-${suffix}`, 'odd<&>"': "q'" });
    assert.equal(vm.state, 'running');
    assert.ok(Date.now() - vm.createdAt.getTime() < 60_000);
    assert.deepEqual(await diskless.listInstances({ cluster: 'other' }), []);
  });

  it('adopts the existing domain on a repeated create', async () => {
    const again = await diskless.createInstance(request(`lv-${suffix}`, 'aaaaaaaa99', { tags: {} }));
    assert.equal(again.id, a);
  });

  it('ignores domains without its metadata', async () => {
    const foreign = `podvm-foreign-${suffix}`;
    await new Virsh({ uri: URI }).define(
      `<domain type='qemu'><name>${foreign}</name><memory unit='MiB'>32</memory><os><type arch='x86_64'>hvm</type></os></domain>`,
    );
    try {
      const names = (await diskless.listInstances({})).map((i) => i.name);
      assert.ok(!names.includes(foreign));
      assert.ok(names.includes(`podvm-lv-${suffix}-aaaaaaaa`));
    } finally {
      await run(['undefine', foreign]);
    }
  });

  it('deletes (destroy + undefine); a second delete and an unknown UUID are success', async () => {
    const t0 = performance.now();
    await diskless.deleteInstance(a);
    timings.push(`delete (destroy+undefine) ${(performance.now() - t0).toFixed(0)} ms`);
    await assert.rejects(run(['domstate', a]), /failed to get domain/);
    await diskless.deleteInstance(a);
    await diskless.deleteInstance('11111111-2222-4333-8444-555555555555');
    await assert.rejects(diskless.deleteInstance('not-a-uuid'), InvalidInstanceIdError);
  });

  it('with a pool: gives the VM a root volume backed by the base image and deletes it with the VM', async () => {
    const withDisk = new LibvirtProvider(
      { LIBVIRT_URI: URI, LIBVIRT_POOL: pool, LIBVIRT_NET: 'none', LIBVIRT_ROOT_DISK_SIZE: '1' },
      { logger: silent },
    );
    await withDisk.verifyConfig();
    const vm = await withDisk.createInstance(request(`disk-${suffix}`, 'bbbbbbbb', { tags: { d: '1' } }));
    created.push(vm.id);
    const vol = `${vm.name}-root.qcow2`;
    assert.deepEqual((await readdir(poolDir)).sort(), ['podvm-base.qcow2', vol].sort());
    assert.match(await run(['dumpxml', vm.id]), new RegExp(`volume='${vol}'`));
    await withDisk.deleteInstance(vm.id);
    await run(['pool-refresh', pool]);
    assert.deepEqual(await readdir(poolDir), ['podvm-base.qcow2']);
  });

  it('a domain stopped behind its back is still listed, and deletes fine', async () => {
    const vm = await diskless.createInstance(request(`stop-${suffix}`, 'cccccccc', { tags: { s: suffix } }));
    created.push(vm.id);
    await run(['destroy', vm.id]);
    const [listed] = await diskless.listInstances({ s: suffix });
    assert.equal(listed.state, 'shut off');
    await diskless.deleteInstance(vm.id);
    assert.deepEqual(await diskless.listInstances({ s: suffix }), []);
  });

  it('verifyConfig names what is wrong', async () => {
    const bad = new LibvirtProvider(
      { LIBVIRT_URI: URI, LIBVIRT_POOL: `missing-${suffix}`, LIBVIRT_MEMORY: 'x', DISABLECVM: 'false' },
      { logger: silent },
    );
    await assert.rejects(bad.verifyConfig(), (err: Error) => {
      assert.ok(err instanceof ProviderConfigError);
      assert.match(err.message, /LIBVIRT_MEMORY/);
      assert.match(err.message, /DISABLECVM/);
      assert.match(err.message, /LIBVIRT_POOL/);
      return true;
    });
  });
});

describe('libvirt domain XML', () => {
  it('round-trips metadata with characters that need escaping', () => {
    const meta = {
      createdAt: '2026-01-02T03:04:05.000Z',
      podName: 'p&q',
      podNamespace: 'ns',
      sandboxId: 'sb',
      tags: { 'a"b': "<'>", plain: 'v', empty: '', nl: 'x\ny' },
    };
    const xml = buildDomainXml({
      name: 'podvm-x-1',
      uuid: '00000000-0000-4000-8000-000000000000',
      domainType: 'qemu',
      vcpus: 1,
      memoryMiB: 64,
      meta,
    });
    assert.deepEqual(parseInstanceMetadata(xml), meta);
    assert.doesNotMatch(xml, /<graphics/);
    assert.doesNotMatch(xml, /<cpu /);
  });
});
