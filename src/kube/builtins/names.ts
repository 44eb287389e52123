// Format checks used inside built-in specs (container names, port names, env var names, config
// keys, label keys and values), each returning kube-apiserver's detail messages word for word.
// The name and label formats come from apimachinery/validation; the spec-only ones live here.
import { isIP } from 'node:net';
import { fieldInvalid, fieldRequired, type FieldError } from '../../apimachinery/validation/field-errors.ts';
import { emptyError, isDNS1123Subdomain, maxLenError, regexError } from '../../apimachinery/validation/names.ts';

const CONFIG_KEY_FMT = '[-._a-zA-Z0-9]+';
const CONFIG_KEY_MSG = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const PERCENT_FMT = '[0-9]+%';
const PERCENT_MSG = "a valid percent string must be a numeric string followed by an ending '%'";
const CONFIG_KEY_RE = new RegExp(`^${CONFIG_KEY_FMT}$`);
const PERCENT_RE = new RegExp(`^${PERCENT_FMT}$`);

export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

function chDirPrefix(v: string): string[] {
  if (v === '.') return ["must not be '.'"];
  if (v === '..') return ["must not be '..'"];
  if (v.startsWith('..')) return ["must not start with '..'"];
  return [];
}

export function isConfigMapKey(v: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(v, 'utf8') > 253) errs.push(maxLenError(253));
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

export function validateIp(value: string, field: string): FieldError[] {
  return parseIpSloppy(value)
    ? []
    : [fieldInvalid(field, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')];
}

export function validateFullyQualifiedName(name: string, field: string): FieldError[] {
  if (name.length === 0) return [fieldRequired(field)];
  const errs = isDNS1123Subdomain(name);
  if (errs.length > 0) return [fieldInvalid(field, name, errs.join(','))];
  if (name.split('.').length < 3)
    return [fieldInvalid(field, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}
