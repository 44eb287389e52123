// The README's runtime example (examples/configmap-copy/main.ts), checked two ways: the README shows
// the same code as the file the typecheck compiles, and the file, run as a user would against a
// cluster (here the embedded control plane, through KUBECONFIG), copies labelled ConfigMaps.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ConfigMaps, KubeClient, Secrets, silentLogger } from '../../src/runtime/index.ts';
import type { KubeObject } from '../../src/runtime/index.ts';
import { eventually, startTestCluster } from '../helpers/control-plane.ts';
import type { TestCluster } from '../helpers/control-plane.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const example = path.join(root, 'examples/configmap-copy/main.ts');

/** Code with formatting and the import path normalised away (prettier wraps the file, not the README). */
function normalise(code: string): string {
  return code
    .replaceAll('../../src/runtime/index.ts', 'peerpods/runtime')
    .replace(/\s+/g, '')
    .replace(/,([)\]}])/g, '$1');
}

function readmeExample(): string {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Write a controller in 30 lines'));
  const m = /```ts\n([\s\S]*?)```/.exec(section);
  assert.ok(m, 'the README has the runtime example');
  return m[1];
}

/** The example binds the manager's default probe port; the run needs it free. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

it('the README shows examples/configmap-copy/main.ts', () => {
  const file = readFileSync(example, 'utf8').replace(/^\/\/[^\n]*\n/, '');
  assert.equal(normalise(readmeExample()), normalise(file));
});

describe('examples/configmap-copy/main.ts against the embedded control plane', () => {
  let cluster: TestCluster;
  let client: KubeClient;
  let child: ReturnType<typeof spawn> | undefined;
  let output = '';

  before(async () => {
    cluster = await startTestCluster();
    client = KubeClient.fromKubeconfigString(cluster.kubeconfig, { metricsRegistry: null, logger: silentLogger() });
  });
  after(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    client.close();
    await cluster.stop();
  });

  it('copies a labelled ConfigMap into an owned Secret, and only labelled ones', { timeout: 240_000 }, async () => {
    // The example keeps the manager's default probe port; another test may hold it briefly.
    await eventually(() => portFree(8080), {
      timeoutMs: 60_000,
      what: '127.0.0.1:8080 (the example’s probe port) to be free',
    });
    child = spawn(process.execPath, ['--import', 'tsx', example], {
      cwd: root,
      env: { ...process.env, KUBECONFIG: cluster.kubeconfigPath, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));

    const cm = await client.create<KubeObject & { data?: Record<string, string> }>(ConfigMaps, {
      metadata: { name: 'settings', namespace: 'default', labels: { copy: 'true' } },
      data: { color: 'blue' },
    });
    await client.create(ConfigMaps, { metadata: { name: 'plain', namespace: 'default' }, data: { a: 'b' } });

    // Generous: the child compiles the runtime with tsx first, on a machine the suite keeps busy.
    const secret = await eventually(
      () =>
        client
          .get<KubeObject & { data?: Record<string, string> }>(Secrets, 'settings-copy', 'default')
          .catch(() => undefined),
      { timeoutMs: 180_000, what: 'the Secret settings-copy' },
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; example exit code ${child?.exitCode}, output:\n${output}`);
    });
    assert.ok(secret);
    assert.equal(Buffer.from(secret.data?.color ?? '', 'base64').toString(), 'blue');
    const owner = secret.metadata.ownerReferences?.[0];
    assert.equal(owner?.uid, cm.metadata.uid);
    assert.equal(owner?.controller, true);
    await assert.rejects(client.get(Secrets, 'plain-copy', 'default'), (e: { code?: number }) => e.code === 404);
  });
});
