// `npm run bench [-- --only apiserver|runtime]`: runs the benchmarks, prints a table and writes
// bench/results/latest.json and bench/results/latest.md (overwritten each run).
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, loadavg } from 'node:os';
import { join } from 'node:path';
import { BENCH_DIR, MiB, nowMs, round } from './common.ts';
import { runApiserver } from './apiserver.ts';
import type { ApiserverResults } from './apiserver.ts';
import { runRuntime } from './runtime.ts';
import type { RuntimeResults } from './runtime.ts';

const onlyIdx = process.argv.indexOf('--only');
const only = onlyIdx >= 0 ? process.argv[onlyIdx + 1] : undefined;
if (only !== undefined && only !== 'apiserver' && only !== 'runtime') {
  console.error('usage: npm run bench [-- --only apiserver|runtime]');
  process.exit(2);
}

const log = (s: string): void => console.log(s);
const t0 = nowMs();
const machine = {
  node: process.version,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model ?? 'unknown',
  memoryGiB: round(totalmem() / 2 ** 30, 1),
  loadAverageAtStart: loadavg().map((l) => round(l, 2)),
  date: new Date().toISOString(),
};

let apiserver: ApiserverResults | undefined;
let runtime: RuntimeResults | undefined;
if (only !== 'runtime') apiserver = await runApiserver(log);
if (only !== 'apiserver') runtime = await runRuntime(log);
const seconds = (nowMs() - t0) / 1000;

interface Row {
  figure: string;
  value: string;
  reference: string;
  target: string;
  status: string;
}
const rows: Row[] = [];
const status = (met: boolean | null): string => (met === null ? '—' : met ? 'met' : 'MISSED');
const pct = (r: number): string => `${round(r * 100)} %`;
const mib = (b: number): string => `${round(b / MiB)} MiB`;

if (apiserver) {
  for (const t of apiserver.throughput) {
    rows.push({
      figure: `${t.description} (${apiserver.settings.concurrency} in flight)`,
      value: `${round(t.ours.reqPerSec)} req/s (p50 ${round(t.ours.p50Ms, 2)} ms, p99 ${round(t.ours.p99Ms, 2)} ms)`,
      reference: `bare node:https ${round(t.bare.reqPerSec)} req/s, same ${t.responseBytes} B body → ${pct(t.ratio)}`,
      target: Number.isNaN(t.target) || t.target === null ? '—' : `≥ ${pct(t.target)} of bare`,
      status: status(t.met),
    });
  }
  const w = apiserver.watch;
  rows.push({
    figure: `Watch fan-out: ${w.watchers} watchers × ${w.events} ConfigMap creates at ${w.ratePerSec}/s`,
    value: `p50 ${round(w.p50Ms, 2)} ms, p90 ${round(w.p90Ms, 2)} ms, p99 ${round(w.p99Ms, 2)} ms, max ${round(w.maxMs, 1)} ms`,
    reference: `${w.deliveries}/${w.expectedDeliveries} delivered; writes took ${round(w.writeSeconds, 2)} s (${round(w.writesPerSec)}/s achieved)`,
    target: `p99 < ${w.targetP99Ms} ms`,
    status: status(w.met),
  });
  const m = apiserver.memory;
  rows.push({
    figure: `Server memory: ${m.count} stored ConfigMaps (heap)`,
    value: `+${mib(m.heapGrowthBytes)} heap = ${round(m.heapRatio, 2)}× JSON`,
    reference: `${mib(m.storedJsonBytes)} stored JSON (${round(m.storedJsonBytes / m.count)} B/object)`,
    target: `≤ ${m.target}×`,
    status: status(m.heapRatio <= m.target),
  });
  rows.push({
    figure: `Server memory: ${m.count} stored ConfigMaps (RSS)`,
    value: `+${mib(m.rssGrowthBytes)} RSS = ${round(m.rssRatio, 2)}× JSON`,
    reference: `seeded in ${round(m.seedSeconds, 1)} s via ${m.path.split(' ')[0]}`,
    target: `≤ ${m.target}×`,
    status: status(m.rssRatio <= m.target),
  });
}
if (runtime) {
  for (const p of runtime.peers) {
    rows.push({
      figure: `Converge ${runtime.widgets} Widgets: ${p.peer}`,
      value: Number.isFinite(p.convergeSeconds)
        ? `${round(p.convergeSeconds, 2)} s (${round(runtime.widgets / p.convergeSeconds)}/s), peak RSS ${mib(p.peakRssBytes)}`
        : `did not converge: ${p.converged}/${runtime.widgets}, peak RSS ${mib(p.peakRssBytes)}`,
      reference: `${p.version}; concurrency ${p.concurrency}; ${p.patches} patches, ${p.patchErrors} errors; load avg ${p.loadAverage1m} at start`,
      target: p.peer === 'peerpods' ? `≥ ${runtime.speedupTarget}× faster than best peer` : '—',
      status: p.peer === 'peerpods' ? `${round(runtime.speedupVsBestPeer, 2)}× → ${status(runtime.speedupMet)}` : '—',
    });
  }
  const c = runtime.cache;
  rows.push({
    figure: `Informer cache: heap per cached ConfigMap (${c.objects} objects)`,
    value: `${round(c.heapBytesPerObject)} B/object = ${round(c.ratioToCachedJson, 2)}× its JSON`,
    reference: `${round(c.jsonBytesPerObject)} B JSON as cached (managedFields stripped); ${round(c.ratioToServedJson, 2)}× the served JSON`,
    target: `≤ ${c.target}×`,
    status: status(c.met),
  });
  rows.push({
    figure: `Informer cache: sync ${c.objects} objects`,
    value: `${round(c.syncSeconds, 2)} s`,
    reference: `paged LIST (limit ${c.pageSize}) over HTTPS + watch start`,
    target: `< ${c.syncTargetSeconds} s`,
    status: status(c.syncMet),
  });
}

const results = { machine, seconds, only: only ?? 'all', apiserver, runtime, table: rows };
const outDir = join(BENCH_DIR, 'results');
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);

const esc = (s: string): string => s.replaceAll('|', '\\|');
const md = [
  '# peerpods benchmark results',
  '',
  `${machine.date} · Node ${machine.node} · ${machine.cpus} × ${machine.cpuModel} · ${machine.memoryGiB} GiB · load average at start ${machine.loadAverageAtStart.join(' / ')} · run took ${round(seconds)} s${only ? ` · only ${only}` : ''}`,
  '',
  'See bench/README.md for what each figure means. Ratios are against a reference measured in the same run.',
  '',
  '| Figure | Value | Reference | Target | Status |',
  '| --- | --- | --- | --- | --- |',
  ...rows.map(
    (r) => `| ${esc(r.figure)} | ${esc(r.value)} | ${esc(r.reference)} | ${esc(r.target)} | ${esc(r.status)} |`,
  ),
  '',
].join('\n');
writeFileSync(join(outDir, 'latest.md'), md);

console.log('');
console.table(rows.map((r) => ({ figure: r.figure, value: r.value, target: r.target, status: r.status })));
console.log(`\nwrote ${join(outDir, 'latest.json')} and latest.md (${round(seconds)} s)`);
