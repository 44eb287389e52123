// The qemu provider against real QEMU processes: sizes on the command line, QMP, tags, state that
// survives a restart of the provider (and of the process that created the VM), external kills.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { InvalidInstanceIdError, ProviderConfigError, ProviderError } from '../../../src/peerpod/providers/errors.ts';
import { generateInstanceName } from '../../../src/peerpod/providers/naming.ts';
import { cmdlineArgs, findPidsWithArg } from '../../../src/peerpod/providers/procfs.ts';
import { QemuProvider } from '../../../src/peerpod/providers/qemu/provider.ts';
import { QmpClient } from '../../../src/peerpod/providers/qemu/qmp.ts';
import { waitFor } from '../../../src/peerpod/providers/wait.ts';
import { request, silent, tempDir } from './helpers.ts';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** PIDs of QEMU processes whose QMP socket lives under `dir`: what must be gone at the end. */
async function qemuUnder(dir: string): Promise<number[]> {
  const out: number[] = [];
  for (const pid of await findPidsWithArg('-qmp')) {
    const args = (await cmdlineArgs(pid)) ?? [];
    if (args.some((a) => a.includes(dir))) out.push(pid);
  }
  return out;
}

async function pidOf(uuid: string): Promise<number> {
  const pids = await findPidsWithArg(uuid);
  assert.equal(pids.length, 1, `one process for ${uuid}`);
  return pids[0];
}

