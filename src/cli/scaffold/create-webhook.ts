// `peerpods create webhook`: defaulting and validation webhooks for a kind that has its types, and
// its conversion webhook when it has several versions (--version names the hub); the server wiring
// and manifests come with the project's first webhook.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ScaffoldError } from './errors.ts';
import { scaffold } from './files.ts';
import type { Insertion, NewFile } from './files.ts';
import { checkGroup, checkKind, checkVersion } from './names.ts';
import { findResource, readProject, writeProject } from './project.ts';
import type { ProjectFile, ResourceEntry } from './project.ts';
import { apiNames } from './templates/api.ts';
import {
  CONVERSION_MODULE,
  conversionSchemeFile,
  conversionSchemeInsertions,
  kindConversionFiles,
  kindConversionInsertions,
} from './templates/conversion.ts';
import {
  kindWebhookFiles,
  kindWebhookInsertions,
  serverFiles,
  serverInsertions,
  webhookModule,
} from './templates/webhook.ts';

export interface CreateWebhookOptions {
  group: string;
  version: string;
  kind: string;
  defaulting?: boolean;
  programmaticValidation?: boolean;
  conversion?: boolean;
  dir?: string;
}

export async function createWebhook(o: CreateWebhookOptions): Promise<string[]> {
  const dir = path.resolve(o.dir ?? '.');
  const p = readProject(dir);
  const group = checkGroup(o.group);
  const version = checkVersion(o.version);
  const kind = checkKind(o.kind);
  const r = findResource(p, group, version, kind);
  if (!r?.api) {
    throw new ScaffoldError(
      `${kind} ${group}/${version} has no types: run peerpods create api --group ${group} --version ${version} --kind ${kind} first`,
    );
  }
  const defaulting = o.defaulting ?? false;
  const validation = o.programmaticValidation ?? false;
  const conversion = o.conversion ?? false;
  if (!defaulting && !validation && !conversion) {
    throw new ScaffoldError('choose at least one of --defaulting, --programmatic-validation and --conversion');
  }
  const admission = defaulting || validation;
  if (admission && (r.webhooks?.defaulting || r.webhooks?.validation || existsSync(path.join(dir, webhookModule(r))))) {
    throw new ScaffoldError(`${kind} ${group}/${version} already has webhooks (${webhookModule(r)})`);
  }
  const spokes = conversion ? conversionSpokes(dir, p, r) : [];

  const anyWebhook = (x: ResourceEntry) => x.webhooks?.defaulting || x.webhooks?.validation || x.webhooks?.conversion;
  const first = !p.resources.some(anyWebhook);
  const firstConversion = conversion && !existsSync(path.join(dir, CONVERSION_MODULE));
  const files: NewFile[] = [
    ...(first ? serverFiles(p) : []),
    ...(admission ? kindWebhookFiles(p, r, { defaulting, validation }) : []),
    ...(firstConversion ? [conversionSchemeFile()] : []),
    ...(conversion ? kindConversionFiles(p, r, spokes) : []),
  ];
  const insertions: Insertion[] = [
    ...(first ? serverInsertions() : []),
    ...(admission ? kindWebhookInsertions(p, r, { defaulting, validation }) : []),
    ...(firstConversion ? conversionSchemeInsertions() : []),
    ...(conversion ? kindConversionInsertions(p, r, spokes) : []),
  ];
  const written = await scaffold(dir, files, insertions);
  r.webhooks = {
    ...r.webhooks,
    ...(admission ? { defaulting, validation } : {}),
    ...(conversion ? { conversion } : {}),
  };
  await writeProject(dir, p);
  return written;
}

/**
 * The versions converting through `hub` (the --version given): every other version of the kind.
 * The hub is the storage version, as kubebuilder's tutorial has it: objects then convert on the
 * way in and out of storage only when they are written or read in a spoke.
 */
function conversionSpokes(dir: string, p: ProjectFile, hub: ResourceEntry): ResourceEntry[] {
  const versions = p.resources.filter((x) => x.group === hub.group && x.kind === hub.kind && x.api);
  if (versions.length < 2) {
    throw new ScaffoldError(
      `--conversion needs a second version of ${hub.kind}: create one with peerpods create api --version … first`,
    );
  }
  const converted = versions.find((x) => x.webhooks?.conversion);
  if (converted) {
    throw new ScaffoldError(`${hub.kind} already has a conversion webhook (hub ${converted.version})`);
  }
  const types = path.join(dir, apiNames(p, hub).typesModule);
  if (existsSync(types) && /^\s*storage:\s*false\b/m.test(readFileSync(types, 'utf8'))) {
    const stored = versions.find(
      (x) =>
        x !== hub && /^\s*storage:\s*true\b/m.test(readFileSync(path.join(dir, apiNames(p, x).typesModule), 'utf8')),
    );
    throw new ScaffoldError(
      `${hub.kind} ${hub.version} is not the storage version, and the hub of a conversion must be: ${stored ? `run this with --version ${stored.version}, ` : ''}or move storage: true to ${hub.version}`,
    );
  }
  return versions.filter((x) => x !== hub);
}
