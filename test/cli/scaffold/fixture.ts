// A scaffolded project in a temporary directory, and a node_modules that resolves `peerpods/*` to
// this checkout's sources and `tsx` to its own, so `generate` can load the project's TypeScript
// without an npm install (the end-to-end test installs the packed tarball instead).
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../../helpers/cli.ts';

const PARTS = ['apimachinery', 'kube', 'runtime', 'testing'];

export async function tempDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'peerpods-scaffold-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** node_modules/peerpods re-exporting src/<part>/index.ts, and node_modules/tsx linked. */
export async function linkSources(project: string): Promise<void> {
  const pkg = path.join(project, 'node_modules', 'peerpods');
  await mkdir(pkg, { recursive: true });
  const exports: Record<string, string> = {};
  for (const part of PARTS) {
    exports[`./${part}`] = `./${part}.ts`;
    await writeFile(path.join(pkg, `${part}.ts`), `export * from '${path.join(ROOT, 'src', part, 'index.ts')}';\n`);
  }
  await writeFile(path.join(pkg, 'package.json'), JSON.stringify({ name: 'peerpods', type: 'module', exports }));
  await symlink(path.join(ROOT, 'node_modules', 'tsx'), path.join(project, 'node_modules', 'tsx'));
}
