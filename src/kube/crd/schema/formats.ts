// The string formats kube validates in CRD schemas (kube-openapi's strfmt registry, limited to the
// set apiextensions-apiserver supports); any other format is ignored, as kube strips it.
// Names are keyed with dashes removed, the registry's normalization ("date-time" = "datetime").

function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  return d <= days;
}

function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0])) return false;
  const m = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/.exec(parts[1]);
  return !!m && m[1] <= '23' && m[2] <= '59' && m[3] <= '59';
}

/** net.ParseIP, with ParseIPSloppy's leniency for leading zeros in IPv4. */
function parseIP(s: string): boolean {
  const v4 = (x: string) => {
    const parts = x.split('.');
    return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
  };
  if (!s.includes(':')) return v4(s);
  let rest = s;
  let groups = 0;
  const lastColon = rest.lastIndexOf(':');
  if (rest.slice(lastColon + 1).includes('.')) {
    if (!v4(rest.slice(lastColon + 1))) return false;
    rest = `${rest.slice(0, lastColon + 1)}0:0`;
  }
  const halves = rest.split('::');
  if (halves.length > 2) return false;
  for (const half of halves) {
    if (half === '') continue;
    for (const g of half.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return false;
      groups++;
    }
  }
  return halves.length === 2 ? groups < 8 : groups === 8;
}

function isCIDR(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!parseIP(ip) || !/^\d+$/.test(bits)) return false;
  return Number(bits) <= (ip.includes(':') ? 128 : 32);
}

function isMAC(s: string): boolean {
  if (/^[0-9a-fA-F]{2}([:-])[0-9a-fA-F]{2}(\1[0-9a-fA-F]{2})+$/.test(s))
    return [6, 8, 20].includes(s.split(/[:-]/).length);
  if (/^[0-9a-fA-F]{4}(\.[0-9a-fA-F]{4})+$/.test(s)) return [3, 4, 10].includes(s.split('.').length);
  return false;
}

function isISBN(s: string, version: 10 | 13): boolean {
  const d = s.replace(/[\s-]+/g, '');
  if (version === 10) {
    if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(d)) return false;
    let sum = 0;
    for (let i = 0; i < 9; i++) sum += (i + 1) * Number(d[i]);
    sum += d[9] === 'X' ? 100 : 10 * Number(d[9]);
    return sum % 11 === 0;
  }
  if (!/^[0-9]{13}$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (i % 2 ? 3 : 1) * Number(d[i]);
  return Number(d[12]) - ((10 - (sum % 10)) % 10) === 0;
}

function isCreditCard(s: string): boolean {
  const d = s.replace(/[^0-9]+/g, '');
  const re =
    /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;
  if (!re.test(d)) return false;
  let sum = 0;
  let double = false;
  for (let i = d.length - 1; i >= 0; i--) {
    let n = Number(d[i]);
    if (double) {
      n *= 2;
      sum += n >= 10 ? (n % 10) + 1 : n;
    } else sum += n;
    double = !double;
  }
  return sum % 10 === 0;
}

const DURATION_UNITS = [
  ['ns', 'nano'],
  ['us', 'µs', 'micro'],
  ['ms', 'milli'],
  ['s', 'sec'],
  ['m', 'min'],
  ['h', 'hr', 'hour'],
  ['d', 'day'],
  ['w', 'wk', 'week'],
];

/** Go's time.ParseDuration, then strfmt's lenient "3 days" style fallback. */
function isDuration(s: string): boolean {
  if (s === '0' || /^[-+]?((\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/.test(s)) return true;
  for (const m of s.matchAll(/(\d+)\s*([A-Za-zµ]+)/g)) {
    const unit = m[2].trim().toLowerCase();
    for (const variants of DURATION_UNITS) {
      const last = variants.length - 1;
      if (variants.some((v, i) => (i === last && unit.startsWith(v)) || v === unit)) return true;
    }
  }
  return false;
}

/** net/url refuses ASCII control characters anywhere in a URL. */
function hasControlByte(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

const HOSTNAME =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const SHORT_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LONG_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export const STRING_FORMATS: Record<string, (s: string) => boolean> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: (s) => s !== '' && !hasControlByte(s) && (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s) || s.startsWith('/')),
  email: (s) => /^[^\s@<>]+@[^\s@<>]+$/.test(s) || /^[^<>]*<[^\s@<>]+@[^\s@<>]+>$/.test(s),
  hostname: (s) =>
    HOSTNAME.test(s) && Buffer.byteLength(s) <= 255 && s.split('.').every((p) => Buffer.byteLength(p) <= 63),
  ipv4: (s) => parseIP(s) && s.includes('.'),
  ipv6: (s) => parseIP(s) && s.includes(':'),
  cidr: isCIDR,
  mac: isMAC,
  uuid: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid3: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid4: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(s),
  uuid5: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(s),
  isbn: (s) => isISBN(s, 10) || isISBN(s, 13),
  isbn10: (s) => isISBN(s, 10),
  isbn13: (s) => isISBN(s, 13),
  creditcard: isCreditCard,
  ssn: (s) => s.length === 11 && /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(s),
  hexcolor: (s) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(s),
  rgbcolor: (s) =>
    /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/.test(
      s,
    ),
  byte: (s) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/.test(s),
  password: () => true,
  date: isDate,
  duration: isDuration,
  datetime: isDateTime,
  k8sshortname: (s) => s.length <= 63 && SHORT_NAME.test(s),
  k8slongname: (s) => s.length <= 253 && LONG_NAME.test(s),
};

/**
 * The format kube keeps for a schema node after StripUnsupportedFormats, or '' when it ignores it:
 * string formats from the registry, int32/int64 on integers, float/double on numbers.
 */
export function effectiveFormat(format: string, types: readonly string[]): string {
  if (!format) return '';
  const single = types.length === 1 ? types[0] : '';
  switch (single) {
    case '':
    case 'string':
      return Object.prototype.hasOwnProperty.call(STRING_FORMATS, format.replaceAll('-', '')) ? format : '';
    case 'integer':
      return format === 'int32' || format === 'int64' ? format : '';
    case 'number':
      return format === 'float' || format === 'double' ? format : '';
    default:
      return '';
  }
}
