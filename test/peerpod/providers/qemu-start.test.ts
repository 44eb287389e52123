// The qemu provider's start check with real QEMU launched through a chain of wrappers (a shim that
// puts QEMU's arguments aside, execs a second stage showing none of them, which execs QEMU after a
// delay): for that while, /proc/<pid>/cmdline says nothing about the VM, as it does for a moment
// in every exec. The launch must be seen through (not taken for an exit), an abandoned launch must
// be stopped, and at every point each QEMU process under the state directory is one list shows.
import assert from 'node:assert/strict';
import { chmod, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cmdlineArgs, findPidsWithArg, liveProcessStat } from '../../../src/peerpod/providers/procfs.ts';
import { QemuProvider } from '../../../src/peerpod/providers/qemu/provider.ts';
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

/** Every QEMU process under `dir` is a VM list returns, and the other way round. */
async function assertAccountedFor(provider: QemuProvider, dir: string, what: string): Promise<void> {
  const listed = (await provider.listInstances({})).map((vm) => vm.id).sort();
  const running: string[] = [];
  for (const pid of await qemuUnder(dir)) {
    const args = (await cmdlineArgs(pid)) ?? [];
    running.push(args[args.indexOf('-uuid') + 1]);
  }
  assert.deepEqual(running.sort(), listed, `${what}: QEMU processes = listed VMs`);
}

describe('qemu provider start through a wrapper chain (real QEMU)', () => {
  let dir: string;
  let shim: string;

  before(async () => {
    dir = await tempDir('pp-qemu-shim');
    shim = path.join(dir, 'shim.sh');
    // Stage 1 keeps the arguments in a file named by its PID (which every exec keeps) and execs
    // stage 2, whose command line shows none of them; stage 2 waits, then execs QEMU.
    await writeFile(
      shim,
      ['#!/bin/sh', 'printf "%s\\n" "$@" > "$0.$$.args"', 'exec /bin/sh "$0.stage2" "$$"', ''].join('\n'),
    );
    await writeFile(
      `${shim}.stage2`,
      [
        '#!/bin/sh',
        'args="$0"; args="${args%.stage2}.$1.args"',
        'sleep "${SHIM_DELAY:-1}"',
        'set --',
        'while IFS= read -r a; do set -- "$@" "$a"; done < "$args"',
        'rm -f "$args"',
        'exec qemu-system-x86_64 "$@"',
        '',
      ].join('\n'),
    );
    await chmod(shim, 0o755);
  });

  after(async () => {
    try {
      for (const sub of ['through', 'abandoned', 'chain']) {
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

  it('waits through the wrapper (no "exited during start"), lists the VM while it starts, and leaves none unlisted', async () => {
    // Long enough for a listing to fall inside the wrapper's time on a busy machine.
    process.env.SHIM_DELAY = '3';
    const state = path.join(dir, 'through');
    const provider = new QemuProvider({ QEMU_BINARY: shim }, { stateDir: state, logger: silent });
    const observer = new QemuProvider({}, { stateDir: state, logger: silent });
    const creating = provider.createInstance(request('shim-0', 'aaaaaaaa0000', { vcpus: 1, memoryMiB: 64 }));
    let failed: unknown;
    creating.catch((err: unknown) => (failed = err));
    // Another process (the orphan sweep, the start-up reaper) listing meanwhile must see the VM as
    // starting, and must not take the wrapper for a dead VM and drop its record.
    const seen = await waitFor(
      'the VM listed as starting while the wrapper runs',
      async () => {
        if (failed) throw failed;
        return (await observer.listInstances({})).find((vm) => vm.state === 'starting');
      },
      { timeoutMs: 10_000, intervalMs: 20 },
    );
    delete process.env.SHIM_DELAY;
    const vm = await creating;
    assert.equal(seen.id, vm.id);
    assert.equal(vm.state, 'running');
    const listed = await observer.listInstances({});
    assert.deepEqual(
      listed.map((x) => [x.id, x.state]),
      [[vm.id, 'running']],
    );
    await assertAccountedFor(observer, state, 'after the create');
    await provider.deleteInstance(vm.id);
    assert.deepEqual(await qemuUnder(state), [], 'no QEMU left after the delete');
    assert.deepEqual(await observer.listInstances({}), []);
  });

  it('a launch that does not come up in time is stopped through the wrapper, never leaked', async () => {
    process.env.SHIM_DELAY = '8';
    try {
      const state = path.join(dir, 'abandoned');
      const provider = new QemuProvider(
        { QEMU_BINARY: shim },
        { stateDir: state, logger: silent, startTimeoutMs: 3000 },
      );
      const outcome = provider.createInstance(request('shim-1', 'bbbbbbbb1111')).then(
        () => new Error('the create succeeded'),
        (err: unknown) => err,
      );
      const wrappers = await waitFor(
        'the wrapper to run',
        async () => {
          const pids = [...(await findPidsWithArg(shim)), ...(await findPidsWithArg(`${shim}.stage2`))];
          return pids.length ? pids : undefined;
        },
        { timeoutMs: 10_000, intervalMs: 10 },
      );
      assert.match(String(await outcome), /timed out after 3000 ms waiting for QMP/);
      // The wrapper (whatever stage it was in) is stopped, so no QEMU can appear later; left
      // alone, it would exec QEMU 8 s after it started.
      for (const pid of wrappers) {
        await waitFor(`wrapper ${pid} to exit`, async () => ((await liveProcessStat(pid)) ? undefined : true), {
          timeoutMs: 5000,
        });
      }
      assert.deepEqual(await qemuUnder(state), []);
      await assertAccountedFor(provider, state, 'after the failed create');
    } finally {
      delete process.env.SHIM_DELAY;
    }
  });

  it('repeated launches through an exec chain without delay all start and are all accounted for', async () => {
    process.env.SHIM_DELAY = '0';
    try {
      const state = path.join(dir, 'chain');
      const provider = new QemuProvider({ QEMU_BINARY: shim }, { stateDir: state, logger: silent });
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push((await provider.createInstance(request(`chain-${i}`, `cccccccc000${i}`))).id);
        await assertAccountedFor(provider, state, `after launch ${i}`);
      }
      for (const id of ids) await provider.deleteInstance(id);
      assert.deepEqual(await qemuUnder(state), []);
    } finally {
      delete process.env.SHIM_DELAY;
    }
  });
});
