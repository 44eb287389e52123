#!/usr/bin/env node
// The `peerpods` command runs the build, dist/cli/main.js (`npm run build`; `npm ci` builds it
// through `prepare`). In a checkout it runs the TypeScript sources through tsx instead when
// PEERPODS_FROM_SOURCE=1 (the dev loop, no build step) or when dist/ is older than src/, so a
// stale build is never what runs: every process pod and every test that spawns this file sees the
// sources as they are. PEERPODS_FROM_SOURCE=0 runs dist/ whatever its age. An installed package
// has no src/ and always runs dist/.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = `${root}src`;
const built = `${root}dist/cli/main.js`;
// Written by scripts/build.sh when a build starts: a source changed after it is newer than the build.
const stamp = `${root}dist/.build-stamp`;

/** True when a file or folder under `dir` changed after `since` (ms); added and removed files change their folder. */
function changedSince(dir, since) {
  if (statSync(dir).mtimeMs > since) return true;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory() ? changedSince(path, since) : statSync(path).mtimeMs > since) return true;
  }
  return false;
}

function fromSource() {
  if (!existsSync(src)) return false;
  if (process.env.PEERPODS_FROM_SOURCE === '1') return true;
  if (process.env.PEERPODS_FROM_SOURCE === '0') return false;
  if (!existsSync(built) || !existsSync(stamp)) return true;
  return changedSince(src, statSync(stamp).mtimeMs);
}

if (fromSource()) {
  let tsx;
  try {
    tsx = await import('tsx/esm/api');
  } catch {
    console.error(
      existsSync(built)
        ? 'peerpods: src/ is newer than dist/ and tsx (a dev dependency) is not installed: run `npm run build`'
        : 'peerpods: dist/ is missing: run `npm run build` (or `npm ci`, which builds it)',
    );
    process.exit(1);
  }
  tsx.register();
  await import('../src/cli/main.ts');
} else if (existsSync(built)) {
  await import('../dist/cli/main.js');
} else {
  console.error('peerpods: dist/ is missing: run `npm run build` (or `npm ci`, which builds it)');
  process.exit(1);
}
