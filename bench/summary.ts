// bench/results/latest.md: the newest figures of every part, each taken from the run that last
// measured it. A full `npm run bench` takes over an hour on two cores, so parts are often re-run
// alone (`--only <part>`); the summary says for each part when, on what load and in which run its
// figures were measured, so figures of different days are never mistaken for one run.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { round } from './common.ts';

export interface Row {
  /** The part of the bench that measured it; absent in results written before rows carried it. */
  part?: string;
  figure: string;
  value: string;
  reference: string;
  target: string;
  status: string;
}

interface Machine {
  node: string;
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  loadAverageAtStart: number[];
  date: string;
}

interface RunFile {
  machine: Machine;
  seconds: number;
  only: string;
  table: Row[];
}

interface PartFigures {
  run: RunFile;
  file: string;
  rows: Row[];
}

function readRun(path: string): RunFile | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const run = JSON.parse(readFileSync(path, 'utf8')) as RunFile;
    return Array.isArray(run.table) && run.machine ? run : undefined;
  } catch {
    return undefined;
  }
}

/** The newest figures of one part: its own `--only` run, or the full run when that is newer. */
function newestOf(outDir: string, part: string, full: RunFile | undefined): PartFigures | undefined {
  const own = readRun(join(outDir, `latest-${part}.json`));
  const fromFull = full?.table.filter((r) => r.part === part) ?? [];
  const candidates: PartFigures[] = [];
  if (own && own.table.length > 0) candidates.push({ run: own, file: `latest-${part}.md`, rows: own.table });
  if (full && fromFull.length > 0) candidates.push({ run: full, file: 'latest.json', rows: fromFull });
  return candidates.sort((a, b) => Date.parse(b.run.machine.date) - Date.parse(a.run.machine.date))[0];
}

const esc = (s: string): string => s.replaceAll('|', '\\|');
/** The figures as a Markdown table (a part's own page and each section of latest.md). */
export const tableOf = (rows: readonly Row[]): string[] => [
  '| Figure | Value | Reference | Target | Status |',
  '| --- | --- | --- | --- | --- |',
  ...rows.map(
    (r) => `| ${esc(r.figure)} | ${esc(r.value)} | ${esc(r.reference)} | ${esc(r.target)} | ${esc(r.status)} |`,
  ),
];

/** Rewrites `latest.md` from the full run's `latest.json` and every `latest-<part>.json`. */
export function writeSummary(outDir: string, parts: readonly string[]): string {
  const full = readRun(join(outDir, 'latest.json'));
  const sections: string[] = [];
  const goals: Array<{ part: string; row: Row }> = [];
  const missing: string[] = [];
  for (const part of parts) {
    const figures = newestOf(outDir, part, full);
    if (!figures) {
      // A results file that is there but does not read is not the same as a part never run.
      missing.push(existsSync(join(outDir, `latest-${part}.json`)) ? `${part} (latest-${part}.json unreadable)` : part);
      continue;
    }
    const m = figures.run.machine;
    const how =
      figures.run.only === 'all' ? 'a full `npm run bench`' : `\`npm run bench -- --only ${figures.run.only}\``;
    sections.push(
      `## ${part}`,
      '',
      `${m.date} · ${how}, which took ${round(figures.run.seconds)} s · Node ${m.node} · ${m.cpus} × ${m.cpuModel} · load average at start ${m.loadAverageAtStart.join(' / ')} · details in \`${figures.file}\``,
      '',
      ...tableOf(figures.rows),
      '',
    );
    for (const row of figures.rows) if (row.target !== '—') goals.push({ part, row });
  }
  // A status may carry its figure first (`5.2× → met`).
  const met = goals.filter((g) => /\bmet$/.test(g.row.status)).length;
  const md = [
    '# peerpods benchmark results',
    '',
    'The newest figures of every part of `npm run bench`. Each part is taken from the run that last measured it',
    '(a full run, or `--only <part>`), and its heading line says when, on what load and how long that run took:',
    'absolute figures of different parts may come from different days. Ratios are against a reference measured',
    'in the same run. See bench/README.md for what each figure means.',
    '',
    `## Goals: ${met} of ${goals.length} met`,
    '',
    '| Part | Figure | Target | Status |',
    '| --- | --- | --- | --- |',
    ...goals.map((g) => `| ${g.part} | ${esc(g.row.figure)} | ${esc(g.row.target)} | ${esc(g.row.status)} |`),
    '',
    ...(missing.length > 0 ? [`No figures: ${missing.join(', ')}.`, ''] : []),
    ...sections,
  ].join('\n');
  const path = join(outDir, 'latest.md');
  writeFileSync(path, md);
  return path;
}
