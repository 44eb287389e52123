// `peerpods create api`: a kind's types and CRD registration (--resource), its controller with RBAC
// declarations and a test (--controller), and a sample. Run again with another --version, it adds
// that version of the kind (served, not stored; no second controller unless asked).
import path from 'node:path';
import { ScaffoldError } from './errors.ts';
import { scaffold } from './files.ts';
import type { Insertion, NewFile } from './files.ts';
import { checkGroup, checkKind, checkVersion, pluralOf } from './names.ts';
import { findResource, readProject, writeProject } from './project.ts';
import type { ResourceEntry } from './project.ts';
import { controllerFiles, controllerInsertions, typesFiles, typesInsertions } from './templates/api.ts';

export interface CreateApiOptions {
  group: string;
  version: string;
  kind: string;
  resource?: boolean;
  controller?: boolean;
  namespaced?: boolean;
  dir?: string;
}

export async function createApi(o: CreateApiOptions): Promise<string[]> {
  const dir = path.resolve(o.dir ?? '.');
  const p = readProject(dir);
  const group = checkGroup(o.group);
  const version = checkVersion(o.version);
  const kind = checkKind(o.kind);
  const resource = o.resource ?? true;
  // One controller per kind: a kind's second version comes without one unless asked.
  const kindHasController = p.resources.some((r) => r.group === group && r.kind === kind && r.controller);
  const controlledElsewhere = p.resources.some(
    (r) => r.group === group && r.kind === kind && r.version !== version && r.controller,
  );
  const controller = o.controller ?? !controlledElsewhere;
  if (!resource && !controller) throw new ScaffoldError('nothing to do: both --resource=false and --controller=false');

  const existing = findResource(p, group, version, kind);
  if (resource && existing?.api) throw new ScaffoldError(`${kind} ${group}/${version} already has its types`);
  if (controller && existing?.controller)
    throw new ScaffoldError(`${kind} ${group}/${version} already has a controller`);
  if (!resource && !existing?.api) {
    throw new ScaffoldError(`${kind} ${group}/${version} has no types yet: create them with --resource`);
  }
  if (controller && kindHasController) {
    throw new ScaffoldError(`${kind}.${group} already has a controller (one per kind, for its storage version)`);
  }
  const namespaced = existing?.namespaced ?? o.namespaced ?? true;
  const sibling = p.resources.find((r) => r.group === group && r.kind === kind && r.api);
  if (sibling && sibling.namespaced !== namespaced) {
    throw new ScaffoldError(
      `${kind}.${group} is ${sibling.namespaced ? 'namespaced' : 'cluster-scoped'} in ${sibling.version}`,
    );
  }

  const entry: ResourceEntry = existing ?? {
    group,
    version,
    kind,
    plural: pluralOf(kind),
    namespaced,
    api: false,
    controller: false,
  };
  const files: NewFile[] = [];
  const insertions: Insertion[] = [];
  if (resource) {
    const laterVersion = sibling !== undefined;
    files.push(...typesFiles(p, entry, laterVersion));
    insertions.push(...typesInsertions(p, entry, laterVersion));
  }
  if (controller) {
    files.push(...controllerFiles(p, entry));
    insertions.push(...controllerInsertions(p, entry));
  }
  const written = await scaffold(dir, files, insertions);
  entry.api ||= resource;
  entry.controller ||= controller;
  if (!existing) p.resources.push(entry);
  await writeProject(dir, p);
  return written;
}
