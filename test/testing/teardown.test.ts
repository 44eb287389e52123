// stop() leaves nothing behind: no listening port, no connection, no child process, no temporary
// file, and no handle that keeps the test process alive (a runner would hang on it).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestEnv } from '../../src/testing/index.ts';
import { leftovers, type Leftovers } from './leftovers.ts';

const START_STOP = fileURLToPath(new URL('./fixtures/start-stop.ts', import.meta.url));

/** Resolves with the connect error's code, or 'connected'. */
function dial(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

interface Report {
  url: string;
  dir: string;
  webhookPort: number;
  before: Leftovers;
  during: Leftovers;
  after: Leftovers;
}

describe('stopping a test environment', () => {
  it('leaves no port, connection, child process, temporary file or open handle behind', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'peerpods-teardown-'));
    try {
      // Its own process, so "exits by itself" can be observed; its own TMPDIR, so every file the
      // environment made can be looked for.
      const out = await new Promise<string>((resolve, reject) => {
        execFile(
          process.execPath,
          ['--import', 'tsx', START_STOP],
          { env: { ...process.env, TMPDIR: tmp }, timeout: 120_000 },
          (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
        );
      });
      const report = JSON.parse(out) as Report;
      const apiPort = Number(new URL(report.url).port);
      // While running, the environment's servers were this process's and were in use.
      assert.deepEqual([...report.during.listeningPorts].sort(), [apiPort, report.webhookPort].sort());
      assert.ok(report.during.connections > 0);
      assert.deepEqual(report.after, { listeningPorts: [], connections: 0, children: report.before.children });
      assert.equal(report.dir.startsWith(tmp), true, `${report.dir} is under TMPDIR`);
      assert.equal(existsSync(report.dir), false);
      assert.deepEqual(
        readdirSync(tmp).filter((f) => f.startsWith('peerpods')),
        [],
      );
      assert.equal(await dial(apiPort), 'ECONNREFUSED');
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('is what Symbol.asyncDispose does, so `await using` cleans up', async () => {
    const before = leftovers();
    let url = '';
    let dir = '';
    {
      await using env = await startTestEnv({ nodes: 1 });
      url = env.url;
      dir = env.dir;
      assert.ok(existsSync(join(dir, 'kubeconfig')));
      assert.ok(leftovers().listeningPorts.includes(Number(new URL(url).port)));
    }
    assert.equal(existsSync(dir), false);
    assert.equal(await dial(Number(new URL(url).port)), 'ECONNREFUSED');
    assert.deepEqual(leftovers().children, before.children);
  });

  it('stop() is idempotent', async () => {
    const env = await startTestEnv({ nodes: 0 });
    await Promise.all([env.stop(), env.stop()]);
    await env.stop();
    assert.equal(existsSync(env.dir), false);
  });

  it('cleans up after a start that fails (a CRD path that does not exist)', async () => {
    const portsBefore = leftovers().listeningPorts;
    const tmp = mkdtempSync(join(tmpdir(), 'peerpods-failed-start-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      await assert.rejects(startTestEnv({ nodes: 0, crds: [join(tmp, 'missing')] }), /does not exist/);
      assert.deepEqual(readdirSync(tmp), []);
      assert.deepEqual(leftovers().listeningPorts, portsBefore);
    } finally {
      process.env.TMPDIR = saved;
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
