// Reads a /metrics endpoint as Prometheus would: the text exposition format
// (https://prometheus.io/docs/instrumenting/exposition_formats/), one sample per line,
// `name{label="value",...} number`.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export async function scrape(url: string): Promise<Sample[]> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
  return parseExposition(await res.text());
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL))
      labels[l[1]] = l[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    out.push({ name: m[1], labels, value: m[3] === '+Inf' ? Infinity : Number(m[3]) });
  }
  return out;
}

export interface HistogramView {
  count: number;
  sum: number;
  /** Upper bound (`le`) → cumulative count, in exposition order. */
  buckets: Array<[number, number]>;
}

/** The series of histogram `name` whose labels include `labels`; undefined when no such series exists. */
export function histogram(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): HistogramView | undefined {
  const matches = (s: Sample): boolean => Object.entries(labels).every(([k, v]) => s.labels[k] === v);
  const count = samples.find((s) => s.name === `${name}_count` && matches(s));
  const sum = samples.find((s) => s.name === `${name}_sum` && matches(s));
  if (!count || !sum) return undefined;
  const buckets = samples
    .filter((s) => s.name === `${name}_bucket` && matches(s))
    .map((s): [number, number] => [s.labels.le === '+Inf' ? Infinity : Number(s.labels.le), s.value]);
  return { count: count.value, sum: sum.value, buckets };
}
