// Importing a project's TypeScript modules from the CLI: through the project's own tsx (a dev
// dependency of every scaffolded project), so no build is needed and `peerpods` itself runs
// without a TypeScript loader.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ScaffoldError } from './errors.ts';

interface TsxManifest {
  exports: Record<string, { import: { default: string } }>;
}

type TsImport = (specifier: string, parent: string) => Promise<Record<string, unknown>>;

async function tsImporter(dir: string): Promise<TsImport> {
  let entry: string;
  try {
    // The ESM build of the API (a require() resolution would give its CommonJS twin).
    const manifest = createRequire(path.join(dir, 'package.json')).resolve('tsx/package.json');
    const exports = (JSON.parse(readFileSync(manifest, 'utf8')) as TsxManifest).exports['./esm/api'];
    entry = path.join(path.dirname(manifest), exports.import.default);
  } catch {
    throw new ScaffoldError(`cannot load the project's TypeScript: tsx is not installed in ${dir} (run npm install)`);
  }
  const api = (await import(pathToFileURL(entry).href)) as { tsImport?: TsImport; default?: { tsImport?: TsImport } };
  const tsImport = api.tsImport ?? api.default?.tsImport;
  if (!tsImport) throw new ScaffoldError(`the tsx in ${dir} has no tsImport (tsx ≥ 4.8 is needed)`);
  return tsImport;
}

/** The named export of each module (paths relative to `dir`); a missing module or export is an error. */
export async function loadExports(dir: string, wanted: Array<{ module: string; name: string }>): Promise<unknown[]> {
  const tsImport = await tsImporter(dir);
  const parent = pathToFileURL(path.join(dir, 'package.json')).href;
  const out: unknown[] = [];
  for (const w of wanted) {
    const file = path.join(dir, w.module);
    if (!existsSync(file)) throw new ScaffoldError(`${w.module} is missing`);
    let mod: Record<string, unknown>;
    try {
      mod = await tsImport(pathToFileURL(file).href, parent);
    } catch (err) {
      throw new ScaffoldError(`cannot load ${w.module}: ${(err as Error).message}`);
    }
    if (!(w.name in mod)) throw new ScaffoldError(`${w.module} does not export "${w.name}"`);
    out.push(mod[w.name]);
  }
  return out;
}
