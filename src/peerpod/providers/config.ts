// Reading provider settings from the flat string map the operators load from `peer-pods-cm` and
// `peer-pods-secret` (upstream's env var names). Empty strings count as unset, as with upstream's
// `DefaultToEnv`.
import { InvalidRequestError, ProviderConfigError } from './errors.ts';

export type ProviderConfig = Record<string, string>;

export function get(config: ProviderConfig, key: string, fallback = ''): string {
  const v = config[key];
  return v === undefined || v.trim() === '' ? fallback : v.trim();
}

export function missingKeys(config: ProviderConfig, keys: readonly string[]): string[] {
  return keys.filter((k) => get(config, k) === '');
}

export function parseBool(value: string): boolean | undefined {
  if (value === '') return false;
  const v = value.toLowerCase();
  if (['1', 't', 'true', 'yes', 'y', 'on'].includes(v)) return true;
  if (['0', 'f', 'false', 'no', 'n', 'off'].includes(v)) return false;
  return undefined;
}

export function parseNonNegativeInt(value: string): number | undefined {
  if (!/^\d+$/.test(value)) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Upstream's comma-separated list flags (e.g. AWS_SG_IDS, PODVM_INSTANCE_TYPES). */
export function parseList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Upstream's `TAGS` format: `k1=v1,k2=v2`; the value may contain "=". */
export function parseTags(value: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const pair of parseList(value)) {
    const at = pair.indexOf('=');
    if (at <= 0) return undefined;
    out[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return out;
}

/** Collects every problem first, so one verifyConfig() names them all. */
export class ConfigCheck {
  readonly missing: string[] = [];
  readonly invalid: string[] = [];
  constructor(
    private readonly provider: string,
    private readonly config: ProviderConfig,
  ) {}

  require(...keys: string[]): this {
    this.missing.push(...missingKeys(this.config, keys));
    return this;
  }

  check(key: string, valid: (v: string) => boolean, what: string): this {
    const v = get(this.config, key);
    if (v !== '' && !valid(v)) this.invalid.push(`${key} (${what})`);
    return this;
  }

  /** Problems found by other means (e.g. a binary that does not run). */
  problem(text: string): this {
    this.invalid.push(text);
    return this;
  }

  throwIfAny(): void {
    if (this.missing.length || this.invalid.length) {
      throw new ProviderConfigError(this.provider, this.missing, this.invalid);
    }
  }
}

/** Validators for ConfigCheck.check. */
export const isBool = (v: string): boolean => parseBool(v) !== undefined;
export const isNonNegativeInt = (v: string): boolean => parseNonNegativeInt(v) !== undefined;
export const isTags = (v: string): boolean => parseTags(v) !== undefined;

/**
 * Upstream's VerifyCloudInstanceType: the requested type, or the default when none was requested;
 * with an allowed list, the request must be in it; without one, only the default is allowed.
 */
export function selectInstanceType(
  provider: string,
  requested: string | undefined,
  allowed: readonly string[],
  fallback: string,
): string {
  if (!requested) return fallback;
  if (allowed.length === 0 && requested !== fallback) {
    throw new InvalidRequestError(
      provider,
      `requested instance type ${JSON.stringify(requested)} is not the default (${JSON.stringify(fallback)}) and no list of allowed types is configured`,
    );
  }
  if (allowed.length > 0 && !allowed.includes(requested)) {
    throw new InvalidRequestError(
      provider,
      `requested instance type ${JSON.stringify(requested)} is not in the allowed list (${allowed.join(', ')})`,
    );
  }
  return requested;
}
