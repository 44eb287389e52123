// peerpods/testing under the other test runners operator projects use: vitest and jest each run
// the same small suite (test/testing/runners/{vitest,jest}/), which imports the package by name,
// so through package.json `exports` and the built dist/ as a consumer gets it. jest runs it as
// native ES modules in its own vm realm: objects made there have another Object.prototype than
// those structuredClone returns, which is why the project compares JSON with deepEqual, never
// with node:util's isDeepStrictEqual.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.ts';

const RUNNERS = join(ROOT, 'test/testing/runners');

interface Run {
  code: number;
  output: string;
}

function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 300_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

/** Runs a runner with its own TMPDIR, so what the environments it started left there can be seen. */
async function runIsolated(args: string[]): Promise<Run & { leftInTmp: string[] }> {
  const tmp = mkdtempSync(join(tmpdir(), 'peerpods-runner-'));
  try {
    const result = await run(args, { TMPDIR: tmp, CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0' });
    return { ...result, leftInTmp: readdirSync(tmp).filter((f) => f.startsWith('peerpods-testenv-')) };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

describe('peerpods/testing under vitest', () => {
  before(async () => {
    // The runners import the built package: build this checkout first (incremental, so quick when
    // nothing changed).
    const build = await new Promise<Run>((resolve) =>
      execFile('npm', ['run', 'build'], { cwd: ROOT, timeout: 600_000, maxBuffer: 16 * 1024 * 1024 }, (err, o, e) =>
        resolve({ code: err ? 1 : 0, output: `${o}\n${e}` }),
      ),
    );
    assert.equal(build.code, 0, build.output);
  });

  it('vitest runs the suite and every test passes', async () => {
    const { code, output, leftInTmp } = await runIsolated([
      join(ROOT, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--config',
      join(RUNNERS, 'vitest/vitest.config.mjs'),
    ]);
    assert.equal(code, 0, output);
    assert.match(output, /Tests\s+4 passed \(4\)/);
    assert.deepEqual(leftInTmp, [], 'the environments removed their temporary directories');
  });
});

describe('peerpods/testing under jest', () => {
  it('jest runs the suite as native ES modules and every test passes', async () => {
    const { code, output, leftInTmp } = await runIsolated([
      '--experimental-vm-modules',
      join(ROOT, 'node_modules/jest/bin/jest.js'),
      '--ci',
      '--config',
      join(RUNNERS, 'jest/jest.config.mjs'),
    ]);
    assert.equal(code, 0, output);
    assert.match(output, /Tests:\s+4 passed, 4 total/);
    assert.deepEqual(leftInTmp, [], 'the environments removed their temporary directories');
  });
});
