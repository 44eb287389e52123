// This package as a user gets it: `npm pack` of the checkout, installed into a project outside the
// repository. Everything is spawned asynchronously, so a control plane running in the same test
// process keeps serving while npm works.
import { execFile } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './cli.ts';

const execFileAsync = promisify(execFile);

/** Flags of every install: the npm cache first, no audit or funding chatter. */
export const INSTALL_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund'] as const;

let packed: Promise<string> | undefined;

/**
 * The path of `npm pack`'s tarball of this checkout, made once per test process in a temporary
 * directory outside the repository (removed when the process exits). `npm pack` runs `prepare`, so
 * the tarball holds a fresh build.
 */
export function packedTarball(): Promise<string> {
  packed ??= (async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'peerpods-pack-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const { stdout } = await execFileAsync('npm', ['pack', '--json', '--pack-destination', dir], {
      cwd: ROOT,
      maxBuffer: 64 * 1024 * 1024,
    });
    // `prepare` output may precede the JSON report.
    const report = JSON.parse(stdout.slice(stdout.indexOf('[\n'))) as { filename: string }[];
    return path.join(dir, report[0].filename);
  })();
  return packed;
}

/**
 * Runs `npm install` in `dir` (adding `deps`, e.g. a tarball path or `typescript@5.9.3`), writing
 * a minimal ESM package.json first when there is none. Resolves with npm's output.
 */
export async function installProject(dir: string, deps: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const manifest = path.join(dir, 'package.json');
  if (!existsSync(manifest)) {
    await writeFile(manifest, `${JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2)}\n`);
  }
  const { stdout, stderr } = await execFileAsync('npm', ['install', ...INSTALL_FLAGS, ...deps], {
    cwd: dir,
    env: { ...process.env, ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout + stderr;
}
