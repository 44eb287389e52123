// `peerpods generate` (kubebuilder's `make manifests`): config/crd/bases from src/api/crds.ts,
// config/rbac/role.yaml from src/controller/rbac.ts and config/webhook/manifests.yaml from
// src/webhook/webhooks.ts. Idempotent; a generated file edited by hand is kept unless --force.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { KubeObject, PolicyRule } from '../../runtime/index.ts';
import { ScaffoldError } from './errors.ts';
import { stateOf, withHeader } from './generated-file.ts';
import { loadExports } from './load.ts';
import { crdFileName, managerRole, mergeCrds, toYaml, webhookConfigurations } from './manifests.ts';
import type { WebhookDeclaration } from './manifests.ts';
import { readProject } from './project.ts';
import type { ProjectFile } from './project.ts';

export interface GenerateOptions {
  dir?: string;
  force?: boolean;
}

export interface GenerateResult {
  written: string[];
  unchanged: string[];
}

export const ROLE_FILE = 'config/rbac/role.yaml';
export const WEBHOOK_FILE = 'config/webhook/manifests.yaml';

/** Every generated file of a project, path → content (header included). */
export function renderManifests(
  p: ProjectFile,
  crds: KubeObject[],
  rules: PolicyRule[],
  hooks: WebhookDeclaration[],
): Map<string, string> {
  const files = new Map<string, string>();
  for (const crd of mergeCrds(p, crds)) files.set(crdFileName(crd), withHeader(toYaml(crd)));
  files.set(ROLE_FILE, withHeader(toYaml(managerRole(p, rules))));
  const configs = webhookConfigurations(p, hooks);
  if (configs.length) files.set(WEBHOOK_FILE, withHeader(configs.map(toYaml).join('---\n')));
  return files;
}

export async function generate(o: GenerateOptions): Promise<GenerateResult> {
  const dir = path.resolve(o.dir ?? '.');
  const p = readProject(dir);
  const [crds, rules, hooks] = await loadExports(dir, [
    { module: 'src/api/crds.ts', name: 'crds' },
    { module: 'src/controller/rbac.ts', name: 'rules' },
    { module: 'src/webhook/webhooks.ts', name: 'webhooks' },
  ]);
  if (!Array.isArray(crds) || !Array.isArray(rules) || !Array.isArray(hooks)) {
    throw new ScaffoldError('crds, rules and webhooks must be arrays');
  }
  const files = renderManifests(p, crds as KubeObject[], rules as PolicyRule[], hooks as WebhookDeclaration[]);

  const current = new Map<string, string | undefined>();
  for (const rel of files.keys()) {
    const file = path.join(dir, rel);
    current.set(rel, existsSync(file) ? await readFile(file, 'utf8') : undefined);
  }
  const edited = [...current].filter(
    ([rel, text]) => text !== undefined && text !== files.get(rel) && stateOf(text) === 'edited',
  );
  if (edited.length && !o.force) {
    throw new ScaffoldError(
      `refusing to overwrite generated file(s) edited by hand: ${edited.map(([rel]) => rel).join(', ')} (move your changes into the code, or pass --force)`,
    );
  }
  const result: GenerateResult = { written: [], unchanged: [] };
  for (const [rel, content] of files) {
    if (current.get(rel) === content) {
      result.unchanged.push(rel);
      continue;
    }
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), content);
    result.written.push(rel);
  }
  return result;
}
