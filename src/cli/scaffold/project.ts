// The PROJECT file (kubebuilder's name and role): what `init` and `create` recorded, so later
// commands know the domain, the package name and every resource without parsing TypeScript.
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { ScaffoldError } from './errors.ts';

export const PROJECT_FILE = 'PROJECT';
export const LAYOUT = 'peerpods.io/v1';

export interface WebhookFlags {
  defaulting?: boolean;
  validation?: boolean;
  conversion?: boolean;
}

export interface ResourceEntry {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  /** The types file and CRD were scaffolded. */
  api: boolean;
  controller: boolean;
  webhooks?: WebhookFlags;
}

export interface ProjectFile {
  layout: string;
  domain: string;
  repo: string;
  /** Kubernetes name of the operator: namespace `<name>-system`, ServiceAccount, Lease, … */
  projectName: string;
  resources: ResourceEntry[];
}

export function fullGroup(p: ProjectFile, group: string): string {
  return `${group}.${p.domain}`;
}

/** Reads PROJECT in `dir`, refusing to work outside a scaffolded project. */
export function readProject(dir: string): ProjectFile {
  const file = path.join(dir, PROJECT_FILE);
  if (!existsSync(file)) {
    throw new ScaffoldError(
      `no ${PROJECT_FILE} file in ${dir}: run \`peerpods init\` first, or run this in the project's directory`,
    );
  }
  const p = parse(readFileSync(file, 'utf8')) as Partial<ProjectFile> | null;
  if (!p || p.layout !== LAYOUT || !p.domain || !p.repo || !p.projectName) {
    throw new ScaffoldError(`${file} is not a peerpods project file (layout ${LAYOUT})`);
  }
  return { ...(p as ProjectFile), resources: p.resources ?? [] };
}

export async function writeProject(dir: string, p: ProjectFile): Promise<void> {
  const header = '# Written by `peerpods init` and `peerpods create`; it records what they scaffolded.\n';
  await writeFile(path.join(dir, PROJECT_FILE), header + stringify(p));
}

export function findResource(p: ProjectFile, group: string, version: string, kind: string): ResourceEntry | undefined {
  return p.resources.find((r) => r.group === group && r.version === version && r.kind === kind);
}
