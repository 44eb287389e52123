// Parsers of the `peerpods run` subcommands' flags. Light on purpose: they run while the command
// line is parsed, before any operator's code is loaded.
import { InvalidArgumentError } from 'commander';
import { QuantityError, parseQuantity } from '../../apimachinery/quantity/quantity.ts';
import { KNOWN_PROVIDERS, isKnownProvider, webhook } from '../../peerpod/defaults.ts';
import { parseDurationFlag } from '../options.ts';

export function parseWebhookPort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new InvalidArgumentError('must be a port number');
  return n;
}

export function parseDropMode(value: string): webhook.DropMode {
  if (!(webhook.DROP_MODES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`must be one of ${webhook.DROP_MODES.join(', ')}`);
  }
  return value as webhook.DropMode;
}

export function parseMaxVcpus(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || !Number.isSafeInteger(n))
    throw new InvalidArgumentError('must be a whole number ≥ 1');
  return n;
}

/** A memory quantity ("32Ti", "512Gi") in whole MiB. */
export function parseMaxMemory(value: string): number {
  let bytes: bigint;
  try {
    bytes = parseQuantity(value).toBigInt();
  } catch (err) {
    if (err instanceof QuantityError) throw new InvalidArgumentError(err.message);
    throw err;
  }
  const mib = Number(bytes >> 20n);
  if (mib < 1 || !Number.isSafeInteger(mib)) throw new InvalidArgumentError('must be a memory size of at least 1Mi');
  return mib;
}

/** `RUNTIMECLASS=RESOURCE`, added to the earlier ones. */
export function parseRoute(value: string, previous: Record<string, string>): Record<string, string> {
  const at = value.indexOf('=');
  if (at <= 0 || at === value.length - 1 || !value.slice(at + 1).includes('/'))
    throw new InvalidArgumentError('must be RUNTIMECLASS=RESOURCE, e.g. kata-remote-sim=simulated.kata.peerpods.io/vm');
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

/** An adaptor started with a provider it cannot build would idle forever: refuse it at start. */
export function parseProvider(value: string): string {
  if (isKnownProvider(value)) return value;
  throw new InvalidArgumentError(
    `unknown cloud provider ${JSON.stringify(value)}; known providers: ${KNOWN_PROVIDERS.join(', ')}`,
  );
}

export function parseKeyValue(value: string, previous: Record<string, string>): Record<string, string> {
  const at = value.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError('must be KEY=VALUE, e.g. QEMU_STATE_DIR=/var/lib/peerpods/qemu');
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

export function parseList(value: string): string[] {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 0) throw new InvalidArgumentError('must be a comma-separated list');
  return items;
}

export function positiveDuration(value: string): number {
  const ms = parseDurationFlag(value);
  if (ms <= 0) throw new InvalidArgumentError('must be a positive duration');
  return ms;
}
