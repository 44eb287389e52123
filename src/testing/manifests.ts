// Reading the objects a test environment installs: given as objects, or as paths of YAML (or JSON)
// files and directories, as envtest's CRDInstallOptions.Paths and kubebuilder's config/crd/bases.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../apimachinery/index.ts';

/** An object, or the path of a manifest file or of a directory of them. */
export type ManifestSource = KubeObject | string;

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/** Every object of `kinds` in `sources`, in order; a missing path fails (a typo must not pass silently). */
export function readManifests(sources: readonly ManifestSource[], kinds: readonly string[]): KubeObject[] {
  const out: KubeObject[] = [];
  for (const source of sources) {
    const objects = typeof source === 'string' ? readPath(source) : [source];
    out.push(...objects.filter((o) => kinds.includes(o.kind ?? '')));
  }
  return out;
}

function readPath(path: string): KubeObject[] {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    throw new Error(`manifest path ${path} does not exist`);
  }
  if (!stat.isDirectory()) return readFile(path);
  // Directories are read one level deep and in name order, as envtest reads config/crd/bases.
  return readdirSync(path)
    .filter((name) => MANIFEST_EXTENSIONS.has(extname(name)))
    .sort()
    .flatMap((name) => readFile(join(path, name)));
}

function readFile(file: string): KubeObject[] {
  const text = readFileSync(file, 'utf8');
  const docs = parseAllDocuments(text);
  const out: KubeObject[] = [];
  for (const doc of docs) {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0].message}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`${file}: a document is not an object`);
    const obj = value as KubeObject;
    // A List (kubectl get -o yaml) carries its objects in items.
    if (obj.kind === 'List' && Array.isArray(obj.items)) out.push(...(obj.items as KubeObject[]));
    else out.push(obj);
  }
  return out;
}
