// Reading a kustomize directory the way `kubectl apply -k` would for plain layers: the files and
// directories its kustomization lists under `resources`, recursively. Transformers (namespace,
// namePrefix, patches, …) are refused rather than ignored, so what is applied is what is written.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../runtime/index.ts';

const KUSTOMIZATION = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];
const SUPPORTED = new Set(['apiVersion', 'kind', 'resources']);

function kustomizationIn(dir: string): string | undefined {
  return KUSTOMIZATION.map((f) => path.join(dir, f)).find((f) => existsSync(f));
}

function readObjects(file: string): KubeObject[] {
  const out: KubeObject[] = [];
  for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
    if (doc.errors.length) throw new Error(`${file}: ${doc.errors[0].message}`);
    const obj = doc.toJS() as KubeObject | null;
    if (obj) out.push(obj);
  }
  return out;
}

/** Every object of the kustomization in `dir` (or of a plain directory of YAML files), in listed order. */
export function readKustomize(dir: string, seen: Set<string> = new Set()): KubeObject[] {
  const abs = path.resolve(dir);
  if (seen.has(abs)) throw new Error(`${dir}: kustomization cycle`);
  seen.add(abs);
  const k = kustomizationIn(abs);
  if (!k) {
    if (!existsSync(abs)) throw new Error(`${dir}: no such directory`);
    throw new Error(`${dir}: no kustomization.yaml`);
  }
  const spec = (readObjects(k)[0] ?? {}) as unknown as Record<string, unknown>;
  const unsupported = Object.keys(spec).filter((key) => !SUPPORTED.has(key));
  if (unsupported.length) throw new Error(`${k}: only resources are supported, not ${unsupported.join(', ')}`);
  const out: KubeObject[] = [];
  for (const entry of (spec.resources as string[] | null) ?? []) {
    const target = path.join(abs, entry);
    if (!existsSync(target)) {
      throw new Error(`${k} lists ${entry}, which does not exist (generated files: run npm run generate)`);
    }
    out.push(...(statSync(target).isDirectory() ? readKustomize(target, seen) : readObjects(target)));
  }
  return out;
}
