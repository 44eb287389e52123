// `peerpods demo` through the real CLI on QEMU: exit 0 and a ✓ line for every step, including the
// over-the-limit, failure-path and orphan-sweep steps; no VM process left afterwards.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { demoSteps, qemuProcessesUnder } from '../../src/peerpod/index.ts';
import { STATE_TMPDIR, runCli } from '../helpers/cli.ts';

describe('peerpods demo (qemu)', { timeout: 120_000 }, () => {
  it('every step holds and the command exits 0', async () => {
    const run = runCli(['demo', '--provider', 'qemu']);
    const { code } = await run.exited;
    const out = run.output();
    assert.equal(code, 0, out);
    const stepLines = out.split('\n').filter((l) => /^[✓✗] +\d+\./.test(l));
    assert.equal(stepLines.length, demoSteps().length, out);
    assert.ok(
      stepLines.every((l) => l.startsWith('✓')),
      out,
    );
    for (const want of [
      /Insufficient kata\.peerpods\.io\/vm/,
      /-smp 2 -m 256/,
      /PeerPod controller deletes the VM/,
      /swept after/,
    ]) {
      assert.match(out, want);
    }
    assert.match(out, /all \d+ steps held/);
    const demoDir = /state and logs in (\S+)/.exec(out)?.[1] ?? `${STATE_TMPDIR}/peerpods-demo-`;
    assert.deepEqual(await qemuProcessesUnder(demoDir), []);
  });
});
