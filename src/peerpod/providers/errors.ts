// Provider errors are classes, not strings, so the controllers can decide on retries by type
// (`retryable`) without knowing which cloud produced them.
import type { Instance } from './types.ts';

export class ProviderError extends Error {
  readonly provider: string;
  /** True when trying the same call again later may succeed. */
  readonly retryable: boolean;

  constructor(provider: string, message: string, opts: { retryable?: boolean; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'ProviderError';
    this.provider = provider;
    this.retryable = opts.retryable ?? false;
  }
}

/** The cloud says the instance does not exist. deleteInstance never throws it (gone is success). */
export class InstanceNotFoundError extends ProviderError {
  readonly instanceId: string;
  constructor(provider: string, instanceId: string, cause?: unknown) {
    super(provider, `${provider}: instance ${JSON.stringify(instanceId)} not found`, { cause });
    this.name = 'InstanceNotFoundError';
    this.instanceId = instanceId;
  }
}

/**
 * The ID cannot name an instance of this provider (wrong format, empty). Kept apart from "not found"
 * so the caller decides whether such a PeerPod is garbage or a configuration mix-up.
 */
export class InvalidInstanceIdError extends ProviderError {
  readonly instanceId: string;
  constructor(provider: string, instanceId: string, expected: string) {
    super(provider, `${provider}: invalid instance ID ${JSON.stringify(instanceId)} (expected ${expected})`);
    this.name = 'InvalidInstanceIdError';
    this.instanceId = instanceId;
  }
}

export class ProviderConfigError extends ProviderError {
  readonly missing: string[];
  readonly invalid: string[];
  constructor(provider: string, missing: string[], invalid: string[] = [], detail?: string) {
    const parts: string[] = [];
    if (missing.length) parts.push(`missing ${missing.join(', ')}`);
    if (invalid.length) parts.push(`invalid ${invalid.join(', ')}`);
    if (detail) parts.push(detail);
    super(provider, `${provider} provider config: ${parts.join('; ')}`);
    this.name = 'ProviderConfigError';
    this.missing = missing;
    this.invalid = invalid;
  }
}

export class UnknownProviderError extends ProviderConfigError {
  constructor(name: string, known: readonly string[]) {
    super(name, [], [], '');
    this.message = `unknown cloud provider ${JSON.stringify(name)} (known: ${known.join(', ')})`;
    this.name = 'UnknownProviderError';
  }
}

/** The request itself is wrong (e.g. an instance type outside the allowed list); retrying will not help. */
export class InvalidRequestError extends ProviderError {
  constructor(provider: string, message: string) {
    super(provider, `${provider}: ${message}`);
    this.name = 'InvalidRequestError';
  }
}

/** The cloud kept throttling after the SDK's own retries. */
export class ThrottledError extends ProviderError {
  constructor(provider: string, message: string, cause?: unknown) {
    super(provider, `${provider}: throttled: ${message}`, { retryable: true, cause });
    this.name = 'ThrottledError';
  }
}

/** No room for another instance; retryable because deletes free quota. */
export class QuotaExceededError extends ProviderError {
  constructor(provider: string, message: string, cause?: unknown) {
    super(provider, `${provider}: quota exceeded: ${message}`, { retryable: true, cause });
    this.name = 'QuotaExceededError';
  }
}

/**
 * The VM exists but the create did not finish (e.g. no IP). The caller owns `instance` and should
 * delete it, as upstream callers do with the partial Instance Go returns next to the error.
 */
export class PartialCreateError extends ProviderError {
  readonly instance: Instance;
  constructor(provider: string, instance: Instance, message: string, cause?: unknown) {
    super(provider, `${provider}: instance ${instance.id} (${instance.name}) created but ${message}`, {
      retryable: true,
      cause,
    });
    this.name = 'PartialCreateError';
    this.instance = instance;
  }
}
