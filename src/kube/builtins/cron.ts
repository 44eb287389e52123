// CronJob schedules as kube reads them (robfig/cron/v3's ParseStandard): five fields — minute,
// hour, day of month, month, day of week — with `*`, `?`, lists, ranges, steps, month and weekday
// names, or a descriptor (@yearly/@annually, @monthly, @weekly, @daily/@midnight, @hourly). As in
// cron, when both day fields are restricted a day matching either runs. Parse errors use the
// library's wording, which kube-apiserver returns verbatim (validateScheduleFormat,
// pkg/apis/batch/validation/validation.go). Times are evaluated in a time zone (IANA name, UTC by
// default) through Intl.

export interface Schedule {
  minute: Set<number>;
  hour: Set<number>;
  dom: Set<number>;
  month: Set<number>;
  dow: Set<number>;
  domStar: boolean;
  dowStar: boolean;
}

const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

interface Bounds {
  min: number;
  max: number;
  names?: string[];
  namesFrom?: number;
}

const FIELDS: Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS, namesFrom: 1 },
  { min: 0, max: 6, names: DAYS, namesFrom: 0 },
];

function number(text: string, b: Bounds): number {
  const i = b.names?.indexOf(text.toLowerCase()) ?? -1;
  if (i >= 0) return i + (b.namesFrom ?? 0);
  if (!/^\d+$/.test(text))
    throw new Error(`failed to parse int from ${text}: strconv.Atoi: parsing "${text}": invalid syntax`);
  return Number(text);
}

function field(text: string, b: Bounds): { values: Set<number>; star: boolean } {
  const values = new Set<number>();
  let star = false;
  for (const expr of text.split(',')) {
    const [range, stepText, extra] = expr.split('/');
    if (extra !== undefined) throw new Error(`too many slashes: ${expr}`);
    let start: number;
    let end: number;
    const rangeParts = range.split('-');
    if (rangeParts.length > 2) throw new Error(`too many hyphens: ${expr}`);
    if (range === '*' || range === '?') {
      start = b.min;
      end = b.max;
      if (stepText === undefined) star = true;
    } else {
      start = number(rangeParts[0], b);
      end = rangeParts.length === 2 ? number(rangeParts[1], b) : start;
    }
    let step = 1;
    if (stepText !== undefined) {
      step = number(stepText, { min: 0, max: 0 });
      if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
      // `N/step` means N through the maximum.
      if (rangeParts.length === 1 && range !== '*' && range !== '?') end = b.max;
    }
    if (start < b.min) throw new Error(`beginning of range (${start}) below minimum (${b.min}): ${expr}`);
    if (end > b.max) throw new Error(`end of range (${end}) above maximum (${b.max}): ${expr}`);
    if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
    for (let v = start; v <= end; v += step) values.add(v);
  }
  return { values, star };
}

/** Parses a schedule; throws an Error worded like robfig/cron's. */
export function parseSchedule(spec: string): Schedule {
  let text = spec.trim();
  if (text === '') throw new Error('empty spec string');
  if (text.startsWith('@')) {
    const expanded = DESCRIPTORS[text];
    if (!expanded) throw new Error(`unrecognized descriptor: ${text}`);
    text = expanded;
  }
  const parts = text.split(/\s+/);
  if (parts.length !== 5) throw new Error(`expected exactly 5 fields, found ${parts.length}: [${parts.join(' ')}]`);
  const [minute, hour, dom, month, dow] = parts.map((p, i) => field(p, FIELDS[i]));
  // Sunday may be written 7.
  if (dow.values.has(7)) dow.values.add(0);
  return {
    minute: minute.values,
    hour: hour.values,
    dom: dom.values,
    month: month.values,
    dow: dow.values,
    domStar: dom.star,
    dowStar: dow.star,
  };
}

/** Whether `tz` names a time zone this runtime knows (Go's time.LoadLocation). */
export function isKnownTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Offset of `tz` from UTC at `ms`, in ms. */
export function zoneOffset(ms: number, tz: string): number {
  if (tz === 'UTC' || tz === 'Etc/UTC') return 0;
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  const p = Object.fromEntries(f.formatToParts(new Date(ms)).map((x) => [x.type, x.value]));
  const wall = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second);
  return wall - Math.floor(ms / 1000) * 1000;
}

function dayMatches(s: Schedule, d: Date): boolean {
  const dom = s.dom.has(d.getUTCDate());
  const dow = s.dow.has(d.getUTCDay());
  if (s.domStar || s.dowStar) return dom && dow;
  return dom || dow;
}

/** The first scheduled time strictly after `afterMs` (minute precision), or undefined within 5 years. */
export function nextTime(s: Schedule, afterMs: number, tz = 'UTC'): number | undefined {
  const offset = zoneOffset(afterMs, tz);
  // Walk wall-clock time (as a UTC Date), skipping whole days, hours and minutes that cannot match.
  const t = new Date(Math.floor((afterMs + offset) / 60_000) * 60_000 + 60_000);
  const limit = t.getTime() + 5 * 366 * 86_400_000;
  while (t.getTime() < limit) {
    if (!s.month.has(t.getUTCMonth() + 1) || !dayMatches(s, t)) {
      t.setUTCHours(24, 0, 0, 0);
      continue;
    }
    if (!s.hour.has(t.getUTCHours())) {
      t.setUTCHours(t.getUTCHours() + 1, 0, 0, 0);
      continue;
    }
    if (!s.minute.has(t.getUTCMinutes())) {
      t.setUTCMinutes(t.getUTCMinutes() + 1, 0, 0);
      continue;
    }
    const wall = t.getTime();
    const utc = wall - zoneOffset(wall - offset, tz);
    if (utc > afterMs) return utc;
    t.setUTCMinutes(t.getUTCMinutes() + 1, 0, 0);
  }
  return undefined;
}

/** RFC 3339 of `ms` in `tz` as Go's time.Format(time.RFC3339): `Z` for UTC, else `±hh:mm`. */
export function formatInZone(ms: number, tz = 'UTC'): string {
  const offset = zoneOffset(ms, tz);
  const wall = new Date(Math.floor(ms / 1000) * 1000 + offset).toISOString().slice(0, 19);
  if (offset === 0 && (tz === 'UTC' || tz === 'Etc/UTC')) return `${wall}Z`;
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset) / 60_000;
  return `${wall}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
