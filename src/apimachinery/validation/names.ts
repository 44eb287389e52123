// Name and key formats with kube-apiserver's exact wording (Kubernetes 1.33, where
// apimachinery's util/validation still says "characters" and "a qualified name"). Each check
// returns the list of failure messages, empty when the value is valid, like the Go functions
// clients see the output of. Lengths are UTF-8 byte counts, as Go's len() is.
import { fieldInvalid, type FieldError } from './field-errors.ts';
import type { Path } from './field-path.ts';

const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const qualifiedNameErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelErrMsg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

export const QUALIFIED_NAME_MAX_LENGTH = 63;
export const LABEL_VALUE_MAX_LENGTH = 63;
export const DNS1123_LABEL_MAX_LENGTH = 63;
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
export const DNS1035_LABEL_MAX_LENGTH = 63;

const whole = (fmt: string): RegExp => new RegExp(`^${fmt}$`);
const qualifiedNameRe = whole(qualifiedNameFmt);
const labelValueRe = whole(labelValueFmt);
const dns1123LabelRe = whole(dns1123LabelFmt);
const dns1123SubdomainRe = whole(dns1123SubdomainFmt);
const dns1035LabelRe = whole(dns1035LabelFmt);

export function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

export function emptyError(): string {
  return 'must be non-empty';
}

/** Go's RegexError; the double space before "or" is upstream's and clients see it. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  const shown = examples.map((e) => `'${e}', `).join(' or ');
  return `${msg} (e.g. ${shown}regex used for validation is '${fmt}')`;
}

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1123LabelRe.test(value)) {
    // A valid subdomain that is not a valid label can only be failing on its dots.
    if (dns1123SubdomainRe.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123SubdomainRe.test(value))
    errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1035_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1035_LABEL_MAX_LENGTH));
  if (!dns1035LabelRe.test(value)) errs.push(regexError(dns1035LabelErrMsg, dns1035LabelFmt, 'my-name', 'abc-123'));
  return errs;
}

/** Label keys, annotation keys and finalizer names: `[prefix/]name`. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (byteLength(name) > QUALIFIED_NAME_MAX_LENGTH)
    errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX_LENGTH)}`);
  if (!qualifiedNameRe.test(name)) {
    errs.push(`name part ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValueRe.test(value)) errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** The minimal rule every stored object name obeys: it must be usable as one URL path segment. */
export function isValidPathSegmentName(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  return isValidPathSegmentPrefix(name);
}

export function isValidPathSegmentPrefix(name: string): string[] {
  const errs: string[] = [];
  for (const bad of ['/', '%']) if (name.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}

/** The name formats `metadata.name` is validated against; the server picks one per kind. */
export type NameRule = 'subdomain' | 'label' | 'dns1035' | 'path-segment';

// generateName gets 5 random characters appended, so a trailing '-' is fine there. Upstream
// replaces the last *two* characters with "a"; we copy that so edge cases match.
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

/** ValidateNameFunc: `prefix` is true when checking a generateName. */
export function validateName(rule: NameRule, name: string, prefix: boolean): string[] {
  switch (rule) {
    case 'subdomain':
      return isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
    case 'label':
      return isDNS1123Label(prefix ? maskTrailingDash(name) : name);
    case 'dns1035':
      return isDNS1035Label(prefix ? maskTrailingDash(name) : name);
    case 'path-segment':
      return prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name);
  }
}

/** ValidateQualifiedName: label keys, annotation keys, finalizers, selector keys. */
export function validateQualifiedName(value: string, path: Path): FieldError[] {
  return isQualifiedName(value).map((msg) => fieldInvalid(path, value, msg));
}

export function validateDNS1123Label(value: string, path: Path): FieldError[] {
  return isDNS1123Label(value).map((msg) => fieldInvalid(path, value, msg));
}
