// Writes a volume's files as kubelet's AtomicWriter (pkg/volume/util/atomic_writer.go) does, so a
// reader never sees half an update: the files go into a fresh timestamped directory
// `..2006_01_02_15_04_05.<random>`, the `..data` symlink is pointed at it by renaming a new
// symlink over the old one, and each user-visible top-level entry is a symlink through `..data`.
// An unchanged payload writes nothing.
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ContainerConfigError } from '../container-config.ts';

export interface FileProjection {
  data: Buffer;
  /** Permission bits (defaultMode / items[].mode). */
  mode: number;
}

export type Payload = Map<string, FileProjection>;

const DATA_DIR = '..data';
const DATA_DIR_TMP = '..data_tmp';

function validatePath(path: string): void {
  const parts = path.split('/');
  if (path === '' || path.startsWith('/') || path.startsWith('..') || parts.some((p) => p === '..' || p === ''))
    throw new ContainerConfigError(`invalid path: ${path}`);
}

function timestampDirPrefix(now: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `..${now.getUTCFullYear()}_${p(now.getUTCMonth() + 1)}_${p(now.getUTCDate())}_${p(now.getUTCHours())}_${p(now.getUTCMinutes())}_${p(now.getUTCSeconds())}.`;
}

function unchanged(dir: string, payload: Payload): boolean {
  const existing: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path);
      else existing.push(path);
    }
  };
  walk('');
  if (existing.length !== payload.size) return false;
  for (const path of existing) {
    const want = payload.get(path);
    if (!want) return false;
    const file = join(dir, path);
    if ((statSync(file).mode & 0o7777) !== want.mode || !readFileSync(file).equals(want.data)) return false;
  }
  return true;
}

function topLevel(payload: Payload): Set<string> {
  return new Set([...payload.keys()].map((p) => p.split('/')[0]));
}

/** Writes `payload` under `targetDir`; returns whether anything changed. */
export function writeAtomically(targetDir: string, payload: Payload, now = new Date()): boolean {
  for (const path of payload.keys()) validatePath(path);
  mkdirSync(targetDir, { recursive: true });
  const dataLink = join(targetDir, DATA_DIR);
  const oldTsName = existsSync(dataLink) ? readlinkSync(dataLink) : undefined;
  const oldTsDir = oldTsName ? join(targetDir, oldTsName) : undefined;
  if (oldTsDir && unchanged(oldTsDir, payload)) return false;
  const oldVisible = oldTsDir ? new Set(readdirSync(oldTsDir)) : new Set<string>();

  const tsDir = mkdtempSync(join(targetDir, timestampDirPrefix(now)));
  chmodSync(tsDir, 0o755);
  for (const [path, file] of payload) {
    const full = join(tsDir, path);
    mkdirSync(dirname(full), { recursive: true, mode: 0o755 });
    writeFileSync(full, file.data);
    chmodSync(full, file.mode);
  }

  const tmpLink = join(targetDir, DATA_DIR_TMP);
  rmSync(tmpLink, { force: true });
  symlinkSync(basename(tsDir), tmpLink);
  renameSync(tmpLink, dataLink);

  const visible = topLevel(payload);
  for (const name of visible) {
    const link = join(targetDir, name);
    let present = false;
    try {
      present = lstatSync(link).isSymbolicLink();
    } catch {
      // not there yet
    }
    if (!present) {
      rmSync(link, { recursive: true, force: true });
      symlinkSync(join(DATA_DIR, name), link);
    }
  }

  for (const name of oldVisible) if (!visible.has(name)) rmSync(join(targetDir, name), { force: true });
  if (oldTsDir) rmSync(oldTsDir, { recursive: true, force: true });
  return true;
}
