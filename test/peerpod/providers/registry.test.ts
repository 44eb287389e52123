// The registry: names, errors, config plumbing, and that cloud SDKs load only with their provider.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ProviderConfigError, UnknownProviderError } from '../../../src/peerpod/providers/errors.ts';
import { createProvider, isKnownProvider, KNOWN_PROVIDERS } from '../../../src/peerpod/providers/registry.ts';
import type { SimulatedProvider } from '../../../src/peerpod/providers/simulated.ts';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

describe('provider registry', () => {
  it('rejects unknown names, listing the known ones', async () => {
    await assert.rejects(createProvider('x', {}), (err: Error) => {
      assert.ok(err instanceof UnknownProviderError);
      assert.ok(err instanceof ProviderConfigError);
      assert.equal(err.message, 'unknown cloud provider "x" (known: aws, azure, gcp, libvirt, qemu, simulated)');
      return true;
    });
    assert.deepEqual([...KNOWN_PROVIDERS], ['aws', 'azure', 'gcp', 'libvirt', 'qemu', 'simulated']);
    assert.ok(isKnownProvider('qemu'));
    assert.ok(!isKnownProvider('ibmcloud'));
  });

  it('builds the simulated provider from config keys, options winning', async () => {
    const p = (await createProvider(
      'simulated',
      { SIMULATED_MAX_INSTANCES: '3', SIMULATED_LATENCY_MS: '5' },
      { simulated: { latencyMs: 0 } },
    )) as SimulatedProvider;
    assert.equal(p.name, 'simulated');
    assert.equal(p.options.maxInstances, 3);
    assert.equal(p.options.latencyMs, 0);
    await assert.rejects(createProvider('simulated', { SIMULATED_FAILURE_RATE: '2' }), /SIMULATED_FAILURE_RATE/);
  });

  it('loads a cloud SDK only when its provider is created', async () => {
    // A resolve hook in the child reports every SDK package it is asked to resolve.
    const hook = `let port; export function initialize(d) { port = d.port; }
      export async function resolve(s, c, next) { if (/^@(aws-sdk|azure|google-cloud)\\//.test(s)) port.postMessage(s); return next(s, c); }`;
    const script = `
      import { register } from 'node:module';
      import { MessageChannel } from 'node:worker_threads';
      const { port1, port2 } = new MessageChannel();
      const seen = new Set();
      port1.on('message', (m) => seen.add(m.split('/').slice(0, 2).join('/')));
      register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}), { data: { port: port2 }, transferList: [port2] });
      const { createProvider } = await import('./src/peerpod/providers/registry.ts');
      const tick = () => new Promise((r) => setTimeout(r, 100));
      await createProvider('simulated', {});
      await createProvider('qemu', { QEMU_STATE_DIR: '/tmp/unused-by-this-test' });
      await createProvider('libvirt', {});
      await tick();
      const local = [...seen];
      await createProvider('aws', { AWS_REGION: 'us-east-1' });
      await tick();
      console.log(JSON.stringify({ local, afterAws: [...seen] }));
      port1.close();`;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      timeout: 60_000,
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    });
    const { local, afterAws } = JSON.parse(stdout.trim().split('\n').pop()!) as { local: string[]; afterAws: string[] };
    assert.deepEqual(local, []);
    assert.deepEqual(afterAws, ['@aws-sdk/client-ec2']);
  });
});
