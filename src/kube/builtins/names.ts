// Format checks used inside built-in specs (container names, port names, env var names, config
// keys, label keys and values). Each returns kube-apiserver's detail messages word for word,
// because clients and people match on them.
//
// Local to builtins until src/kube/validation/names.ts lands; then these should delegate to it.
import { isIP } from 'node:net';
import type { FieldError } from '../errors.ts';
import { fieldInvalid, fieldRequired } from './fields.ts';

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const QNAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QNAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?';
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const CONFIG_KEY_FMT = '[-._a-zA-Z0-9]+';
const CONFIG_KEY_MSG = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const PERCENT_FMT = '[0-9]+%';
const PERCENT_MSG = "a valid percent string must be a numeric string followed by an ending '%'";

function whole(fmt: string): RegExp {
  return new RegExp(`^${fmt}$`);
}
const DNS1123_LABEL_RE = whole(DNS1123_LABEL_FMT);
const DNS1123_SUBDOMAIN_RE = whole(DNS1123_SUBDOMAIN_FMT);
const DNS1035_LABEL_RE = whole(DNS1035_LABEL_FMT);
const QNAME_RE = whole(QNAME_FMT);
const LABEL_VALUE_RE = whole(LABEL_VALUE_FMT);
const CONFIG_KEY_RE = whole(CONFIG_KEY_FMT);
const PERCENT_RE = whole(PERCENT_FMT);

export function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

export function emptyError(): string {
  return 'must be non-empty';
}

export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

/** apimachinery's RegexError, including its doubled space before "or". */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let out = `${msg} (e.g. `;
  examples.forEach((e, i) => {
    if (i > 0) out += ' or ';
    out += `'${e}', `;
  });
  return `${out}regex used for validation is '${fmt}')`;
}

export function isDns1123Label(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push(maxLenError(63));
  if (!DNS1123_LABEL_RE.test(v)) errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  return errs;
}

export function isDns1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 253) errs.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN_RE.test(v)) errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

export function isDns1035Label(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push(maxLenError(63));
  if (!DNS1035_LABEL_RE.test(v)) errs.push(regexError(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  return errs;
}

export function isQualifiedName(v: string): string[] {
  const errs: string[] = [];
  const parts = v.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else for (const m of isDns1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
  } else {
    return [
      `a qualified name ${regexError(QNAME_MSG, QNAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!QNAME_RE.test(name)) errs.push(`name part ${regexError(QNAME_MSG, QNAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

export function isValidLabelValue(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push(maxLenError(63));
  if (!LABEL_VALUE_RE.test(v)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

function chDirPrefix(v: string): string[] {
  if (v === '.') return ["must not be '.'"];
  if (v === '..') return ["must not be '..'"];
  if (v.startsWith('..')) return ["must not start with '..'"];
  return [];
}

export function isConfigMapKey(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 253) errs.push(maxLenError(253));
  if (!CONFIG_KEY_RE.test(v)) errs.push(regexError(CONFIG_KEY_MSG, CONFIG_KEY_FMT, 'key.name', 'KEY_NAME', 'key-name'));
  errs.push(...chDirPrefix(v));
  return errs;
}

/**
 * The relaxed rule (RelaxedEnvironmentVariableValidation, on by default since 1.32): any
 * printable ASCII except '='.
 */
export function isEnvVarName(v: string): string[] {
  const errs: string[] = [];
  if (v.length === 0) errs.push(`environment variable name ${emptyError()}`);
  for (const ch of v) {
    const c = ch.codePointAt(0) ?? 0;
    if (c < 0x20 || c > 0x7e || ch === '=') {
      errs.push("a valid environment variable name must consist only of printable ASCII characters other than '='");
      break;
    }
  }
  return errs;
}

export function isValidPortNum(n: number): string[] {
  return Number.isInteger(n) && n >= 1 && n <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

export function isValidPortName(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(v)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  else if (!/[a-z]/.test(v)) errs.push('must contain at least one letter (a-z)');
  if (v.includes('--')) errs.push('must not contain consecutive hyphens');
  if (v.length > 0 && (v.startsWith('-') || v.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

export function isValidPercent(v: string): string[] {
  return PERCENT_RE.test(v) ? [] : [regexError(PERCENT_MSG, PERCENT_FMT, '1%', '93%')];
}

/** netutils.ParseIPSloppy also takes IPv4 octets with leading zeros, which node's isIP refuses. */
export function parseIpSloppy(v: string): 4 | 6 | 0 {
  const fam = isIP(v);
  if (fam === 4 || fam === 6) return fam;
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(v) && v.split('.').every((o) => Number(o) <= 255)) return 4;
  return 0;
}

export function validateIp(field: string, value: string): FieldError[] {
  return parseIpSloppy(value) ? [] : [fieldInvalid(field, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')];
}

export function validateFullyQualifiedName(field: string, name: string): FieldError[] {
  if (name.length === 0) return [fieldRequired(field)];
  const errs = isDns1123Subdomain(name);
  if (errs.length > 0) return [fieldInvalid(field, name, errs.join(','))];
  if (name.split('.').length < 3) return [fieldInvalid(field, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

export function validateDns1123Label(field: string, value: string): FieldError[] {
  return isDns1123Label(value).map((m) => fieldInvalid(field, value, m));
}

export function validateDns1123Subdomain(field: string, value: string): FieldError[] {
  return isDns1123Subdomain(value).map((m) => fieldInvalid(field, value, m));
}

export function validateQualifiedName(field: string, value: string): FieldError[] {
  return isQualifiedName(value).map((m) => fieldInvalid(field, value, m));
}

/** metav1validation.ValidateLabels: errors are reported on the map's path, not per key. */
export function validateLabels(field: string, labels: Record<string, string> | undefined): FieldError[] {
  const out: FieldError[] = [];
  for (const k of Object.keys(labels ?? {}).sort()) {
    out.push(...validateQualifiedName(field, k));
    for (const m of isValidLabelValue(labels?.[k] ?? '')) out.push(fieldInvalid(field, labels?.[k] ?? '', m));
  }
  return out;
}
