// The VM's PID comes from QEMU itself (`-pidfile`, written once QEMU is up), not only from the
// process the provider spawned: through a wrapper that forks QEMU and stays as its parent, the
// record names QEMU, and stopping the VM stops QEMU. A pidfile naming a process that is not the VM
// (a stale file, a reused PID) is never trusted: the UUID scan still finds the VM and nothing
// else is signalled. Real QEMU.
import assert from 'node:assert/strict';
import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cmdlineArgs, findPidsWithArg, liveProcessStat } from '../../../src/peerpod/providers/procfs.ts';
import { QemuProvider } from '../../../src/peerpod/providers/qemu/provider.ts';
import { StateStore } from '../../../src/peerpod/providers/qemu/state.ts';
import { waitFor } from '../../../src/peerpod/providers/wait.ts';
import { request, silent, tempDir } from './helpers.ts';

/** PIDs of QEMU processes whose QMP socket lives under `dir`. */
async function qemuUnder(dir: string): Promise<number[]> {
  const out: number[] = [];
  for (const pid of await findPidsWithArg('-qmp')) {
    const args = (await cmdlineArgs(pid)) ?? [];
    if (args[0]?.includes('qemu-system') && args.some((a) => a.includes(dir))) out.push(pid);
  }
  return out;
}

describe('qemu provider: the VM PID from QEMU’s pidfile (real QEMU)', () => {
  let dir: string;
  let forking: string;

  before(async () => {
    dir = await tempDir('pp-qemu-pidfile');
    // A wrapper that forks QEMU and waits for it: the spawned process is the shell, never QEMU.
    forking = path.join(dir, 'fork.sh');
    await writeFile(forking, ['#!/bin/sh', 'qemu-system-x86_64 "$@" &', 'wait', ''].join('\n'));
    await chmod(forking, 0o755);
  });

  after(async () => {
    try {
      for (const sub of ['forked', 'stale']) {
        const p = new QemuProvider({}, { stateDir: path.join(dir, sub), logger: silent });
        for (const vm of await p.listInstances({})) await p.deleteInstance(vm.id);
      }
    } finally {
      for (const pid of await qemuUnder(dir)) process.kill(pid, 'SIGKILL');
      await waitFor('test QEMU processes to exit', async () => ((await qemuUnder(dir)).length ? undefined : true), {
        timeoutMs: 5000,
      });
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('records the PID QEMU wrote, not the forking wrapper’s, and delete stops that QEMU', async () => {
    const state = path.join(dir, 'forked');
    const provider = new QemuProvider({ QEMU_BINARY: forking }, { stateDir: state, logger: silent });
    const vm = await provider.createInstance(request('forked-0', 'dddddddd0000'));
    const store = new StateStore(state);
    const rec = await store.read(vm.id);
    assert.ok(rec?.pid);
    const written = Number((await readFile(store.pidFilePath(vm.id), 'utf8')).trim());
    assert.equal(rec.pid, written);
    assert.deepEqual(await qemuUnder(state), [written]);
    assert.match((await cmdlineArgs(written))?.[0] ?? '', /qemu-system/);
    // The identity kept with it is QEMU's own start time.
    assert.equal(rec.pidStartTime, (await liveProcessStat(written))?.startTime);

    await provider.deleteInstance(vm.id);
    assert.deepEqual(await qemuUnder(state), []);
    await assert.rejects(readFile(store.pidFilePath(vm.id)), { code: 'ENOENT' });
  });

  it('a pidfile naming another process is ignored: the VM is still found, and only QEMU is stopped', async () => {
    const state = path.join(dir, 'stale');
    const provider = new QemuProvider({}, { stateDir: state, logger: silent });
    const vm = await provider.createInstance(request('stale-0', 'eeeeeeee0000'));
    const store = new StateStore(state);
    const rec = await store.read(vm.id);
    assert.ok(rec?.pid);
    const qemu = rec.pid;
    // As after a restart from a record without the PID: the pidfile names this test process
    // (a reused PID), which must not be taken for the VM, let alone killed.
    await store.write({ ...rec, pid: null, pidStartTime: undefined });
    await writeFile(store.pidFilePath(vm.id), `${process.pid}\n`);
    const fresh = new QemuProvider({}, { stateDir: state, logger: silent });
    assert.deepEqual(
      (await fresh.listInstances({})).map((x) => [x.id, x.state]),
      [[vm.id, 'running']],
    );
    await fresh.deleteInstance(vm.id);
    await waitFor(`QEMU ${qemu} to exit`, async () => ((await liveProcessStat(qemu)) ? undefined : true), {
      timeoutMs: 5000,
    });
    assert.deepEqual(await qemuUnder(state), []);
  });
});
