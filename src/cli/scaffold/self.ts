// This package's own manifest: the scaffold pins the generated project's tool versions to the ones
// this release is built and tested with.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

let cached: Manifest | undefined;

/** The nearest package.json above this file named "peerpods" (sources and built output alike). */
export function selfManifest(): Manifest {
  if (cached) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const m = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest;
      if (m.name === 'peerpods') return (cached = m);
    } catch {
      // no manifest here: keep climbing
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error('cannot find the peerpods package.json');
    dir = up;
  }
}

/** The version range of a dependency of this package (dependencies first), e.g. "5.9.3". */
export function toolVersion(name: string, fallback: string): string {
  const m = selfManifest();
  return m.dependencies?.[name] ?? m.devDependencies?.[name] ?? fallback;
}