function argAfter(args: string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

describe('qemu provider (real QEMU)', () => {
  let dir: string;
  let provider: QemuProvider;
  const timings: string[] = [];

  before(async () => {
    dir = await tempDir('pp-qemu');
    provider = new QemuProvider({}, { stateDir: dir, logger: silent });
  });

  after(async () => {
    try {
      for (const vm of await new QemuProvider({}, { stateDir: dir, logger: silent }).listInstances({})) {
        await provider.deleteInstance(vm.id);
      }
    } finally {
      for (const pid of await qemuUnder(dir)) process.kill(pid, 'SIGKILL');
      await waitFor('test QEMU processes to exit', async () => ((await qemuUnder(dir)).length ? undefined : true), {
        timeoutMs: 5000,
      });
      await rm(dir, { recursive: true, force: true });
      if (timings.length) console.log(`qemu timings: ${timings.join(', ')}`);
    }
  });

  let a: string;
  let b: string;

  it('creates two VMs, each a QEMU process with the requested -smp/-m and a running QMP', async () => {
    const t0 = performance.now();
    const [va, vb] = await Promise.all([
      provider.createInstance(
        request('web-0', 'aaaaaaaa1111', { vcpus: 1, memoryMiB: 64, tags: { cluster: 'c1', role: 'a' } }),
      ),
      provider.createInstance(
        request('Web_1.x', 'bbbbbbbb2222', { vcpus: 2, memoryMiB: 96, tags: { cluster: 'c1', role: 'b' } }),
      ),
    ]);
    timings.push(`2 creates in parallel ${(performance.now() - t0).toFixed(0)} ms`);
    a = va.id;
    b = vb.id;
    assert.match(a, /^[0-9a-f-]{36}$/);
    assert.notEqual(a, b);
    assert.equal(va.name, 'podvm-web-0-aaaaaaaa');
    assert.equal(vb.name, generateInstanceName('Web_1.x', 'bbbbbbbb2222'));
    assert.equal(vb.name, 'podvm-web-1-x-bbbbbbbb');
    for (const vm of [va, vb]) {
      assert.equal(vm.ips.length, 1);
      assert.match(vm.ips[0], /^10\.254\.\d+\.\d+$/);
    }
    const argsB = (await cmdlineArgs(await pidOf(b)))!;
    assert.equal(argAfter(argsB, '-smp'), '2');
    assert.equal(argAfter(argsB, '-m'), '96');
    assert.equal(argAfter(argsB, '-uuid'), b);
    const argsA = (await cmdlineArgs(await pidOf(a)))!;
    assert.equal(argAfter(argsA, '-smp'), '1');
    assert.equal(argAfter(argsA, '-m'), '64');

    const qmp = await QmpClient.connect(path.join(dir, `${a}.qmp`));
    try {
      assert.deepEqual(await qmp.queryStatus(), { status: 'running', running: true, singlestep: false });
    } finally {
      qmp.close();
    }
  });

  it('lists by tags (every pair must match)', async () => {
    const ids = async (tags: Record<string, string>) => (await provider.listInstances(tags)).map((i) => i.id).sort();
    assert.deepEqual(await ids({}), [a, b].sort());
    assert.deepEqual(await ids({ cluster: 'c1' }), [a, b].sort());
    assert.deepEqual(await ids({ cluster: 'c1', role: 'b' }), [b]);
    assert.deepEqual(await ids({ cluster: 'c2' }), []);
    const [vb] = await provider.listInstances({ role: 'b' });
    assert.deepEqual(vb.tags, { cluster: 'c1', role: 'b' });
    assert.equal(vb.state, 'running');
  });

  it('adopts the running VM with the same name instead of starting a second one', async () => {
    const again = await provider.createInstance(request('web-0', 'aaaaaaaa-other-suffix', { tags: { cluster: 'c1' } }));
    assert.equal(again.id, a);
    assert.equal((await provider.listInstances({})).length, 2);
    assert.equal((await findPidsWithArg(a)).length, 1);
  });

  it('a fresh provider on the same state dir lists and deletes what the first one made', async () => {
    const restarted = new QemuProvider({}, { stateDir: dir, logger: silent });
    const before = await provider.listInstances({});
    const listed = await restarted.listInstances({});
    assert.deepEqual(
      listed.map((i) => [i.id, i.name, i.createdAt.toISOString(), i.ips[0]]),
      before.map((i) => [i.id, i.name, i.createdAt.toISOString(), i.ips[0]]),
    );
    const pid = await pidOf(a);
    const t0 = performance.now();
    await restarted.deleteInstance(a);
    timings.push(`delete (QMP quit) ${(performance.now() - t0).toFixed(0)} ms`);
    assert.equal(await cmdlineArgs(pid).then((args) => args?.includes(a) ?? false), false);
    assert.deepEqual(
      (await restarted.listInstances({})).map((i) => i.id),
      [b],
    );
    assert.ok(!(await readdir(dir)).some((f) => f.startsWith(a)), 'record, socket and log removed');
  });

  it('deleting twice, or an ID it never had, is success', async () => {
    await provider.deleteInstance(a);
    await provider.deleteInstance('00000000-0000-4000-8000-000000000000');
  });

  it('rejects IDs that are not UUIDs', async () => {
    await assert.rejects(provider.deleteInstance('../etc'), InvalidInstanceIdError);
    await assert.rejects(provider.deleteInstance(''), InvalidInstanceIdError);
  });

  it('a VM killed behind its back is reported gone by list and deletes fine', async () => {
    const pid = await pidOf(b);
    process.kill(pid, 'SIGKILL');
    await waitFor('killed QEMU to exit', async () => ((await findPidsWithArg(b)).length ? undefined : true), {
      timeoutMs: 5000,
    });
    assert.deepEqual(await provider.listInstances({}), []);
    assert.ok(!(await readdir(dir)).some((f) => f.endsWith('.json')), 'stale record cleaned');
    await provider.deleteInstance(b);
  });

  it('a VM outlives the process that created it, and is deleted from another', async () => {
    const script = `
      import { QemuProvider } from './src/peerpod/providers/qemu/provider.ts';
      import { pino } from 'pino';
      const p = new QemuProvider({}, { stateDir: ${JSON.stringify(dir)}, logger: pino({ level: 'silent' }) });
      const vm = await p.createInstance({ podName: 'detached', podNamespace: 'ns', sandboxId: 'cccccccc', vcpus: 1, memoryMiB: 64, tags: { from: 'child' } });
      console.log(vm.id);`;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      timeout: 30_000,
    });
    const id = stdout.trim();
    const [vm] = await provider.listInstances({ from: 'child' });
    assert.equal(vm?.id, id);
    assert.equal(vm.name, 'podvm-detached-cccccccc');
    await pidOf(id);
    await provider.deleteInstance(id);
    assert.deepEqual(await findPidsWithArg(id), []);
  });

  it('a QEMU that exits during start fails the create and leaves nothing behind', async () => {
    const broken = new QemuProvider({ QEMU_BINARY: '/bin/false' }, { stateDir: dir, logger: silent });
    await assert.rejects(broken.createInstance(request('broken', 'dddddddd')), (err: Error) => {
      assert.ok(err instanceof ProviderError);
      assert.match(err.message, /qemu exited during start/);
      return true;
    });
    assert.deepEqual(await provider.listInstances({}), []);
    assert.ok(!(await readdir(dir)).some((f) => f.endsWith('.json')));
  });

  it('verifyConfig checks the binary, the numbers and the state dir', async () => {
    await provider.verifyConfig();
    const bad = new QemuProvider(
      { QEMU_BINARY: '/nonexistent/qemu', QEMU_DEFAULT_MEMORY: 'lots' },
      { stateDir: dir, logger: silent },
    );
    await assert.rejects(bad.verifyConfig(), (err: Error) => {
      assert.ok(err instanceof ProviderConfigError);
      assert.match(err.message, /QEMU_BINARY/);
      assert.match(err.message, /QEMU_DEFAULT_MEMORY/);
      return true;
    });
  });

  it('measures one create and one delete', async () => {
    const t0 = performance.now();
    const vm = await provider.createInstance(request('timing', 'eeeeeeee'));
    const t1 = performance.now();
    await provider.deleteInstance(vm.id);
    const t2 = performance.now();
    timings.push(`create ${(t1 - t0).toFixed(0)} ms`, `delete ${(t2 - t1).toFixed(0)} ms`);
    assert.ok(t1 - t0 < 10_000);
  });
});
