// `peerpods init`: a new operator project in the current (or given) directory.
import { existsSync, readdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ScaffoldError } from './errors.ts';
import { writeNewFiles } from './files.ts';
import { checkDomain, checkRepo, objectNameOf } from './names.ts';
import { LAYOUT, PROJECT_FILE, writeProject } from './project.ts';
import type { ProjectFile } from './project.ts';
import { initFiles } from './templates/init.ts';

export interface InitOptions {
  domain: string;
  repo: string;
  owner?: string;
  /** Project directory. Default the current one. */
  dir?: string;
}

/** Directory entries `init` tolerates, as kubebuilder does for a fresh `git init` or editor config. */
const HARMLESS = new Set(['.git', '.gitignore', '.idea', '.vscode', 'LICENSE', 'README.md']);

export async function init(o: InitOptions): Promise<string[]> {
  const dir = path.resolve(o.dir ?? '.');
  const p: ProjectFile = {
    layout: LAYOUT,
    domain: checkDomain(o.domain),
    repo: checkRepo(o.repo),
    projectName: objectNameOf(o.repo),
    resources: [],
  };
  if (existsSync(path.join(dir, PROJECT_FILE)))
    throw new ScaffoldError(`${dir} already holds a project (${PROJECT_FILE})`);
  if (existsSync(dir)) {
    const unexpected = readdirSync(dir).filter((f) => !HARMLESS.has(f));
    if (unexpected.length) {
      throw new ScaffoldError(
        `${dir} is not empty (${unexpected.slice(0, 5).join(', ')}): init needs an empty directory`,
      );
    }
  }
  await mkdir(dir, { recursive: true });
  const files = initFiles(p, o.owner).filter((f) => !(HARMLESS.has(f.path) && existsSync(path.join(dir, f.path))));
  const written = await writeNewFiles(dir, files);
  await writeProject(dir, p);
  return [...written, PROJECT_FILE];
}
