// `npm run build` (also `prepare`, so `npm ci` and `npm pack` build): src/ → dist/ as ESM
// JavaScript with .d.ts, declaration maps and source maps (tsconfig.build.json). Then the runtime
// files tsc does not emit (plain .mjs/.js/.json under src/) are copied, and outputs whose source is
// gone are removed. Last, dist/.build-stamp takes the time the build started: bin/peerpods.js runs
// the sources instead of dist/ when a file under src/ is newer than it. Plain JavaScript: it runs
// before any build exists and without tsx.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');
const started = new Date();

/** Every file under `dir`, relative to it. */
function files(dir, prefix = '') {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(path.join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// `--build` first asks the build info whether anything changed: a rebuild with no change takes ~0.5 s.
const result = spawnSync(process.execPath, [tsc, '--build', path.join(root, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
if (result.status !== 0) process.exit(result.status ?? 1);

const sources = new Set(files(src));
const ASSET = /\.(mjs|cjs|js|json)$/;
for (const asset of [...sources].filter((f) => ASSET.test(f))) {
  const target = path.join(dist, asset);
  mkdirSync(path.dirname(target), { recursive: true });
  if (!existsSync(target) || statSync(target).mtimeMs < statSync(path.join(src, asset)).mtimeMs)
    copyFileSync(path.join(src, asset), target);
}

// A moved or deleted source leaves its old outputs behind; they must not ship or be imported.
const OUTPUT = /^(.*?)(\.d\.ts\.map|\.d\.ts|\.js\.map|\.js)$/;
for (const out of files(dist)) {
  if (out.startsWith('.') || sources.has(out)) continue;
  const m = OUTPUT.exec(out);
  if (m && sources.has(`${m[1]}.ts`)) continue;
  rmSync(path.join(dist, out));
}

const stamp = path.join(dist, '.build-stamp');
writeFileSync(stamp, `${started.toISOString()}\n`);
utimesSync(stamp, started, started);
