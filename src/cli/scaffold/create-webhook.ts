// `peerpods create webhook`: defaulting and validation webhooks for a kind that has its types; the
// server wiring and manifests come with the project's first webhook.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ScaffoldError } from './errors.ts';
import { scaffold } from './files.ts';
import type { Insertion, NewFile } from './files.ts';
import { checkGroup, checkKind, checkVersion } from './names.ts';
import { findResource, readProject, writeProject } from './project.ts';
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
  if (o.conversion) {
    const versions = p.resources.filter((x) => x.group === group && x.kind === kind && x.api);
    if (versions.length < 2) {
      throw new ScaffoldError(
        `--conversion needs a second version of ${kind}: create one with peerpods create api --version … first`,
      );
    }
    // Refused rather than half-done: peerpods/runtime has no ConversionReview server yet.
    throw new ScaffoldError('--conversion is not supported yet: peerpods/runtime serves admission webhooks only');
  }
  const defaulting = o.defaulting ?? false;
  const validation = o.programmaticValidation ?? false;
  if (!defaulting && !validation) {
    throw new ScaffoldError('choose at least one of --defaulting and --programmatic-validation');
  }
  if (r.webhooks?.defaulting || r.webhooks?.validation || existsSync(path.join(dir, webhookModule(r)))) {
    throw new ScaffoldError(`${kind} ${group}/${version} already has webhooks (${webhookModule(r)})`);
  }

  const first = !p.resources.some((x) => x.webhooks?.defaulting || x.webhooks?.validation);
  const files: NewFile[] = [...(first ? serverFiles(p) : []), ...kindWebhookFiles(p, r, { defaulting, validation })];
  const insertions: Insertion[] = [
    ...(first ? serverInsertions() : []),
    ...kindWebhookInsertions(p, r, { defaulting, validation }),
  ];
  const written = await scaffold(dir, files, insertions);
  r.webhooks = { ...r.webhooks, defaulting, validation };
  await writeProject(dir, p);
  return written;
}
