// Writing scaffolded files: new files never replace existing ones, and additions to existing files
// go in front of a marker comment, once.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ScaffoldError } from './errors.ts';

export interface NewFile {
  path: string;
  content: string;
}

/** Writes every file, or none: any that already exists is refused before the first write. */
export async function writeNewFiles(root: string, files: NewFile[]): Promise<string[]> {
  const existing = files.filter((f) => existsSync(path.join(root, f.path))).map((f) => f.path);
  if (existing.length) {
    throw new ScaffoldError(`refusing to overwrite existing file(s): ${existing.join(', ')}`);
  }
  for (const f of files) {
    const target = path.join(root, f.path);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, f.content);
  }
  return files.map((f) => f.path);
}

export interface Insertion {
  path: string;
  marker: string;
  /** A block put before the marker, indented like it; skipped when its first line is already there. */
  lines: string[];
}

/** The new text of each file, or an error naming the first missing file or marker. Writes nothing. */
async function planInsertions(
  root: string,
  insertions: Insertion[],
  texts: Map<string, string>,
): Promise<Map<string, string>> {
  for (const ins of insertions) {
    const file = path.join(root, ins.path);
    if (!texts.has(file)) {
      if (!existsSync(file)) throw new ScaffoldError(`${ins.path} is missing: cannot add ${ins.lines[0]}`);
      texts.set(file, await readFile(file, 'utf8'));
    }
    const lines = (texts.get(file) as string).split('\n');
    const at = lines.findIndex((l) => l.trim() === ins.marker);
    if (at < 0)
      throw new ScaffoldError(`${ins.path} lost its marker "${ins.marker}": add it back where new entries go`);
    if (lines.some((have) => have.trim() === ins.lines[0].trim())) continue;
    const indent = /^\s*/.exec(lines[at])?.[0] ?? '';
    lines.splice(at, 0, ...ins.lines.map((l) => indent + l));
    texts.set(file, lines.join('\n'));
  }
  return texts;
}

/**
 * Writes new files and inserts blocks before markers in existing ones — all or nothing: an existing
 * file among the new ones, or a missing file or marker, is refused before the first write.
 */
export async function scaffold(root: string, files: NewFile[], insertions: Insertion[]): Promise<string[]> {
  const existing = files.filter((f) => existsSync(path.join(root, f.path))).map((f) => f.path);
  if (existing.length) throw new ScaffoldError(`refusing to overwrite existing file(s): ${existing.join(', ')}`);
  // New files are planned too: a block may go into a file made in the same run.
  const texts = await planInsertions(root, insertions, new Map(files.map((f) => [path.join(root, f.path), f.content])));
  for (const [file, text] of texts) {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text);
  }
  return [...new Set([...files.map((f) => f.path), ...insertions.map((i) => i.path)])];
}
